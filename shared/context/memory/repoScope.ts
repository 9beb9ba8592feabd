import path from 'node:path';
import { runGit } from '../../core/git/git.js';

/**
 * Which project a repository is, for memory: cards of scope `project:<id>` belong to it and to
 * no other (seed 001, section 04: scope keeps projects from polluting each other). The id is
 * the same for every clone and worktree of one repository:
 *   - its `origin` remote, without scheme, user and `.git`: `github.com/acme/web`;
 *   - without one, the path of its main worktree: `/home/me/shop`.
 */
export interface RepoIdentity {
  /** `project:<id>`. */
  scope: string;
  /** The main worktree's root (where Claude Code keys its memory folder, claudeCodeMemory.ts). */
  mainRoot: string;
}

/** Asked of git without blocking: `orca run` and `orca agent` read it while they reach Redis, before their job is queued. */
export async function repoIdentity(repoDir: string): Promise<RepoIdentity> {
  const [mainRoot, remote] = await Promise.all([mainWorktreeRoot(repoDir), git(repoDir, ['remote', 'get-url', 'origin'])]);
  const id = (remote && remoteId(remote)) || mainRoot;
  return { scope: `project:${id}`, mainRoot };
}

/** `git@github.com:acme/web.git`, `https://user@github.com/acme/web`, `ssh://git@host:22/acme/web.git` → host/path. */
export function remoteId(url: string): string | undefined {
  const trimmed = url
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    const parsed = URL.canParse(trimmed) ? new URL(trimmed) : undefined;
    if (!parsed || parsed.protocol === 'file:') return undefined;
    return `${parsed.hostname.toLowerCase()}${parsed.pathname}`.replace(/\/+$/, '');
  }
  const scp = /^(?:[^@\s/]+@)?([^:\s/]+):\/?(.+)$/.exec(trimmed);
  // Anything else is a path on this host, which says nothing about which project this is.
  return scp ? `${scp[1]!.toLowerCase()}/${scp[2]}` : undefined;
}

/** The folder name a scope's cards live in: every character but letters and digits a dash. */
export function scopeFolderName(scope: string): string {
  return scope.replace(/^project:/, '').replace(/[^A-Za-z0-9]/g, '-');
}

/** The root of the repository's main worktree, for any of its worktrees or subfolders. */
export async function mainWorktreeRoot(repoDir: string): Promise<string> {
  const common = await git(repoDir, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (!common) throw new Error(`${repoDir} is not a git repository`);
  // A bare repository's common dir is the repository itself.
  return path.basename(common) === '.git' ? path.dirname(common) : common;
}

async function git(cwd: string, args: string[]): Promise<string | undefined> {
  // No origin remote (or not a repository, or no such folder): the caller decides what that means.
  const done = await runGit(cwd, args).catch(() => undefined);
  return (done?.code === 0 && done.stdout.trim()) || undefined;
}
