import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkoutState } from '../shared/policy/permissions/checkoutState.js';
import { RefGuard } from '../shared/policy/permissions/refGuard.js';
import { benchTempRoot } from './benchEnv.js';
import { median, round } from './stats.js';

/**
 * The watch's looks at the repository's refs (the ref guard's, after every writing call) and at
 * the user's checkout (its status, branches, tags and HEAD), in a repository that gathered orca's
 * own refs over earlier runs (`orcaRefs` task branches and work-in-progress refs, loose), beside
 * the same looks in the same repository before it had any. A look should not cost more the more
 * runs a repository has seen: orca's refs are not the user's, and neither look reads them.
 */
export interface RefLooksResult {
  /** RefGuard.restore (nothing to put back), median ms. */
  ref_guard_ms: number;
  ref_guard_without_ms: number;
  /** checkoutState of the checkout, median ms. */
  checkout_ms: number;
  checkout_without_ms: number;
  orca_refs: number;
  user_refs: number;
  repetitions: number;
}

export async function refLooksBenchmark(options: { orcaRefs?: number; repetitions?: number } = {}): Promise<RefLooksResult> {
  const orcaRefs = options.orcaRefs ?? 2_400;
  const repetitions = options.repetitions ?? 30;
  const root = mkdtempSync(path.join(benchTempRoot(), 'orca-bench-refs-'));
  try {
    const repo = path.join(root, 'repo');
    const worktree = path.join(root, 'worktree');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    mkdirSync(repo);
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'README.md'), '# refs\n');
    git('add', '-A');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@orca.invalid', 'commit', '-q', '-m', 'initial');
    const userRefs = 10;
    for (let i = 0; i < userRefs; i += 1) git('branch', `feature-${i}`);
    git('worktree', 'add', '-q', '--detach', worktree);
    const without = await looks(worktree, repo, repetitions);
    writeOrcaRefs(repo, git('rev-parse', 'HEAD'), orcaRefs);
    const withRefs = await looks(worktree, repo, repetitions);
    return {
      ref_guard_ms: withRefs.guard,
      ref_guard_without_ms: without.guard,
      checkout_ms: withRefs.checkout,
      checkout_without_ms: without.checkout,
      orca_refs: orcaRefs,
      user_refs: userRefs,
      repetitions,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The medians of each look, the guard opened on the worktree as a job's watch opens it. */
async function looks(worktree: string, checkout: string, repetitions: number): Promise<{ guard: number; checkout: number }> {
  const guard = await RefGuard.open(worktree);
  const guardTimes: number[] = [];
  const checkoutTimes: number[] = [];
  for (let i = 0; i < repetitions; i += 1) {
    let started = performance.now();
    await guard.restore();
    guardTimes.push(performance.now() - started);
    started = performance.now();
    await checkoutState(checkout);
    checkoutTimes.push(performance.now() - started);
  }
  return { guard: round(median(guardTimes), 2), checkout: round(median(checkoutTimes), 2) };
}

/** Runs' worth of orca's refs, loose as its runs leave them: per run 50 task branches and 10 work-in-progress refs. */
function writeOrcaRefs(repo: string, commit: string, count: number): void {
  for (let written = 0, run = 0; written < count; run += 1) {
    const branches = path.join(repo, '.git', 'refs', 'heads', 'orca', `r${run}`);
    const wip = path.join(repo, '.git', 'refs', 'orca', 'wip', `r${run}`);
    mkdirSync(branches, { recursive: true });
    mkdirSync(wip, { recursive: true });
    for (let task = 0; task < 60 && written < count; task += 1, written += 1) {
      writeFileSync(path.join(task < 50 ? branches : wip, `t${task}`), `${commit}\n`);
    }
  }
}
