import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type StructuredPatchHunk, structuredPatch } from 'diff';
import { ByCommit } from '../../../core/git/byCommit.js';
import { gitAt } from '../../../core/git/git.js';
import { pathsInV2 } from '../../../core/git/statusV2.js';
import { TestFileMatcher, testGlobsInConfig } from './testFiles.js';

/**
 * The changes to test files and runner configs between two states of a repository: `base` (a
 * commit) and `head` (a commit, or the working folder when absent, untracked files included).
 * Renames are followed (git's -M), so a moved test file is compared with its old self. Each
 * change carries both contents and the unified-diff hunks (the `diff` package, 3 lines of context).
 */
export interface FileChange {
  path: string;
  /** The path at base, when the file was renamed. */
  oldPath?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  before: string;
  after: string;
  hunks: StructuredPatchHunk[];
}

export interface TestChanges {
  tests: FileChange[];
  configs: FileChange[];
}

/** Top-level names of a commit's tree: the same in every worktree and clone that has it, and a wave of jobs shares its base. */
const topLevel = new ByCommit<string>(32);

function topLevelNames(repo: string, base: string): Promise<string> {
  return topLevel.get(base, () => gitAt(repo).raw(['ls-tree', '--name-only', base]));
}

export async function testChanges(
  repo: string,
  base: string,
  head?: string,
  /** For the working folder: its untracked files as a look a moment ago listed them (the host's watch), not asked of git again. */
  untracked?: readonly string[],
  /** For the working folder: that look's own `git status --porcelain=v2 --branch -z` (noTestPathIn). */
  status?: string,
): Promise<TestChanges> {
  if (head === undefined && status !== undefined && (await noTestPathIn(repo, base, status))) return { tests: [], configs: [] };
  const git = gitAt(repo);
  const range = head === undefined ? [base] : [base, head];
  // Independent reads, asked at once: a worker's Report waits on them.
  const untrackedNow = async (): Promise<readonly string[]> =>
    head !== undefined
      ? []
      : (untracked ?? (await git.raw(['ls-files', '-z', '--others', '--exclude-standard'])).split('\0').filter(Boolean));
  const [raw, added, rootConfigs] = await Promise.all([
    git.raw(['diff', '--name-status', '-z', '-M', '--no-color', ...range, '--']),
    untrackedNow(),
    topLevelNames(repo, base),
  ]);
  const entries = parseNameStatus(raw);
  for (const file of added) entries.push({ status: 'added', path: file });

  const matcher = new TestFileMatcher(await configuredTestGlobs(repo, base, head, entries, rootConfigs.split('\n').filter(Boolean)));
  const contentAt = async (ref: string | undefined, file: string): Promise<string> => {
    if (ref === undefined) return readFile(path.join(repo, file), 'utf8');
    return git.raw(['show', `${ref}:${file}`]);
  };
  const changes: TestChanges = { tests: [], configs: [] };
  for (const entry of entries) {
    const isTest = matcher.isTest(entry.path) || (entry.oldPath !== undefined && matcher.isTest(entry.oldPath));
    const isConfig = matcher.isRunnerConfig(entry.path);
    if (!isTest && !isConfig) continue;
    const before = entry.status === 'added' ? '' : await contentAt(base, entry.oldPath ?? entry.path);
    const after = entry.status === 'deleted' ? '' : await contentAt(head, entry.path);
    const patch = structuredPatch(entry.oldPath ?? entry.path, entry.path, before, after, undefined, undefined, { context: 3 });
    const change: FileChange = { ...entry, before, after, hunks: patch.hunks };
    // A test file renamed to a name that is no test any more is gone as a test: judged as deleted.
    if (entry.status === 'renamed' && !matcher.isTest(entry.path)) change.status = 'deleted';
    (isTest ? changes.tests : changes.configs).push(change);
  }
  return changes;
}

/** Test globs of the runner configs at a commit's root: the same in every clone that has the commit. */
const rootTestGlobs = new ByCommit<string[]>(32);

/**
 * Whether the working folder's status a moment ago (the host's watch's look, its HEAD at `base`)
 * names no path that could be a test file or a runner config: then the diff with `base` holds
 * nothing for the audit, and git is not asked for it (a `git diff` of the working folder stats
 * every tracked file). A rename is no exception: the status names both its paths, or its old one
 * as deleted and its new one as untracked. The test globs are the root configs' at `base`, as the
 * diff's would be where no config changed.
 */
async function noTestPathIn(repo: string, base: string, status: string): Promise<boolean> {
  const { head, paths } = pathsInV2(status);
  if (head !== base) return false;
  const probe = new TestFileMatcher();
  if (paths.some((file) => probe.isRunnerConfig(file))) return false;
  const globs = await rootTestGlobs.get(base, async () => {
    const rootConfigs = (await topLevelNames(repo, base)).split('\n').filter(Boolean);
    return configuredTestGlobs(repo, base, base, [], rootConfigs);
  });
  const matcher = new TestFileMatcher(globs);
  return !paths.some((file) => matcher.isTest(file));
}

/** A hunk as unified-diff text: `@@ -a,b +c,d @@` and its lines. */
export function hunkText(hunk: StructuredPatchHunk): string {
  return [`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines].join('\n');
}

interface NameStatus {
  status: FileChange['status'];
  path: string;
  oldPath?: string;
}

function parseNameStatus(raw: string): NameStatus[] {
  const fields = raw.split('\0');
  const entries: NameStatus[] = [];
  for (let index = 0; index < fields.length; ) {
    const code = fields[index++] ?? '';
    if (code === '') continue;
    if (code.startsWith('R') || code.startsWith('C')) {
      const oldPath = fields[index++]!;
      const newPath = fields[index++]!;
      entries.push(code.startsWith('R') ? { status: 'renamed', path: newPath, oldPath } : { status: 'added', path: newPath });
    } else {
      const file = fields[index++]!;
      entries.push({ status: code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified', path: file });
    }
  }
  return entries;
}

/** Test globs named by the runner configs the diff touches or the repository has at its root, at both ends. */
async function configuredTestGlobs(
  repo: string,
  base: string,
  head: string | undefined,
  entries: readonly NameStatus[],
  rootConfigs: string[],
): Promise<string[]> {
  const git = gitAt(repo);
  const candidates = new Set([...rootConfigs, ...entries.map((entry) => entry.path)]);
  const probe = new TestFileMatcher();
  const globs = new Set<string>();
  for (const file of candidates) {
    if (!probe.isRunnerConfig(file)) continue;
    for (const ref of [base, head]) {
      let text: string;
      try {
        text = ref === undefined ? await readFile(path.join(repo, file), 'utf8') : await git.raw(['show', `${ref}:${file}`]);
      } catch {
        continue; // the config does not exist at this end
      }
      for (const glob of testGlobsInConfig(file, text)) globs.add(glob);
    }
  }
  return [...globs];
}
