import { createWriteStream, mkdirSync, statSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { agentShellEnv } from '../../../core/runtime/agentEnv.js';
import { DEFAULT_KILL_GRACE_MS, spawnShellGroup } from '../../../core/runtime/processGroup.js';
import { readOnlyDependencyNote } from '../../../core/runtime/readOnlyDependencies.js';
import type { CheckEvidence, CheckSpec, TestCounts } from '../evidence/evidence.js';
import { DEFAULT_JUNIT_GLOBS, junitCounts } from '../evidence/junit.js';
import { watchTargets } from '../evidence/portOwner.js';
import { parseTestCounts } from '../evidence/testCounts.js';
import { saveManifest, treeSnapshot } from '../evidence/treeHash.js';
import { targetPortsOf } from '../gates/target.js';
import type { CheckLauncher } from './checkSandbox.js';
import { colourStripper } from './colourlessLog.js';

/**
 * The host runs one check and keeps what it needs to say "passed" truthfully:
 * - the tree it ran on, hashed BEFORE it starts (treeHash.ts), with a listing beside the log;
 * - the command, run with `bash -c` in the check's folder, in its own process group, stdin closed,
 *   in the environment a developer's own run would have: this process's, without orca's secrets
 *   (secretRedaction.ts), plus the leased ports; inside the launcher's sandbox when it has one
 *   (checkSandbox.ts: the code it runs is agent-written). Nothing that changes a program's behaviour is added (no CI, NO_COLOR,
 *   FORCE_COLOR or TERM: a test of colour output must pass here as in a plain shell); whatever
 *   ends it (exit, timeout, abort), nothing it started outlives it;
 * - exit code or signal, start, end and duration;
 * - the whole output (stdout and stderr interleaved as they came) in a log file, with terminal
 *   colour taken out of the log, not out of the program (colourlessLog.ts);
 * - who listened on the ports it talks to (gates/target.ts), watched while it ran;
 * - the test counts from JUnit XML written during the run, else from the output (testCounts.ts).
 * A check that cannot be started (no such folder) is an error; one that fails is evidence.
 */
export interface RunCheckOptions {
  /** The folder the check runs in (a worktree, or a folder inside one). */
  cwd: string;
  /** Where the log and the tree listing are written. */
  logDir: string;
  /** Extra environment (PORT, ORCA_PORTS) over this process's, secrets removed: nothing else is added. */
  env?: Record<string, string>;
  /** Overrides the spec's own `timeout_ms`; default 10 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  killGraceMs?: number;
  /** How the command is started (checkSandbox.ts); unset: plainly, with the same environment. */
  launcher?: CheckLauncher;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 10 * 60_000;
/** Past this, a log is not read for counting (the counts are then unknown, said so). */
const MAX_COUNTED_LOG_BYTES = 64 * 1024 * 1024;

export async function runCheck(spec: CheckSpec, options: RunCheckOptions): Promise<CheckEvidence> {
  if (options.signal?.aborted) throw new Error(`check \`${spec.command}\` was not run: aborted before it started`);
  mkdirSync(options.logDir, { recursive: true });
  const stem = path.join(options.logDir, `${Date.now()}-${slugOf(spec.command)}`);
  const tree = await treeSnapshot(options.cwd);
  await saveManifest(tree, `${stem}.tree.txt`);

  const env = { ...agentShellEnv(), ...options.env };
  const ports = targetPortsOf(spec, env);
  const timeoutMs =
    options.timeoutMs ?? ('timeout_ms' in spec && spec.timeout_ms !== undefined ? spec.timeout_ms : DEFAULT_CHECK_TIMEOUT_MS);
  const logFile = `${stem}.log`;
  const file = createWriteStream(logFile);
  const log = colourStripper();
  log.pipe(file);
  const watcher = watchTargets(ports);
  const startedAt = Date.now();
  let group;
  try {
    group = await spawnShellGroup(spec.command, options.launcher?.wrap, { cwd: options.cwd, env });
  } catch (error) {
    watcher.stop();
    log.end();
    await finished(file);
    throw error;
  }
  group.child.stdout.pipe(log, { end: false });
  group.child.stderr.pipe(log, { end: false });

  // Background jobs the check left behind die with it, however it ended.
  const stoppedBy = await group.waitForEnd({ timeoutMs, signal: options.signal, graceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS });
  const exit = await group.exited;
  const finishedAt = Date.now();
  const targets = watcher.stop();
  if (!(await group.outputClosedWithin())) {
    group.child.stdout.destroy();
    group.child.stderr.destroy();
  }
  log.end();
  await finished(file);
  if (options.launcher?.wrap && exit.code !== 0) await noteReadOnlyDependencies(logFile);

  const outcome = stoppedBy === 'timeout' ? 'timed_out' : stoppedBy === 'abort' ? 'aborted' : exit.code !== null ? 'exited' : 'killed';
  return {
    command: spec.command,
    cwd: options.cwd,
    tree: tree.digest,
    tree_manifest: `${stem}.tree.txt`,
    started_at: startedAt,
    finished_at: finishedAt,
    duration_ms: finishedAt - startedAt,
    exit_code: outcome === 'exited' ? exit.code : null,
    signal: exit.signal,
    outcome,
    log: logFile,
    counts: await countTests([logFile], options.cwd, startedAt, 'junit' in spec ? spec.junit : undefined),
    target_ports: ports,
    targets,
    ran_by: 'host',
  };
}

/**
 * The test counts of a finished check: JUnit XML the run wrote under `cwd` (its own globs, or
 * the usual places), else its output, read from `logFiles` (stdout, then stderr).
 */
export async function countTests(
  logFiles: readonly string[],
  cwd: string,
  startedAt: number,
  junitGlobs?: readonly string[],
): Promise<TestCounts> {
  const junit = await junitCounts(cwd, startedAt, junitGlobs ?? DEFAULT_JUNIT_GLOBS);
  if (junit) return parseTestCounts('', junit.counts);
  const size = logFiles.reduce((total, file) => total + statSync(file).size, 0);
  if (size > MAX_COUNTED_LOG_BYTES) {
    return {
      known: false,
      reason: `the output is ${Math.round(size / 1024 / 1024)} MB, too large to count its tests; write JUnit XML (a \`junit\` glob in the check) to count them`,
    };
  }
  const texts = await Promise.all(logFiles.map((file) => readFile(file, 'utf8')));
  return parseTestCounts(texts.join('\n'));
}

/** A sandboxed check that failed writing into node_modules: its log ends saying why, and what to do (readOnlyDependencies.ts). */
async function noteReadOnlyDependencies(logFile: string): Promise<void> {
  if (statSync(logFile).size > MAX_COUNTED_LOG_BYTES) return;
  const note = readOnlyDependencyNote(await readFile(logFile, 'utf8'));
  if (note) await appendFile(logFile, `\n${note}\n`);
}

function slugOf(command: string): string {
  return (
    command
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'check'
  );
}
