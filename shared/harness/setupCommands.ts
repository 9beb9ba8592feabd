import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from '../core/git/git.js';
import { readStartState, recordStartState, startEntry } from '../core/git/worktreeStartState.js';
import { agentShellEnv } from '../core/runtime/agentEnv.js';
import { spawnShellGroup } from '../core/runtime/processGroup.js';
import type { SandboxMode } from '../core/runtime/sandboxMode.js';
import { type ShellWrap, shellSandbox } from '../policy/permissions/sandbox.js';

/** How much of the setup log's end a failure quotes (the JSON `detail`, the board). */
const TAIL_LINES = 20;
const TAIL_CHARS = 2_000;

export interface SetupSpec {
  /** The worktree the commands run in (their cwd, and the one place they may write). */
  dir: string;
  commands: readonly string[];
  timeoutMs: number;
  /** Every command's output, one after another, with a header and its exit: the task's setup log. */
  logFile: string;
  /** The sandbox's private /tmp. */
  tempDir: string;
  /** Sandboxed like the agent's Bash (the role's `sandbox`), with the same network allowance. */
  sandbox: boolean;
  /** `--sandbox`: `required` wraps the commands whatever the role says, `off` never. */
  mode?: SandboxMode;
  /** Hosts the commands may reach through the filtering proxy (the run's allowed domains). */
  domains: string[];
  /** Host unix sockets the commands may reach (`sandbox.network.allowUnixSockets`). */
  sockets?: string[];
  /** Host folders the sandboxed commands must see (the repository's git folder, linked folders' targets). */
  extraReadable: string[];
  /** The worktree's variables (.env.orca's), on top of the agent shell's environment. */
  env: Record<string, string>;
  signal?: AbortSignal;
  /** Told of each command as it ends (the job's `setup` event). */
  onCommand?: (result: SetupCommandResult) => Promise<void> | void;
  /** Told why commands run unsandboxed, once. */
  notify?: (message: string) => void;
}

export interface SetupCommandResult {
  command: string;
  outcome: 'ok' | 'failed' | 'timeout' | 'aborted';
  exit_code: number | null;
  duration_ms: number;
  log: string;
  /** The end of the log when the command failed. */
  tail?: string;
}

export interface SetupOutcome {
  ok: boolean;
  results: SetupCommandResult[];
  /** Why the setup failed, with the log's tail: what the task's failure says. */
  detail?: string;
}

/**
 * Runs orca.json's `setup` in a new worktree before its agent starts, in order, each with a
 * timeout, all output to one log. The first failure stops it. What the commands made (files git
 * does not track) joins the worktree's start state; a command that changed a tracked file fails
 * the setup, since that change would otherwise pass for the agent's.
 */
export async function runWorktreeSetup(spec: SetupSpec): Promise<SetupOutcome> {
  if (spec.commands.length === 0) return { ok: true, results: [] };
  mkdirSync(path.dirname(spec.logFile), { recursive: true });
  const log = setupLog(spec.logFile);
  const sandbox = shellSandbox({
    enabled: spec.sandbox,
    mode: spec.mode,
    worktree: spec.dir,
    tempDir: spec.tempDir,
    domains: spec.domains,
    sockets: spec.sockets,
    extraReadable: [...spec.extraReadable, spec.dir],
    notify: (message) => spec.notify?.(message),
  });
  const results: SetupCommandResult[] = [];
  try {
    for (const command of spec.commands) {
      const { result, why } = await runSetupCommand(command, spec, log, sandbox.wrap);
      results.push(result);
      await spec.onCommand?.(result);
      if (why !== undefined)
        return { ok: false, results, detail: `setup command \`${command}\` ${why} (log ${spec.logFile}):\n${result.tail}` };
    }
  } finally {
    await log.close();
  }
  const changed = await recordWhatSetupMade(spec.dir);
  if (changed.length > 0)
    return {
      ok: false,
      results,
      detail: `the setup changed files the repository tracks (${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''}): a setup may only add files (make them gitignored); log ${spec.logFile}`,
    };
  return { ok: true, results };
}

/** The setup's log, appended to, with its most recent text kept for a failure's tail. */
interface SetupLog {
  write(text: string): void;
  recent(): string;
  close(): Promise<void>;
}

function setupLog(file: string): SetupLog {
  const stream = createWriteStream(file, { flags: 'a' });
  let recent = '';
  return {
    write: (text) => {
      stream.write(text);
      recent = (recent + text).slice(-4 * TAIL_CHARS);
    },
    recent: () => recent,
    close: () => new Promise<void>((resolve) => stream.end(resolve)),
  };
}

/**
 * One setup command in the worktree (in the sandbox when there is one), its output and how it
 * ended in the log; `why` it failed, when it did.
 */
async function runSetupCommand(
  command: string,
  spec: SetupSpec,
  log: SetupLog,
  wrap: ShellWrap | undefined,
): Promise<{ result: SetupCommandResult; why?: string }> {
  log.write(`$ ${command}\n`);
  const started = Date.now();
  const group = await spawnShellGroup(command, wrap, { cwd: spec.dir, env: { ...agentShellEnv(), ...spec.env } });
  group.child.stdout.on('data', (chunk: Buffer) => log.write(chunk.toString('utf8')));
  group.child.stderr.on('data', (chunk: Buffer) => log.write(chunk.toString('utf8')));
  const stopped = await group.waitForEnd({ timeoutMs: spec.timeoutMs, signal: spec.signal });
  const exit = await group.exited;
  await group.outputClosedWithin();
  const outcome = stopped === 'timeout' ? 'timeout' : stopped === 'abort' ? 'aborted' : exit.code === 0 ? 'ok' : 'failed';
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log.write(
    `\n[${outcome === 'timeout' ? `stopped after ${spec.timeoutMs / 1000} s (the setup timeout)` : `exit ${exit.code ?? exit.signal}`}, ${seconds} s]\n`,
  );
  const result: SetupCommandResult = {
    command,
    outcome,
    exit_code: exit.code,
    duration_ms: Date.now() - started,
    log: spec.logFile,
    ...(outcome === 'ok' ? {} : { tail: tailOf(log.recent()) }),
  };
  if (outcome === 'ok') return { result };
  const why =
    outcome === 'timeout'
      ? `ran past the setup timeout (${spec.timeoutMs / 1000} s)`
      : outcome === 'aborted'
        ? 'was aborted'
        : `exited ${exit.code ?? exit.signal}`;
  return { result, why };
}

/** Adds the untracked files the setup made to the start state; returns the tracked files it changed. */
async function recordWhatSetupMade(dir: string): Promise<string[]> {
  const known = new Set(readStartState(dir).map((entry) => entry.path));
  const out = await gitAt(dir).raw(['status', '--porcelain', '-z', '--untracked-files=all']);
  const made: string[] = [];
  const changed: string[] = [];
  for (const line of out.split('\0').filter(Boolean)) {
    const file = line.slice(3);
    if (known.has(file)) continue;
    if (line.startsWith('??')) made.push(file);
    else changed.push(file);
  }
  recordStartState(
    dir,
    made.map((file) => startEntry(dir, file, 'setup')),
  );
  return changed;
}

function tailOf(recent: string): string {
  const text = recent.trim().split('\n').slice(-TAIL_LINES).join('\n');
  return text.length > TAIL_CHARS ? `…${text.slice(-TAIL_CHARS)}` : text;
}
