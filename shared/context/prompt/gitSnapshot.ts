import { gitAt } from '../../core/git/git.js';

/**
 * The branch, HEAD and `git status` of the working folder at one moment: once at session start
 * for the dynamic part of the prompt, then each turn to see whether it changed since.
 */
export type GitSnapshot = { kind: 'repo'; branch: string; head: string; status: string[] } | { kind: 'none'; reason: string };

/** At most this many status lines are shown; the rest are counted. */
export const MAX_STATUS_LINES = 30;

/** Characters of the HEAD commit shown: enough to name it in any repository. */
const HEAD_CHARS = 12;

/**
 * One `git status` (porcelain v2, which names the HEAD commit too) per snapshot: it is taken
 * before every model call, and each git process costs a worker a fork.
 */
export async function readGitSnapshot(dir: string): Promise<GitSnapshot> {
  let out: string;
  try {
    out = await gitAt(dir).raw(['status', '--porcelain=v2', '--branch', '--untracked-files=normal']);
  } catch (error) {
    const message = error instanceof Error ? error.message.trim() : String(error);
    if (/not a git repository/i.test(message)) return { kind: 'none', reason: 'not a git repository' };
    return { kind: 'none', reason: `git status failed: ${message.split('\n')[0]}` };
  }
  return snapshotOfLines(out.split('\n').filter((line) => line !== ''));
}

/**
 * The snapshot from a `git status` the host's watch took after the last call that may write
 * (worktreeWatch.ts `lastStatus`: porcelain v2 with `--branch`, `-z`, every untracked file and
 * the ignored ones), instead of asking git again. Its lists differ from readGitSnapshot's in two
 * ways, evened out here: ignored entries are dropped, and an untracked folder that `start` showed
 * whole (`?? build/`) is shown whole again; other untracked files are named one by one (git would
 * show a new untracked folder as one line: the note is only shown when something changed, and
 * then the files are what the agent wants to see).
 */
export function snapshotFromWatchStatus(out: string, start: GitSnapshot): GitSnapshot {
  const records = out.split('\0');
  const lines: string[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index]!;
    if (record === '' || record.startsWith('! ')) continue;
    // With -z a rename's old path is a record of its own; without, it follows a tab.
    if (record.startsWith('2 ')) lines.push(`${record}\t${records[++index] ?? ''}`);
    else lines.push(record);
  }
  const snapshot = snapshotOfLines(lines);
  if (snapshot.kind !== 'repo') return snapshot;
  const wholeFolders = start.kind === 'repo' ? start.status.filter((line) => line.startsWith('?? ') && line.endsWith('/')) : [];
  const folded = snapshot.status.map((line) =>
    line.startsWith('?? ') ? (wholeFolders.find((folder) => line.startsWith(folder)) ?? line) : line,
  );
  return { ...snapshot, status: [...new Set(folded)] };
}

function snapshotOfLines(lines: string[]): GitSnapshot {
  const header = (name: string) => lines.find((line) => line.startsWith(`# branch.${name} `))?.slice(`# branch.${name} `.length);
  const oid = header('oid') ?? '(initial)';
  const named = header('head') ?? '(detached)';
  return {
    kind: 'repo',
    branch: named === '(detached)' ? 'HEAD (no branch)' : named,
    head: oid === '(initial)' ? '(no commits yet)' : oid.slice(0, HEAD_CHARS),
    status: statusLines(lines),
  };
}

/**
 * The snapshot of a worktree orca checked out a moment ago at `start` on `branch`, with only
 * `added` put in it since (links to the repository's dependencies): the same as readGitSnapshot,
 * without the status of the whole tree, an lstat of every file, which a large repository makes the
 * slowest step before an agent's first request. Only the added paths are asked about.
 */
export async function readFreshWorktreeSnapshot(dir: string, branch: string, start: string, added: string[]): Promise<GitSnapshot> {
  const out = added.length === 0 ? '' : await gitAt(dir).raw(['status', '--porcelain=v2', '--untracked-files=normal', '--', ...added]);
  return { kind: 'repo', branch, head: start.slice(0, HEAD_CHARS), status: statusLines(out.split('\n')) };
}

/** Porcelain v2 entries as the short `XY path` lines people know from `git status --short`. */
function statusLines(lines: string[]): string[] {
  const xy = (code: string) => code.replace(/\./g, ' ');
  const fields = (line: string, count: number) => {
    const parts = line.split(' ');
    return [...parts.slice(0, count - 1), parts.slice(count - 1).join(' ')];
  };
  return lines.flatMap((line) => {
    if (line.startsWith('? ')) return [`?? ${line.slice(2)}`];
    if (line.startsWith('! ')) return [`!! ${line.slice(2)}`];
    if (line.startsWith('1 ')) {
      const parts = fields(line, 9);
      return [`${xy(parts[1]!)} ${parts[8]}`];
    }
    if (line.startsWith('2 ')) {
      const parts = fields(line, 10);
      const [to, from] = parts[9]!.split('\t');
      return [`${xy(parts[1]!)} ${from} -> ${to}`];
    }
    if (line.startsWith('u ')) {
      const parts = fields(line, 11);
      return [`${xy(parts[1]!)} ${parts[10]}`];
    }
    return [];
  });
}

export function describeStatus(status: string[]): string {
  if (status.length === 0) return '(clean)';
  const shown = status.slice(0, MAX_STATUS_LINES).join('\n');
  const more = status.length - MAX_STATUS_LINES;
  return more > 0 ? `${shown}\n… and ${more} more` : shown;
}

export function sameStatus(a: GitSnapshot, b: GitSnapshot): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'none' || b.kind === 'none') return true;
  return a.branch === b.branch && a.head === b.head && a.status.join('\n') === b.status.join('\n');
}
