import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { AgentJobSchema } from '../shared/infra/queue/agentJob.js';
import type { HookContext } from '../shared/policy/hooks/hookContext.js';
import { NO_HOOKS } from '../shared/policy/hooks/hooksConfig.js';
import { prepareWorkspace } from '../workers/workspace/prepareWorkspace.js';
import { scriptedAgentJob } from './runScript.js';
import { median, round } from './stats.js';

/** The folder the benchmark's task owns, and the test file its check names (in another package). */
const OWNED = 'packages/pkg03';
const CHECKED = 'packages/pkg07/src/mod1/file07100.ts';
/** What orca.json's `sparsePaths` adds: one more folder every task needs. */
const SHARED = 'packages/pkg19/src/mod9';

export interface SparseResult {
  /** A worker's workspace (prepareWorkspace: orca.json read, worktree made, start files placed), sparse, median. */
  sparse_ms: number;
  /** The same for a whole checkout of the same tree. */
  full_ms: number;
  /** sparse_ms / full_ms. */
  ratio: number;
  sparse_files: number;
  full_files: number;
  repetitions: number;
}

/**
 * `sparsePaths` on the 20,000-file repository: the workspace of a worker whose task owns one
 * folder (1,000 files) and whose check names a file elsewhere, made by the worker's own code
 * (`prepareWorkspace`) with orca.json's `sparsePaths` set, beside the same workspace of the whole
 * tree (the base without orca.json). Runs alternate; each worktree is checked (the owned folder
 * whole, the check's file and the shared folder there, another package absent) and removed untimed.
 */
export async function sparseBenchmark(
  large: { dir: string; base: string },
  root: string,
  options: { repetitions: number },
): Promise<SparseResult> {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: large.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  // orca.json on a commit of its own beside main (the other benchmarks keep using the base).
  git('checkout', '-q', '-b', 'bench-sparse', large.base);
  writeFileSync(path.join(large.dir, 'orca.json'), `${JSON.stringify({ sparsePaths: [SHARED] })}\n`);
  git('add', 'orca.json');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@orca.invalid', 'commit', '-q', '-m', 'orca.json: sparsePaths');
  const sparseBase = git('rev-parse', 'HEAD');
  git('checkout', '-q', 'main');

  const home = new OrcaHome(path.join(root, 'sparse-home'));
  const hooks = { config: NO_HOOKS, context: () => ({}) as HookContext };
  const sparse: number[] = [];
  const full: number[] = [];
  let sparseFiles = 0;
  let fullFiles = 0;
  for (let i = 0; i < options.repetitions; i += 1) {
    for (const kind of ['sparse', 'full'] as const) {
      const job = AgentJobSchema.parse({
        ...scriptedAgentJob({
          runId: 'bench-sparse',
          taskId: `${kind}${i}`,
          repo: large.dir,
          base: kind === 'sparse' ? sparseBase : large.base,
          turns: [],
        }),
        owned_paths: [`${OWNED}/**`],
        checks: [`node --test ${CHECKED}`],
      });
      const started = process.hrtime.bigint();
      const workspace = await prepareWorkspace(job, home, hooks);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const files = Number(
        execFileSync('git', ['ls-files', '-t'], { cwd: workspace.dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
          .split('\n')
          .filter((line) => line.startsWith('H ')).length,
      );
      const here = (relative: string) => existsSync(path.join(workspace.dir, relative));
      if (kind === 'sparse') {
        const owned = Number(
          execFileSync('git', ['ls-files', '--', OWNED], { cwd: workspace.dir, encoding: 'utf8' }).split('\n').filter(Boolean).length,
        );
        if (!here(CHECKED) || !here(SHARED) || here('packages/pkg00') || !here(`${OWNED}/src/mod9/file03999.ts`))
          throw new Error(
            `the sparse worktree ${workspace.dir} does not hold what it should (owned ${OWNED}, checked ${CHECKED}, shared ${SHARED})`,
          );
        if (owned !== 1_000) throw new Error(`the sparse worktree has ${owned} files of ${OWNED}, not 1000`);
        sparse.push(ms);
        sparseFiles = files;
      } else {
        full.push(ms);
        fullFiles = files;
      }
      execFileSync('git', ['worktree', 'remove', '--force', '--force', workspace.dir], { cwd: large.dir });
      execFileSync('git', ['branch', '-D', workspace.branch!], { cwd: large.dir, stdio: 'ignore' });
    }
  }
  const sparseMs = round(median(sparse));
  const fullMs = round(median(full));
  return {
    sparse_ms: sparseMs,
    full_ms: fullMs,
    ratio: round(sparseMs / fullMs, 3),
    sparse_files: sparseFiles,
    full_files: fullFiles,
    repetitions: options.repetitions,
  };
}
