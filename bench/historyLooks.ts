import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkoutState } from '../shared/policy/permissions/checkoutState.js';
import { HostFilesWatch } from '../shared/policy/permissions/hostFilesWatch.js';
import { RefGuard } from '../shared/policy/permissions/refGuard.js';
import { benchTempRoot } from './benchEnv.js';
import { median, round } from './stats.js';

/**
 * The watch's looks after a writing call, where orca has run many times before: at the
 * repository's refs (the ref guard), at the user's checkout (its status, branches, tags and HEAD),
 * and at the user's configuration and orca's own state (the host files watch: ORCA_HOME's run
 * records among them). The repository gathered `orcaRefs` of orca's refs (task branches and
 * work-in-progress refs, loose) and ORCA_HOME `runRecords` run records, as earlier runs leave
 * them; each look beside the same look before any of it. A look should not cost more the more
 * runs came before.
 */
export interface HistoryLooksResult {
  /** RefGuard.restore (nothing to put back), median ms; then the same before any orca ref. */
  ref_guard_ms: number;
  ref_guard_without_ms: number;
  /** checkoutState of the checkout, median ms. */
  checkout_ms: number;
  checkout_without_ms: number;
  /** HostFilesWatch.check (nothing changed), median ms. */
  host_files_ms: number;
  host_files_without_ms: number;
  /** An lstat of each run record, median ms: the floor of any look that sees a record written in place. */
  run_records_lstat_ms: number;
  orca_refs: number;
  user_refs: number;
  run_records: number;
  repetitions: number;
}

interface Place {
  worktree: string;
  checkout: string;
  home: string;
  orcaHome: string;
}

export async function historyLooksBenchmark(
  options: { orcaRefs?: number; runRecords?: number; repetitions?: number } = {},
): Promise<HistoryLooksResult> {
  const orcaRefs = options.orcaRefs ?? 2_400;
  const runRecords = options.runRecords ?? 1_000;
  const repetitions = options.repetitions ?? 30;
  const root = mkdtempSync(path.join(benchTempRoot(), 'orca-bench-history-'));
  try {
    const place = makePlace(root);
    const userRefs = 10;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: place.checkout, encoding: 'utf8' }).trim();
    for (let i = 0; i < userRefs; i += 1) git('branch', `feature-${i}`);
    git('worktree', 'add', '-q', '--detach', place.worktree);
    const without = await looks(place, repetitions);
    writeOrcaRefs(place.checkout, git('rev-parse', 'HEAD'), orcaRefs);
    writeRunRecords(place.orcaHome, runRecords);
    // As an earlier run's records are: written more than a second before anyone looks (statFingerprints.ts).
    await sleep(1_100);
    const withHistory = await looks(place, repetitions);
    const lstatFloor = statFloor(path.join(place.orcaHome, 'runs'), repetitions);
    return {
      ref_guard_ms: withHistory.guard,
      ref_guard_without_ms: without.guard,
      checkout_ms: withHistory.checkout,
      checkout_without_ms: without.checkout,
      host_files_ms: withHistory.hostFiles,
      host_files_without_ms: without.hostFiles,
      run_records_lstat_ms: lstatFloor,
      orca_refs: orcaRefs,
      user_refs: userRefs,
      run_records: runRecords,
      repetitions,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A repository with one commit, a user's home with a Claude folder, and an ORCA_HOME. */
function makePlace(root: string): Place {
  const place = {
    worktree: path.join(root, 'worktree'),
    checkout: path.join(root, 'repo'),
    home: path.join(root, 'home'),
    orcaHome: path.join(root, 'orca-home'),
  };
  mkdirSync(place.checkout);
  mkdirSync(path.join(place.home, '.claude'), { recursive: true });
  mkdirSync(path.join(place.orcaHome, 'runs'), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: place.checkout, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(place.checkout, 'README.md'), '# history\n');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@orca.invalid', 'commit', '-q', '-m', 'initial');
  return place;
}

/** The medians of each look, each opened as a job's watch opens it, with nothing changed between looks. */
async function looks(place: Place, repetitions: number): Promise<{ guard: number; checkout: number; hostFiles: number }> {
  const guard = await RefGuard.open(place.worktree);
  const hostFiles = HostFilesWatch.open({ home: place.home, userClaudeDir: path.join(place.home, '.claude'), orcaHome: place.orcaHome });
  const times = { guard: [] as number[], checkout: [] as number[], hostFiles: [] as number[] };
  const timed = async (into: number[], look: () => unknown) => {
    const started = performance.now();
    await look();
    into.push(performance.now() - started);
  };
  for (let i = 0; i < repetitions; i += 1) {
    await timed(times.guard, () => guard.restore());
    await timed(times.checkout, () => checkoutState(place.checkout));
    await timed(times.hostFiles, () => hostFiles.check());
  }
  return { guard: round(median(times.guard), 2), checkout: round(median(times.checkout), 2), hostFiles: round(median(times.hostFiles), 2) };
}

/** The median time of one lstat of every file in `dir`. */
function statFloor(dir: string, repetitions: number): number {
  const files = readdirSync(dir).map((name) => path.join(dir, name));
  const times: number[] = [];
  for (let i = 0; i < repetitions; i += 1) {
    const started = performance.now();
    for (const file of files) lstatSync(file, { bigint: true });
    times.push(performance.now() - started);
  }
  return round(median(times), 2);
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

/** ORCA_HOME's record of each earlier run (`runs/<run>.json`), written an hour ago as far as their times say. */
function writeRunRecords(orcaHome: string, count: number): void {
  const anHourAgo = Date.now() / 1000 - 3600;
  for (let run = 0; run < count; run += 1) {
    const file = path.join(orcaHome, 'runs', `r${run}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ run_id: `r${run}`, prefix: 'orca', repo: '/home/someone/project', started_at: 1_765_000_000_000 + run })}\n`,
    );
    utimesSync(file, anHourAgo, anHourAgo);
  }
}
