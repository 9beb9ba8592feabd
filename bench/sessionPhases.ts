import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { median, round } from './stats.js';

/**
 * Where one `orca agent` run's wall time went, read from its session's transcript (each event is
 * stamped `at`, ms since the epoch): from spawning the CLI to the session's start (the CLI's own
 * start, the job queued and taken, the worktree, the session set up), to its first turn (for an
 * ACP agent: its process started in the sandbox, `initialize`, `session/new`, which for Claude
 * Code includes Claude Code's own start), the turns, and from the session's end to the CLI's exit
 * (the commit, the result published, the CLI's exit).
 */
export interface SessionPhases {
  to_session_ms: number;
  agent_start_ms: number;
  turns_ms: number;
  after_end_ms: number;
}

/** The phases of run `runId`'s one session under ORCA_HOME `home`, the CLI spawned at `spawnedAt` and exited at `exitedAt` (epoch ms). */
export function sessionPhases(home: string, runId: string, spawnedAt: number, exitedAt: number): SessionPhases {
  const root = path.join(home, 'sessions', runId);
  const file = existsSync(root)
    ? readdirSync(root)
        .map((entry) => path.join(root, entry, 'transcript.jsonl'))
        .find((candidate) => existsSync(candidate))
    : undefined;
  if (!file) throw new Error(`run ${runId} left no transcript under ${root}: the phases cannot be read`);
  const events = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; at: number });
  const at = (type: string) => {
    const event = events.find((e) => e.type === type);
    if (!event) throw new Error(`the transcript ${file} has no ${type} event`);
    return event.at;
  };
  const start = at('session_start');
  const firstTurn = at('turn_start');
  const end = at('end');
  return {
    to_session_ms: start - spawnedAt,
    agent_start_ms: firstTurn - start,
    turns_ms: end - firstTurn,
    after_end_ms: exitedAt - end,
  };
}

/** The median of each phase over the runs. */
export function medianPhases(all: SessionPhases[]): SessionPhases {
  const of = (key: keyof SessionPhases) => round(median(all.map((phases) => phases[key])));
  return {
    to_session_ms: of('to_session_ms'),
    agent_start_ms: of('agent_start_ms'),
    turns_ms: of('turns_ms'),
    after_end_ms: of('after_end_ms'),
  };
}

/** Where `orca agent`'s time went, medians, as a figure's note says it. */
export function phaseNote(phases: SessionPhases): string {
  return `phases: to session ${phases.to_session_ms} ms, agent start ${phases.agent_start_ms}, turns ${phases.turns_ms}, end to exit ${phases.after_end_ms}`;
}
