import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { globSync } from 'tinyglobby';
import { isInside } from '../../core/files/workspace.js';
import { gitAt } from '../../core/git/git.js';
import type { ConfigFile, TrustedConfig } from '../../infra/queue/trustedConfig.js';
import { importTargets, MAX_IMPORT_DEPTH, MAX_INSTRUCTION_BYTES } from '../instructions/instructionImports.js';
import { PROJECT_FILES } from '../instructions/projectInstructions.js';

/**
 * The repository's files that configure its agents, read at the run's base commit. A new kind of
 * file (`.mcp.json` is here for the MCP servers) is one more pattern: every reader of the trusted
 * configuration finds it with `projectConfigFile`.
 */
export const PROJECT_CONFIG_FILES = [
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.claude/agents/**/*.md',
  '.claude/skills/*/SKILL.md',
  '.claude/rules/**/*.md',
  '.mcp.json',
  ...PROJECT_FILES,
] as const;

/** The user's files under their home: instructions (and what they import), skills and rules. */
export const HOME_CONFIG_FILES = ['.claude/CLAUDE.md', '.claude/skills/*/SKILL.md', '.claude/rules/**/*.md'] as const;

/**
 * The user's own overrides for the project, gitignored by design (Claude Code's local scope): read
 * from the user's checkout on disk, never from a worktree. They are the user's, like ~/.claude.
 */
export const LOCAL_CONFIG_FILES = ['.claude/settings.local.json', 'CLAUDE.local.md'] as const;

/** Past this in all, further files are left out (with a problem each): the configuration travels in every job. */
export const MAX_CONFIG_BYTES = 2 * 1024 * 1024;

export interface ReadTrustedConfigOptions {
  /** The user's repository and the run's base commit; unset for a remote repository (only the user's files then). */
  project?: { repo: string; commit: string };
  /** The user's Claude folder (`userClaudeDir`). */
  userClaudeDir: string;
  /** The user's home (`~`). */
  homeDir: string;
}

/**
 * Reads the trusted configuration: the repository's PROJECT_CONFIG_FILES from git objects at the
 * base commit (whatever the checkout holds now is not looked at), the files their instructions
 * import from there, the user's own settings, instructions, skills and rules from disk, and the
 * user's local files (LOCAL_CONFIG_FILES) from their checkout.
 */
export async function readTrustedConfig(options: ReadTrustedConfigOptions): Promise<TrustedConfig> {
  const budget = new Budget();
  const homeDir = path.resolve(options.homeDir);
  const home = readHomeFiles(homeDir, budget);
  const userDir = path.resolve(options.userClaudeDir);
  const user: ConfigFile[] = [];
  const settingsText = readText(path.join(userDir, 'settings.json'), path.join(userDir, 'settings.json'), budget);
  if (settingsText !== undefined) user.push({ path: 'settings.json', text: settingsText });
  const project = options.project ? await readProjectFiles(options.project.repo, options.project.commit, homeDir, home, budget) : [];
  return {
    commit: options.project?.commit,
    project,
    user: { dir: userDir, files: user },
    home: { dir: homeDir, files: home },
    local: options.project ? readLocalFiles(options.project.repo, budget) : [],
    problems: budget.problems,
  };
}

class Budget {
  used = 0;
  readonly problems: string[] = [];

  /** Whether a file of `bytes` may go in; when not, the problem names it. */
  admit(label: string, text: string): boolean {
    const bytes = Buffer.byteLength(text);
    if (text.includes('\0')) return this.refuse(`${label}: left out, it is not a text file`);
    if (bytes > MAX_INSTRUCTION_BYTES)
      return this.refuse(`${label}: left out, it is ${bytes} bytes, over the ${MAX_INSTRUCTION_BYTES}-byte limit`);
    if (this.used + bytes > MAX_CONFIG_BYTES)
      return this.refuse(`${label}: left out, the configuration would pass ${MAX_CONFIG_BYTES} bytes`);
    this.used += bytes;
    return true;
  }

  private refuse(problem: string): false {
    this.problems.push(problem);
    return false;
  }
}

/** A file's text from disk; undefined when it is missing (the usual case), or too large or binary (a problem). */
function readText(file: string, label: string, budget: Budget): string | undefined {
  let text: string;
  try {
    if (!statSync(file).isFile()) return undefined;
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    budget.problems.push(`${label}: left out, it cannot be read (${(error as Error).message})`);
    return undefined;
  }
  return budget.admit(label, text) ? text : undefined;
}

function readLocalFiles(repo: string, budget: Budget): ConfigFile[] {
  const files: ConfigFile[] = [];
  for (const rel of LOCAL_CONFIG_FILES) {
    const text = readText(path.join(repo, rel), path.join(repo, rel), budget);
    if (text !== undefined) files.push({ path: rel, text });
  }
  return files;
}

function readHomeFiles(homeDir: string, budget: Budget): ConfigFile[] {
  const files: ConfigFile[] = [];
  const found = globSync([...HOME_CONFIG_FILES], { cwd: homeDir, dot: true, onlyFiles: true }).sort();
  for (const rel of found) {
    const text = readText(path.join(homeDir, rel), path.join(homeDir, rel), budget);
    if (text !== undefined) files.push({ path: rel, text });
  }
  // The user's own instructions may import from anywhere in their home (not beyond: not sent).
  const queue = files.filter((file) => file.path === '.claude/CLAUDE.md').map((file) => ({ file, depth: 0 }));
  for (let next = queue.shift(); next; next = queue.shift()) {
    if (next.depth >= MAX_IMPORT_DEPTH) continue;
    const dir = path.dirname(path.join(homeDir, next.file.path));
    for (const target of importTargets(next.file.text, dir, homeDir)) {
      const rel = path.relative(homeDir, target).split(path.sep).join('/');
      if (files.some((file) => file.path === rel)) continue;
      if (!isInside(target, homeDir)) {
        if (isFile(target)) budget.problems.push(`${target}: left out, imported by ~/${next.file.path} from outside the home folder`);
        continue;
      }
      const text = readText(target, target, budget);
      if (text === undefined) continue;
      const file = { path: rel, text };
      files.push(file);
      queue.push({ file, depth: next.depth + 1 });
    }
  }
  return files;
}

async function readProjectFiles(repo: string, commit: string, homeDir: string, home: ConfigFile[], budget: Budget): Promise<ConfigFile[]> {
  const git = gitAt(repo);
  const blobs = await treeBlobs(repo, commit, ['.claude', '.mcp.json', ...PROJECT_FILES]);
  const wanted = picomatch([...PROJECT_CONFIG_FILES], { dot: true });
  const files: ConfigFile[] = [];
  const readBlob = async (rel: string): Promise<string | undefined> => {
    const blob = blobs.get(rel) ?? (await treeBlobs(repo, commit, [rel])).get(rel);
    if (!blob) return undefined;
    const text = await git.raw(['cat-file', 'blob', blob]);
    return budget.admit(`${rel} (at ${commit.slice(0, 12)})`, text) ? text : undefined;
  };
  for (const rel of [...blobs.keys()].filter((rel) => wanted(rel)).sort()) {
    const text = await readBlob(rel);
    if (text !== undefined) files.push({ path: rel, text });
  }
  // Files the instructions import, from the same commit (a project file imports only from the
  // project and ~/.claude; the loader holds it to that, and to the depth).
  const root = '/orca-project';
  const queue = files.filter((file) => (PROJECT_FILES as readonly string[]).includes(file.path)).map((file) => ({ file, depth: 0 }));
  for (let next = queue.shift(); next; next = queue.shift()) {
    if (next.depth >= MAX_IMPORT_DEPTH) continue;
    for (const target of importTargets(next.file.text, path.posix.dirname(path.posix.join(root, next.file.path)), homeDir)) {
      if (isInside(target, homeDir)) {
        // ~/.claude is read from disk with the user's files.
        const rel = path.relative(homeDir, target).split(path.sep).join('/');
        if (!home.some((file) => file.path === rel) && rel.startsWith('.claude/')) {
          const text = readText(target, target, budget);
          if (text !== undefined) home.push({ path: rel, text });
        }
        continue;
      }
      if (!isInside(target, root)) continue;
      const rel = path.posix.relative(root, target);
      if (files.some((file) => file.path === rel)) continue;
      const text = await readBlob(rel);
      if (text === undefined) continue;
      const file = { path: rel, text };
      files.push(file);
      queue.push({ file, depth: next.depth + 1 });
    }
  }
  return files;
}

/** The regular files (not symlinks, not submodules) under `paths` at `commit`, by path, with their blob ids. */
async function treeBlobs(repo: string, commit: string, paths: string[]): Promise<Map<string, string>> {
  const out = await gitAt(repo).raw(['ls-tree', '-r', '-z', commit, '--', ...paths]);
  const blobs = new Map<string, string>();
  for (const entry of out.split('\0')) {
    const match = /^(100644|100755) blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (match) blobs.set(match[3]!, match[2]!);
  }
  return blobs;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
