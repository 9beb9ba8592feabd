import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { CHECK_COMMAND, runScript, type ScriptedSubtask } from '../../bench/runScript.js';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import type { OrcaTestEnv } from '../support/orcaEnv.js';

/**
 * What the fault tests share: `orca run` as a process the test can kill mid-run, waiting on the
 * run's event stream, and scripted workers that write a file, run the repository's check and
 * report it, one of which can be held inside its shell until the test lets it go.
 */

export interface RunJson {
  run_id: string;
  status: string;
  base: string;
  head: string;
  integration_branch: string;
  tasks: Array<{ id: string; status: string; branch?: string; commit?: string; attempts: number; host?: string }>;
}

/** A worker's turns: write `file`, run the check, report it. `before` goes first (e.g. a held shell). */
export function checkedWriter(file: string, before: ScriptTurn[] = []): ScriptTurn[] {
  return [
    ...before,
    { tools: [{ name: 'Write', input: { file_path: file, content: `${file} written\n` } }] },
    { tools: [{ name: 'Bash', input: { command: CHECK_COMMAND } }] },
    {
      tools: [
        { name: 'Report', input: { summary: `wrote ${file}`, unresolved: [], claimed_checks: [{ command: CHECK_COMMAND, exit_code: 0 }] } },
      ],
    },
  ];
}

/**
 * A shell that waits until `gate` exists. The gate lives in the repository's git folder, which
 * the sandboxed shell can read (its /tmp is private, so a gate elsewhere under /tmp is not seen).
 */
export function waitForGate(gate: string): ScriptTurn {
  return { tools: [{ name: 'Bash', input: { command: `while [ ! -e '${gate}' ]; do sleep 0.05; done; echo let go` } }] };
}

export function writeRunScript(dir: string, subtasks: ScriptedSubtask[]): string {
  const file = path.join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(runScript(subtasks)));
  return file;
}

/** `orca ARGS` started in the env, not awaited: the test may kill it. */
export class OrcaProcess {
  readonly child: ChildProcess;
  readonly runId: Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout = '';
  stderr = '';

  constructor(env: OrcaTestEnv, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [compiledEntry('coordinator/cli.ts'), ...args], {
      cwd: packageRoot(),
      env: env.processEnv(extraEnv),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(this);
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.exited = once(this.child, 'close').then(
      ([code, signal]) => ({ code, signal }) as { code: number | null; signal: NodeJS.Signals | null },
    );
    this.runId = new Promise((resolve, reject) => {
      this.child.stderr!.on('data', (chunk: Buffer) => {
        this.stderr += chunk.toString();
        const match = /^orca: run (\S+)$/m.exec(this.stderr);
        if (match) resolve(match[1]!);
      });
      void this.exited.then(() => reject(new Error(`orca ${args.join(' ')} exited without a run id:\n${this.stderr}`)));
    });
    this.runId.catch(() => {});
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The `--json` object, once the command has ended. */
  async json(): Promise<{ code: number | null; json: RunJson }> {
    const { code } = await this.exited;
    try {
      return { code, json: JSON.parse(this.stdout) as RunJson };
    } catch {
      throw new Error(`orca exited ${code} without JSON:\n${this.stdout}\n${this.stderr}`);
    }
  }
}

const started: OrcaProcess[] = [];

afterEach(async () => {
  // A failed test may leave a coordinator running: it must not outlive the test's env.
  for (const run of started.splice(0)) {
    if (run.running) {
      run.child.kill('SIGKILL');
      await run.exited;
    }
  }
});

export async function runEvents(redis: Redis, keys: Keys, runId: string): Promise<RunStreamEntry[]> {
  return (await readRunEvents(redis, keys, runId, '0', 100_000)).map(({ entry }) => entry);
}

/**
 * Polls the run's stream until `found` holds for one of its entries, and returns that entry. The
 * deadline is a safety net for a slow machine, not a measure of speed.
 */
export async function waitForEntry(
  redis: Redis,
  keys: Keys,
  runId: string,
  found: (entry: RunStreamEntry) => boolean,
  what: string,
  deadlineMs = 120_000,
): Promise<RunStreamEntry> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const hit = (await runEvents(redis, keys, runId)).find(found);
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`run ${runId}: ${what} never happened`);
    await sleep(100);
  }
}

/** The entry for a task's tool call of `name` (from its agent), or a run event about a task in a state. */
export const is = {
  toolCall: (taskId: string, name: string) => (entry: RunStreamEntry) =>
    entry.source === 'agent' && entry.task_id === taskId && entry.event.type === 'tool_call' && entry.event.name === name,
  taskState: (taskId: string, status: string) => (entry: RunStreamEntry) =>
    entry.source === 'run' && entry.event.type === 'task_state' && entry.event.task_id === taskId && entry.event.status === status,
};
