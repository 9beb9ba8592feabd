import { ENV_ORCA, type WorktreeEnv, writeEnvOrca } from './envOrcaFile.js';
import { linkDependencies } from './linkDependencies.js';
import { copyWorktreeIncludes } from './worktreeInclude.js';
import { recordStartState, type StartEntry, startEntry } from './worktreeStartState.js';

export interface StartFilesSpec {
  /** The repository the worktree belongs to (its git folder gets the `.env.orca` exclude rule). */
  repo: string;
  /** The user's checkout: where `.worktreeinclude` and the files it names, and the linked folders, are. Unset for a clone of a remote. */
  checkout?: string;
  dir: string;
  symlinkDirectories: readonly string[];
  /** Unset: no `.env.orca` (a worktree no job owns). */
  env?: WorktreeEnv;
  /** The commit the worktree's index is exactly (made, or checked clean, at it): what it tracks is read from the commit. */
  commit?: string;
}

/**
 * What a new writing worktree gets from orca before anyone works in it: the folders linked in
 * from the checkout, the ignored files `.worktreeinclude` names copied from it, and `.env.orca`;
 * all recorded as the worktree's start state (./worktreeStartState.ts). Returns the entries.
 */
export async function placeStartFiles(spec: StartFilesSpec): Promise<StartEntry[]> {
  const { dir } = spec;
  const entries: StartEntry[] = [];
  // A clone of a remote links what the clone has (nothing, as a rule): there is no user's checkout on this host.
  for (const name of await linkDependencies(
    spec.checkout ?? spec.repo,
    dir,
    spec.symlinkDirectories,
    spec.commit ? { repo: spec.repo, commit: spec.commit } : undefined,
  ))
    entries.push(startEntry(dir, name, 'linked'));
  if (spec.checkout) {
    for (const file of await copyWorktreeIncludes(spec.checkout, dir, spec.symlinkDirectories)) {
      entries.push(startEntry(dir, file, 'included'));
    }
  }
  if (spec.env) {
    await writeEnvOrca(spec.repo, dir, spec.env);
    entries.push(startEntry(dir, ENV_ORCA, 'env'));
  }
  recordStartState(dir, entries);
  return entries;
}

/**
 * Links the repository's installed dependencies into a worktree no job owns (the integration
 * worktree, before its first merge) and records them as its start state, so no commit takes them.
 */
export async function linkStartDependencies(repo: string, dir: string): Promise<void> {
  const linked = await linkDependencies(repo, dir);
  recordStartState(
    dir,
    linked.map((name) => startEntry(dir, name, 'linked')),
  );
}
