import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import type { Ask } from '../../shared/infra/board/boardSchemas.js';
import { type RunBoard, readRunBoard } from '../../shared/infra/board/readBoard.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { waitFor } from '../board/waitFor.js';
import { commitFiles, git } from '../support/gitRepo.js';
import type { OrcaTestEnv } from '../support/orcaEnv.js';

/**
 * What the tests of asking share: a repository whose project settings ask before `npm publish`
 * (Claude Code's syntax, committed as a team would), a stand-in `npm` on the agents' PATH that
 * records what it was asked to do instead of publishing, and ways to watch a run's requests.
 */

export const ASK_RULE = 'Bash(npm publish:*)';

export interface AskRepo {
  repo: string;
  base: string;
  /** The stand-in npm's folder, for the agent's PATH. */
  bin: string;
  /** Where the stand-in npm writes each command it ran, one line each. */
  published: string;
}

export function askRepo(orca: OrcaTestEnv, settings: Record<string, unknown> = {}): AskRepo {
  const repo = orca.dir('repo');
  const bin = orca.dir('bin');
  const published = path.join(orca.dir('npm-log'), 'published.txt');
  writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "npm $*" >> "${published}"\necho "published (not really): $*"\n`);
  chmodSync(path.join(bin, 'npm'), 0o755);
  git(repo, 'init', '-q', '-b', 'main');
  const base = commitFiles(
    repo,
    {
      'README.md': '# a package\n',
      '.claude/settings.json': `${JSON.stringify({ permissions: { ask: [ASK_RULE] }, ...settings }, null, 2)}\n`,
    },
    'initial',
  );
  return { repo, base, bin, published };
}

/** The commands the stand-in npm ran. */
export function publishedCommands(setup: AskRepo): string[] {
  return existsSync(setup.published) ? readFileSync(setup.published, 'utf8').trim().split('\n').filter(Boolean) : [];
}

/** Environment for the agent's shell: the stand-in npm first on PATH. */
export function agentEnv(setup: AskRepo): Record<string, string> {
  return { PATH: `${setup.bin}:${process.env.PATH ?? '/usr/bin:/bin'}` };
}

/** The run's board once it shows a pending request (of `taskId`, when given). */
export async function pendingAsk(orca: OrcaTestEnv, runId: string, taskId?: string): Promise<Ask> {
  let board: RunBoard | undefined;
  await waitFor(
    async () => {
      board = await readRunBoard(orca.redis, orca.keys, runId);
      return (board?.asks ?? []).some((ask) => taskId === undefined || ask.task_id === taskId);
    },
    () => `${JSON.stringify(board ?? null, null, 2)}\n${orca.workers.map((worker) => worker.stderr).join('\n')}`,
    120_000,
  );
  return board!.asks.find((ask) => taskId === undefined || ask.task_id === taskId)!;
}

export async function streamEntries(orca: OrcaTestEnv, runId: string): Promise<RunStreamEntry[]> {
  return (await readRunEvents(orca.redis, orca.keys, runId, '0', 100_000)).map(({ entry }) => entry);
}

/** A transcript's events, parsed. */
export function transcriptEvents(file: string): AgentEvent[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as AgentEvent);
}

/** A file of hooks for the PermissionRequest event: the test's answering script, recording what it was given. */
export function permissionRequestHook(
  orca: OrcaTestEnv,
  respond: string,
  spec: Record<string, unknown>,
): { settings: Record<string, unknown>; record: string } {
  const dir = orca.dir('hook');
  mkdirSync(dir, { recursive: true });
  const record = path.join(dir, 'calls.jsonl');
  const specFile = path.join(dir, 'spec.json');
  writeFileSync(specFile, JSON.stringify({ record, ...spec }));
  return {
    record,
    settings: {
      hooks: { PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `node "${respond}" "${specFile}"` }] }] },
    },
  };
}

/**
 * A repository whose settings ask before `npm publish`, with a stand-in `npm` committed in `bin/`
 * (the agents' PATH starts with the relative `bin`, so it is found in every worktree, sandbox or
 * not): it writes what it ran to `published.txt` in the worktree, which the task then commits.
 */
export function publishingRepo(orca: OrcaTestEnv): string {
  const repo = orca.dir('repo');
  makeRunRepo(repo, {
    'README.md': '# a package\n',
    'bin/npm': '#!/bin/sh\necho "npm $*" >> published.txt\necho "published (not really): $*"\n',
    '.claude/settings.json': `${JSON.stringify({ permissions: { ask: [ASK_RULE] } })}\n`,
  });
  chmodSync(path.join(repo, 'bin', 'npm'), 0o755);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'npm is executable');
  return repo;
}

/** The agents' PATH for a publishingRepo: the relative `bin` first. */
export const PATH_WITH_BIN = `bin:${process.env.PATH ?? '/usr/bin:/bin'}`;

/** A worker's last turn in a run: its subtask's check (a report needs it run after its last change), then its Report. */
export function checkThenReport(summary: string): ScriptTurn[] {
  return [
    {
      tools: [
        { name: 'Bash', input: { command: CHECK_COMMAND } },
        { name: 'Report', input: { summary, unresolved: [], claimed_checks: [] } },
      ],
    },
  ];
}
