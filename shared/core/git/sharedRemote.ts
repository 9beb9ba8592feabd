import { existsSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from './git.js';
import { sharedRunRefs } from './orcaBranch.js';

/**
 * The remote a run is shared over (`--share`, `ORCA_SHARE`): a URL (`ssh://`, `https://`,
 * `git://`, `file://`), an scp-like address (`host:path`), or a path to a bare repository, made
 * absolute here (a relative path means nothing to a worker). Credentials are the host's own (ssh
 * agent, git credential helpers): nothing of them is in the URL orca sends in jobs unless the
 * user wrote it there.
 */
export function shareUrl(given: string, cwd = process.cwd()): string {
  const url = given.trim();
  if (url === '') throw new Error('--share needs a git remote: a URL (ssh://, https://, git://) or a path to a bare repository');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  // `host:path` (scp-like), unless the part before the colon holds a slash (then it is a path).
  if (/^[^/]+:/.test(url) && !existsSync(path.resolve(cwd, url))) return url;
  return path.resolve(cwd, url);
}

/** Fails with one line naming the remote when it cannot be read from here (a wrong URL, no access, nothing listening). */
export async function checkShared(url: string, cwd: string): Promise<void> {
  try {
    await gitAt(cwd).raw(['ls-remote', '--quiet', url, 'HEAD']);
  } catch (error) {
    const detail = error instanceof Error ? error.message.trim().split('\n').pop() : String(error);
    throw new Error(`the shared remote ${url} cannot be read from here (${detail}): check the URL, and that this host may fetch from it`);
  }
}

/** The refs one run has on a shared remote (`refs/orca/<run>/…`): what `orca clean` deletes there. */
export async function sharedRunRefsOn(url: string, runId: string, cwd: string): Promise<string[]> {
  const out = await gitAt(cwd).raw(['ls-remote', url, sharedRunRefs(runId)]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t')[1]!)
    .filter(Boolean);
}

/** Deletes refs on a shared remote, in one push. */
export async function deleteSharedRefs(url: string, refs: readonly string[], cwd: string): Promise<void> {
  if (refs.length === 0) return;
  await gitAt(cwd).raw(['push', '--quiet', url, ...refs.map((ref) => `:${ref}`)]);
}
