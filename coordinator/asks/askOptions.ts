import { InvalidArgumentError } from 'commander';
import { isBroken, parseRule } from '../../shared/policy/permissions/rule.js';

/**
 * The command line of asking (`orca run` and `orca agent`): how long an agent waits for an answer,
 * and the answers given in advance. Kept apart from the commands so `orca` starts light.
 */

/** `--ask-timeout`: a whole number with s, m or h (`2s`, `10m`; no unit: seconds); `0` denies every request at once. */
export function parseAskTimeout(value: string): number {
  const match = /^(\d+)([smh]?)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected a whole number with s, m or h (2s, 10m, 1h), or 0 to deny every request at once');
  const unit = { '': 1_000, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as '' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}

/** `--yes-to RULE` (repeatable): a rule in Claude Code's syntax, checked here so a typo fails before the run starts. */
export function collectYesTo(value: string, previous: string[]): string[] {
  const rule = parseRule(value, 'allow', '--yes-to');
  if (isBroken(rule)) throw new InvalidArgumentError(`"${value}" is not a permission rule: ${rule.problem}`);
  return [...previous, rule.text];
}

/** How a run's permission requests wait: `--ask-timeout` as given, else 10 minutes with someone to ask. */
export interface AskWait {
  timeoutMs: number;
  /** No terminal to ask at and no --ask-timeout: a request is refused at once, saying how to allow it. */
  nobody: boolean;
  /** The timeout `--ask-timeout` gave, which a resumed run keeps; undefined when it followed from the terminal. */
  given?: number;
}

/**
 * A run nobody can answer does not wait on an answer: without a terminal (a script, CI) and
 * without --ask-timeout, a request is refused at once; --ask-timeout makes it wait for `orca
 * allow` or the board.
 */
export function askWait(given: number | undefined, terminal: boolean): AskWait {
  if (given !== undefined) return { timeoutMs: given, nobody: false, given };
  return terminal ? { timeoutMs: parseAskTimeout('10m'), nobody: false } : { timeoutMs: 0, nobody: true };
}

/**
 * How a resumed run's requests wait: `--ask-timeout` given to the resume, else the one the run was
 * started with, else decided by whether someone can answer at the resume's own terminal (a run
 * started at a terminal and resumed by a script must not wait 10 minutes on nobody).
 */
export function resumedAskWait(givenNow: number | undefined, givenAtStart: number | undefined, terminal: boolean): AskWait {
  return askWait(givenNow ?? givenAtStart, terminal);
}
