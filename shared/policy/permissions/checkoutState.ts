import { createHash } from 'node:crypto';
import path from 'node:path';
import { ORCA_BRANCHES } from '../../core/git/orcaBranch.js';
import { RefFiles } from '../../core/git/refFiles.js';
import { type EntryState, readEntry } from './fileSnapshot.js';
import { watchGit } from './worktreeChanges.js';

/** The user's checkout as keys and fingerprints (checkoutState). */
export type CheckoutState = Map<string, string>;

/**
 * The user's checkout as a session's watch starts from: one look, begun by whoever needs it first
 * and the same answer to every caller. It must be taken before anything of the session that could
 * write the checkout runs (a tool call, a hook, an MCP server, an external agent): each of those
 * waits for `taken()` first. Until one runs, the look need not be on the way to the agent's
 * first request, where it would compete for the CPU with the take of the worktree.
 */
export class CheckoutBaseline {
  private pending: Promise<CheckoutState> | undefined;

  constructor(readonly checkout: string) {}

  /** Begins the look if nobody has yet, and returns it. */
  taken(): Promise<CheckoutState> {
    if (this.pending === undefined) {
      this.pending = checkoutState(this.checkout);
      // Begun early, maybe read late: its failure is the reader's, not an unhandled rejection meanwhile.
      this.pending.catch(() => undefined);
    }
    return this.pending;
  }
}

/**
 * The user's checkout as keys and fingerprints: each path git status lists (with its bytes'
 * fingerprint), its HEAD, and its branches and tags (orca's own `orca/` branches and refs move
 * during a run and are left out). One git process: HEAD and the refs are read from their files
 * (refFiles.ts) where the repository keeps them in files, else asked of git.
 */
export async function checkoutState(checkout: string): Promise<CheckoutState> {
  const state: CheckoutState = new Map();
  const files = RefFiles.open(checkout);
  const [status, listed, head] = await Promise.all([
    watchGit(checkout, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames']),
    files ? undefined : watchGit(checkout, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/tags']),
    files ? undefined : watchGit(checkout, ['rev-parse', '--symbolic-full-name', 'HEAD']).catch(() => 'unborn'),
  ]);
  for (const entry of status.split('\0').filter(Boolean)) {
    const file = entry.slice(3);
    const now = readEntry(path.join(checkout, file));
    state.set(file, `${entry.slice(0, 2)} ${fingerprint(now)}`);
  }
  const refs = files
    ? files.list(['refs/heads/', 'refs/tags/'], [ORCA_BRANCHES])
    : new Map(
        listed!
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split(' ') as [string, string]),
      );
  for (const [name, sha] of refs) {
    if (name.startsWith(ORCA_BRANCHES)) continue;
    state.set(`ref ${name}`, sha);
  }
  // From the file, a detached HEAD is its commit: one that moves is seen too.
  const written = files?.head();
  state.set('HEAD', written ? (written.kind === 'symbolic' ? written.target : written.oid) : head!.trim());
  return state;
}

function fingerprint(state: EntryState): string {
  if (state.kind === 'file') return `file ${state.mode} ${createHash('sha256').update(state.bytes).digest('hex')}`;
  if (state.kind === 'link') return `link ${state.target}`;
  return state.kind;
}
