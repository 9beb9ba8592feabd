import { createHash } from 'node:crypto';
import { createReadStream, existsSync, realpathSync } from 'node:fs';
import { lstat, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gitAt } from '../../../core/git/git.js';
import { gitRecords } from '../../../core/git/gitRecords.js';
import { readIndexEntries } from '../../../core/git/indexEntries.js';
import { codeUnitOrder } from '../../../core/text/codeUnitOrder.js';

/**
 * The tree a check runs on, as one hash: every file git would see in the working folder, tracked
 * AND untracked (but not ignored), with its content and mode. Any change to any such file (an
 * edit, a new file, a deletion, a chmod +x) changes the hash; a change to an ignored file
 * (node_modules, build output) does not. Whether a change is staged or committed does not matter:
 * each file's entry is its git mode and blob id as its content would get them, so a worktree
 * hashed before its commit equals the committed tree.
 *
 * How, fast on large trees: the index gives the mode and blob id of every tracked file (read from
 * its file, indexEntries.ts, or by `git ls-files -s` where that cannot be done as git would);
 * `git status` (git's own stat cache, with its protection against same-second edits) names the
 * files whose working copy differs from the index, and the untracked ones;
 * only those are read and hashed here (sha1 of `blob <size>\0<content>`, as git does). Files
 * under git clean/smudge filters (LFS, eol conversion) are hashed as they are on disk.
 */
export interface TreeSnapshot {
  /** sha256 over the sorted `path\0entry` lines. */
  digest: string;
  root: string;
  /** Each file's entry: `<mode> <blob id>`, `dir` (a nested repository), or `missing`. */
  files: Map<string, string>;
}

const PARALLEL_READS = 32;
const STREAM_ABOVE_BYTES = 16 * 1024 * 1024;

/**
 * One snapshot at a time in a process: on a large repository each holds every file's listing
 * (20,000 files: several MB) while it runs, and a worker's agents reporting together made that
 * the worker's memory peak. A snapshot takes tens of milliseconds, so waiting costs little.
 */
let snapshotting: Promise<unknown> = Promise.resolve();

/**
 * `looked`: a `git status` of the whole work tree taken a moment ago by the host's watch
 * (porcelain v2, `-z`, every untracked file: worktreeWatch.ts `lastStatus`), with nothing run in
 * it since, used instead of asking git again.
 */
export function treeSnapshot(root: string, looked?: { statusV2: string }): Promise<TreeSnapshot> {
  const run = snapshotting.then(() => snapshotNow(root, looked));
  snapshotting = run.catch(() => undefined);
  return run;
}

async function snapshotNow(root: string, looked?: { statusV2: string }): Promise<TreeSnapshot> {
  // The whole repository, even when the check runs in a subfolder: it may import from anywhere.
  const top = await repositoryTop(root);
  const files = new Map<string, string>();
  const dirty = looked ? dirtyFromV2(looked.statusV2) : new Set<string>();
  // The index's entries from its file where it reads as git reads it (indexEntries.ts), else from
  // git: `files` is empty until then, so what a read that fails half-way handed over is dropped whole.
  const conflicted: string[] = [];
  const indexed = readIndexEntries(top, ({ path: rel, entry, stage }) => {
    // A conflicted file has several stages: what counts is what is on disk.
    if (stage === 0) files.set(rel, entry);
    else conflicted.push(rel);
  });
  if (indexed) for (const rel of conflicted) dirty.add(rel);
  else files.clear();
  // The git processes still needed, asked at once (the status only when the watch's look is not at
  // hand): this snapshot is on the way to every check and gate. Each is read record by record as
  // git writes it (gitRecords.ts), never held whole: a path kept from a whole listing would keep all of it.
  let renameSource = false;
  await Promise.all([
    // `<mode> <blob> <stage>\t<path>`, read by position: no regex captures and joined entry per file.
    indexed
      ? undefined
      : gitRecords(top, ['--no-optional-locks', 'ls-files', '-z', '--stage'], (line) => {
          const tab = line.indexOf('\t');
          const stageAt = line.lastIndexOf(' ', tab);
          if (tab < 0 || stageAt <= 0 || tab === line.length - 1) return;
          const rel = line.slice(tab + 1);
          if (line.slice(stageAt + 1, tab) !== '0') dirty.add(rel);
          else files.set(rel, line.slice(0, stageAt));
        }),
    looked
      ? undefined
      : gitRecords(
          top,
          ['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=all'],
          (entry) => {
            // A rename's old path follows as its own field: the new path is the one on disk.
            if (renameSource) {
              renameSource = false;
              return;
            }
            if (entry.length < 4) return;
            const [code, rel] = [entry.slice(0, 2), entry.slice(3)];
            if (code[0] === 'R' || code[0] === 'C') renameSource = true;
            if (code === '??' || code[1] !== ' ') dirty.add(rel);
          },
        ),
  ]);
  const paths = [...dirty];
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const rel = paths[next++]!;
      files.set(rel, await entryOf(path.join(top, rel.replace(/\/$/, ''))));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, paths.length) }, worker));
  const sorted = [...files.keys()].sort();
  const hash = createHash('sha256');
  const inOrder = new Map<string, string>();
  for (const rel of sorted) {
    const entry = files.get(rel)!;
    hash.update(`${rel}\0${entry}\n`);
    inOrder.set(rel, entry);
  }
  return { digest: hash.digest('hex'), root: top, files: inOrder };
}

/** The untracked files a `git status --porcelain=v2 -z --untracked-files=all` lists (its `?` records). */
export function untrackedInV2(statusOut: string): string[] {
  return statusOut
    .split('\0')
    .filter((record) => record.startsWith('? '))
    .map((record) => record.slice(2));
}

/**
 * The same set from `status --porcelain=v2 -z` (the watch's, which lists submodules and ignored
 * entries too): a changed entry whose work-tree column is not `.`, and every untracked one;
 * submodules left out, as `--ignore-submodules=all` leaves them out above; conflicted entries are
 * the index listing's.
 */
function dirtyFromV2(statusOut: string): Set<string> {
  const dirty = new Set<string>();
  const records = statusOut.split('\0');
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index]!;
    if (record.startsWith('? ')) dirty.add(record.slice(2));
    else if (record.startsWith('1 ') || record.startsWith('2 ')) {
      const fields = record.split(' ');
      // `2`: a rename, its old path the next record; the new path is the one on disk.
      const count = record.startsWith('2 ') ? 9 : 8;
      if (record.startsWith('2 ')) index += 1;
      if (fields[2]!.startsWith('S') || fields[1]![1] === '.') continue;
      dirty.add(fields.slice(count).join(' '));
    }
  }
  return dirty;
}

const tops = new Map<string, string>();

/** The work tree a folder is in, asked of git once per folder and process: a folder does not change work tree. */
async function repositoryTop(root: string): Promise<string> {
  const known = tops.get(root);
  if (known !== undefined) return known;
  // A folder holding `.git` (a repository, or a worktree's link file) is its own top, as git says.
  if (existsSync(path.join(root, '.git')) && !process.env.GIT_WORK_TREE && !process.env.GIT_DIR) {
    const top = realpathSync(root);
    tops.set(root, top);
    return top;
  }
  let top = '';
  try {
    top = (await gitAt(root).raw(['rev-parse', '--show-toplevel'])).trim();
  } catch (error) {
    throw new Error(`cannot hash the tree at ${root}: ${error instanceof Error ? error.message.trim() : String(error)}`);
  }
  if (top === '') throw new Error(`cannot hash the tree at ${root}: it is not inside a git work tree`);
  tops.set(root, top);
  return top;
}

/** A file as git would record it: mode and blob id. */
async function entryOf(file: string): Promise<string> {
  let stat;
  try {
    stat = await lstat(file);
  } catch (error) {
    // Tracked but deleted from the working folder: a change like any other.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  if (stat.isSymbolicLink()) return `120000 ${blobId(Buffer.from(await readlink(file)))}`;
  // A nested repository: its own history is not this tree's content.
  if (stat.isDirectory()) return 'dir';
  const mode = (stat.mode & 0o111) !== 0 ? '100755' : '100644';
  return `${mode} ${stat.size > STREAM_ABOVE_BYTES ? await streamedBlobId(file, stat.size) : blobId(await readFile(file))}`;
}

function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** A big file's blob id without holding it in memory. */
function streamedBlobId(file: string, size: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha1').update(`blob ${size}\0`);
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** Writes the snapshot's listing to `file` (one `entry<TAB>path` line each), for naming changes later. */
export async function saveManifest(snapshot: TreeSnapshot, file: string): Promise<void> {
  const lines = [...snapshot.files].map(([rel, entry]) => `${entry}\t${rel}`);
  await writeFile(file, `${lines.join('\n')}\n`);
}

export async function loadManifest(file: string): Promise<Map<string, string>> {
  const text = await readFile(file, 'utf8');
  const files = new Map<string, string>();
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) files.set(line.slice(tab + 1), line.slice(0, tab));
  }
  return files;
}

export interface TreeChange {
  path: string;
  change: 'added' | 'removed' | 'changed';
}

/** What differs between two listings, by path. */
export function treeChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): TreeChange[] {
  const changes: TreeChange[] = [];
  for (const [rel, entry] of after) {
    const old = before.get(rel);
    if (old === undefined) changes.push({ path: rel, change: entry === 'missing' ? 'removed' : 'added' });
    else if (old !== entry) changes.push({ path: rel, change: entry === 'missing' ? 'removed' : old === 'missing' ? 'added' : 'changed' });
  }
  for (const [rel, entry] of before) {
    if (!after.has(rel) && entry !== 'missing') changes.push({ path: rel, change: 'removed' });
  }
  return changes.sort((a, b) => codeUnitOrder(a.path, b.path));
}

/** `src/a.ts (changed), notes.txt (added)`, at most `max` named. */
export function describeTreeChanges(changes: readonly TreeChange[], max = 5): string {
  const named = changes.slice(0, max).map((change) => `${change.path} (${change.change})`);
  const more = changes.length > max ? ` and ${changes.length - max} more` : '';
  return `${named.join(', ')}${more}`;
}
