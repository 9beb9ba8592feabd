import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { OrcaHome } from '../runtime/orcaHome.js';
import { processAlive } from '../runtime/processAlive.js';
import { gitAt } from './git.js';
import { BUSY, HOST, listNames, readState, removeEmpty, STATE_FILE } from './poolFolder.js';
import { commonGitDir, withRepoLock } from './repoLock.js';
import { listWorktrees, removeWorktreeLocked } from './worktree.js';

// A run's pools removed when it ends (coordinator/run/handOver.ts) or by `orca clean`.

/**
 * Closes and removes every pool of a run: those under this ORCA_HOME, and any other on this host
 * whose worktrees `repos` list (a worker with another ORCA_HOME). A worktree another live process
 * is still filling is left to it: it sees the pool closed and removes it. Returns the pool folders.
 * `listed`: the worktree folders of a repository its caller listed moments before (the hand-over),
 * not asked of git again: a pool started after that listing would be missed by a new one just the
 * same (orca clean removes what a run left).
 */
export async function removeRunPools(
  home: OrcaHome,
  runId: string,
  repos: string[] = [],
  listed: ReadonlyMap<string, readonly string[]> = new Map(),
): Promise<string[]> {
  const folders = new Set(listNames(home.runPools(runId)).map((key) => path.join(home.runPools(runId), key)));
  for (const repo of repos) {
    if (!existsSync(repo)) continue;
    for (const dir of listed.get(repo) ?? (await listWorktrees(repo)).map((worktree) => worktree.dir)) {
      const folder = path.dirname(dir);
      if (path.basename(path.dirname(folder)) === runId && path.basename(path.dirname(path.dirname(folder))) === 'pool')
        folders.add(folder);
    }
  }
  for (const folder of folders) await closePool(folder);
  removeEmpty(home.runPools(runId));
  return [...folders];
}

/** Every pool under a run's folder of pools (`pool/<run>`), closed and removed (`orca clean`). */
export async function removePoolsUnder(root: string): Promise<void> {
  for (const key of listNames(root)) await closePool(path.join(root, key));
  removeEmpty(root);
}

async function closePool(folder: string): Promise<void> {
  const repo = readState(folder)?.repo ?? (await repoOfEntries(folder));
  if (!repo || !existsSync(repo)) {
    rmSync(folder, { recursive: true, force: true });
    return;
  }
  await withRepoLock(repo, async () => {
    rmSync(path.join(folder, STATE_FILE), { force: true });
    for (const name of listNames(folder)) {
      const busy = BUSY.exec(name);
      if (busy && busy[2] === HOST && processAlive(Number(busy[3]))) continue;
      await removeWorktreeLocked(repo, path.join(folder, name));
    }
    await gitAt(repo).raw(['worktree', 'prune']);
    removeEmpty(folder);
  });
}

/** The repository of a pool whose state file is gone, from any of its worktrees. */
async function repoOfEntries(folder: string): Promise<string | undefined> {
  for (const name of listNames(folder)) {
    try {
      return await commonGitDir(path.join(folder, name));
    } catch {
      // Not a worktree (any more): the next one may say.
    }
  }
  return undefined;
}
