import path from 'node:path';
import { worktreeEnvVars } from '../../shared/core/git/envOrcaFile.js';
import { readOrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import { commonGitDir } from '../../shared/core/git/repoLock.js';
import { placeStartFiles } from '../../shared/core/git/startFiles.js';
import { readStartState } from '../../shared/core/git/worktreeStartState.js';
import { runWorktreeSetup } from '../../shared/harness/setupCommands.js';
import { type RunContext, RunFailure } from '../run/runContext.js';

/** The task id the integration worktree's `.env.orca` and setup events carry. */
export const INTEGRATION_TASK = '_integration';

/**
 * The integration worktree is where the run's checks build and test the merged tree: brought to
 * the recorded head before each round of checks, and made ready as a task's worktree is
 * (docs/worktrees.md), once per run (a resumed run finds it ready).
 * Its setup is recorded as `check` events (`setup: CMD`), and a failing one fails the run.
 * Returns the repository's linked folders (`symlinkDirectories`, and each workspace package's
 * `node_modules`): the checks' sandbox must see where their links lead, which may be under the
 * host's /tmp that the sandbox's private /tmp hides.
 */
export async function prepareIntegrationWorktree(ctx: RunContext): Promise<string[]> {
  // At the recorded head: merges are made from the objects, and leave the worktree where it was.
  const dir = await ctx.integration.checkedOut();
  const { repo } = ctx.integration;
  const config = await readOrcaProjectConfig(repo, ctx.base);
  const linkedDirs = () => [
    ...new Set([
      ...config.symlinkDirectories.map((name) => path.join(repo, name)),
      ...readStartState(dir)
        .filter((entry) => entry.kind === 'linked')
        .map((entry) => path.join(repo, entry.path)),
    ]),
  ];
  // Made ready once: `.env.orca` is written last of what orca places (the dependencies were linked when the branch opened).
  if (readStartState(dir).some((entry) => entry.kind === 'env')) return linkedDirs();
  const env = { runId: ctx.recorder.runId, taskId: INTEGRATION_TASK, ports: [] };
  await placeStartFiles({ repo, checkout: repo, dir, symlinkDirectories: config.symlinkDirectories, env });
  if (config.setup.length === 0) return linkedDirs();
  const logDir = ctx.services.home.integrationCheckLogs(ctx.recorder.runId, 0);
  const outcome = await runWorktreeSetup({
    dir,
    commands: config.setup,
    timeoutMs: config.setupTimeoutSeconds * 1000,
    logFile: path.join(logDir, 'setup.log'),
    tempDir: path.join(logDir, 'tmp'),
    sandbox: ctx.role('worker').sandbox,
    // --sandbox off is off here too, as the start line says.
    mode: ctx.sandbox,
    domains: ctx.checkRules.domains,
    sockets: ctx.checkRules.sockets,
    extraReadable: [await commonGitDir(repo), ...linkedDirs()],
    env: worktreeEnvVars(env),
    signal: ctx.signal,
    onCommand: async (result) => {
      await ctx.recorder.record({
        type: 'check',
        command: `setup: ${result.command}`,
        exit_code: result.exit_code,
        tests_executed: null,
        tree: ctx.base,
        log: result.log,
        task_id: INTEGRATION_TASK,
      });
    },
  });
  if (!outcome.ok) throw new RunFailure(`the integration worktree's ${outcome.detail}`);
  return linkedDirs();
}
