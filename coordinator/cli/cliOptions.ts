import { InvalidArgumentError, Option } from 'commander';
import { parseAgentOption } from '../../shared/core/agents/agentChoice.js';
import { EFFORT_LEVELS, type Effort, parseThinking } from '../../shared/core/model/thinking.js';
import { parseAskTimeout } from '../asks/askOptions.js';

/*
 * The option parsers and options more than one command shares. A parser's InvalidArgumentError is
 * the one line `orca` prints for a bad value (cli.ts).
 */

/** `--share <git-url>`, defaulting to ORCA_SHARE: the remote a run is shared over (docs/scaling.md). */
export function shareOption(): Option {
  return new Option('--share <git-url>', 'share the run over this git remote, for workers on other hosts (default ORCA_SHARE)').env(
    'ORCA_SHARE',
  );
}

export function askTimeoutOption(): Option {
  return new Option(
    '--ask-timeout <duration>',
    'how long an agent waits for an answer to a permission request (2s, 10m; 0 denies at once); default 10m at a terminal, else no wait',
  ).argParser(parseAskTimeout);
}

/** Whether a person can answer at this terminal: stdin and stderr are terminals (and the output is not --json). */
export function atTerminal(json: boolean): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true && !json;
}

/** `--mcp a,b`: server names, as `.mcp.json` names them; `none`: no server, not even the approved project ones. */
export function serverList(value: string): string[] {
  if (value.trim() === 'none') return [];
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidArgumentError('expected server names separated by commas, e.g. github,everything');
  return names;
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

export function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return n;
}

/** `--thinking`: kept in its written form, which jobs carry; checked against the model once it is known. */
export function thinkingMode(value: string): string {
  const parsed = parseThinking(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.problem);
  return value.trim().toLowerCase();
}

export function agentChoice(value: string): Record<string, string> {
  const parsed = parseAgentOption(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.problem);
  return parsed.byRole;
}

/** `orca agent --agent`: checked here, read for the command's role there (a bare name is that role's). */
export function agentChoiceText(value: string): string {
  agentChoice(value);
  return value;
}

export function effortLevel(value: string): Effort {
  const level = value.trim().toLowerCase();
  if (!(EFFORT_LEVELS as readonly string[]).includes(level)) throw new InvalidArgumentError(`expected one of ${EFFORT_LEVELS.join(', ')}`);
  return level as Effort;
}

export function unitInterval(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}
