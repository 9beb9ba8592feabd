import path from 'node:path';
import { checkShared, shareUrl } from '../shared/core/git/sharedRemote.js';
import { MISSING_API_KEY } from '../shared/core/model/anthropic.js';
import { loadScriptFile, type Script } from '../shared/core/model/scriptFile.js';
import { commandMark } from '../shared/core/runtime/commandTrace.js';
import { noteLegacyHome } from '../shared/core/runtime/defaultOrcaHome.js';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { probeHostSandboxAhead } from '../shared/core/sandbox/hostSandbox.js';
import { type SandboxStatus, sandboxStatus } from '../shared/policy/permissions/sandboxLine.js';
import type { ModelChoice } from './modelChoice.js';
import { passwordlessRedis } from './redisService.js';
import { inspectRepo, UserError } from './repoCheck.js';
import { newRunId } from './runId.js';

/** The options `orca run` and `orca agent` share, checked before either starts. */
export interface PreStartOptions {
  repo: string;
  base?: string;
  allowDirty: boolean;
  /** Claude Code plugin folders (`--plugin-dir`), as given. */
  pluginDirs?: string[];
  /** `--share` (or ORCA_SHARE), as given. */
  share?: string;
  /** `--script FILE`: the Scripted model instead of an LLM. */
  script?: string;
  sandbox: SandboxMode;
  sandboxSource?: string;
}

/** The repository a run starts in: its root, its base commit, and the plugin folders resolved. */
export interface StartRepository {
  root: string;
  base: string;
  pluginDirs: string[];
}

/** A run that can start: its repository, what its command read there, and what it runs with. */
export interface PreStart<T> extends StartRepository {
  /** What the command read for itself at the base (its task, its role). */
  command: T;
  /** The shared remote's URL, checked. */
  share?: string;
  script?: Script;
  /** The model the run's jobs carry; undefined with a script. */
  model?: ModelChoice;
  sandbox: SandboxStatus;
}

/**
 * What `orca run` and `orca agent` check before a run is announced, in this order: the repository
 * (its root, the base, a clean tree unless --allow-dirty), what the command reads there (`read`:
 * its task or its role), the shared remote, a script or an API key where orca's own loop runs, the model (`chooseModel`, when
 * there is no script), a writable ORCA_HOME, the sandbox. Each failure is a UserError naming what
 * to fix; a run id printed for a run that cannot start would mislead.
 */
export async function preStart<T>(
  options: PreStartOptions,
  command: {
    read: (repository: StartRepository) => Promise<T>;
    chooseModel: (read: T) => ModelChoice;
    /** Whether orca's own loop runs (and so needs ANTHROPIC_API_KEY or a script); yes unless said. */
    ownLoop?: (read: T) => boolean;
  },
): Promise<PreStart<T>> {
  // Started first, answered by the time the sandbox line is made: it runs beside the git checks below.
  const sandboxProbe = options.sandbox === 'off' ? Promise.resolve() : probeHostSandboxAhead();
  // Likewise the look for a Redis without a password (a ping when REDIS_URL is unset); its failure is said where it was awaited.
  const redis = passwordlessRedis();
  redis.catch(() => undefined);
  const { root, base } = await inspectRepo(path.resolve(options.repo), { base: options.base, allowDirty: options.allowDirty });
  commandMark('repo_inspected');
  const repository: StartRepository = { root, base, pluginDirs: (options.pluginDirs ?? []).map((dir) => path.resolve(dir)) };
  const read = await command.read(repository);
  commandMark('command_read');
  const share = options.share ? shareUrl(options.share) : undefined;
  if (share) await checkShared(share, root).catch(toUserError);
  const script = options.script ? await loadScriptFile(path.resolve(options.script)) : undefined;
  if (!script && !process.env.ANTHROPIC_API_KEY && (command.ownLoop?.(read) ?? true)) throw new UserError(MISSING_API_KEY);
  const model = script ? undefined : command.chooseModel(read);
  const home = new OrcaHome(process.env.ORCA_HOME || undefined).ensureWritable();
  const moved = noteLegacyHome(home.root);
  if (moved) process.stderr.write(`orca: ${moved}\n`);
  await sandboxProbe;
  const sandbox = sandboxStatus(options.sandbox, { source: options.sandboxSource, passwordlessRedis: await redis });
  commandMark('sandbox_probed');
  if (sandbox.refusal) throw new UserError(sandbox.refusal);
  return { ...repository, command: read, share, script, model, sandbox };
}

/** The run's id, said on stderr with the sandbox line once nothing stops the run from starting. */
export function announceRun(sandbox: SandboxStatus): string {
  const runId = newRunId();
  process.stderr.write(`orca: run ${runId}\n`);
  // Said even with --json (on stderr): what the agents' commands run in is never left unsaid.
  process.stderr.write(`orca: ${sandbox.line}\n`);
  return runId;
}

function toUserError(error: unknown): never {
  throw new UserError(error instanceof Error ? error.message : String(error));
}
