import { existsSync } from 'node:fs';
import path from 'node:path';
import { type InstructionFile, type LoadedInstructions, loadInstructionFile } from './instructionImports.js';

/**
 * The project's standing instructions, in the order they are shown (later, more specific files
 * refine earlier ones): the user's `~/.claude/CLAUDE.md`, then for each folder from the repository
 * root down to the working folder its `CLAUDE.md`, `.claude/CLAUDE.md`, `AGENTS.md` and
 * `CLAUDE.local.md`, each followed by the files it imports. They go into the conversation's
 * context message, never into the static system prompt: they differ between projects, and the
 * static prompt must be the same for every session of a role.
 */
export const PROJECT_FILES = ['CLAUDE.md', '.claude/CLAUDE.md', 'AGENTS.md', 'CLAUDE.local.md'] as const;

export interface InstructionLocations {
  /** The working folder (the agent's workspace root). */
  cwd: string;
  /** The user's home: `~/.claude/CLAUDE.md` and `~/` imports are found there. */
  homeDir: string;
  /** The project's root and folders when the caller knows them (trusted configuration): else found from `cwd`. */
  project?: { root: string; folders: string[] };
}

export function loadProjectInstructions(locations: InstructionLocations): LoadedInstructions {
  const { root, folders } = locations.project ?? projectFolders(locations.cwd);
  const scope = { homeDir: locations.homeDir, projectRoots: [root], seen: new Set<string>() };
  const out: LoadedInstructions = { files: [], skipped: [] };
  const add = (loaded: LoadedInstructions) => {
    out.files.push(...loaded.files);
    out.skipped.push(...loaded.skipped);
  };
  add(loadInstructionFile(path.join(locations.homeDir, '.claude', 'CLAUDE.md'), 'user', scope));
  for (const dir of folders) {
    for (const name of PROJECT_FILES) {
      add(loadInstructionFile(path.join(dir, name), name === 'CLAUDE.local.md' ? 'local' : 'project', scope));
    }
  }
  return out;
}

/** The repository root (the working folder when not in a repository) and the folders from it down to `cwd`. */
export function projectFolders(cwd: string): { root: string; folders: string[] } {
  const resolved = path.resolve(cwd);
  const root = findRepoRoot(resolved) ?? resolved;
  return { root, folders: foldersFromRoot(root, resolved) };
}

/** The nearest folder at or above `dir` holding `.git` (a folder, or a worktree's file). */
export function findRepoRoot(dir: string): string | undefined {
  let current = path.resolve(dir);
  for (;;) {
    if (existsSync(path.join(current, '.git'))) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** `root`, each folder below it on the way to `cwd`, and `cwd` (just `cwd` when it is the root). */
export function foldersFromRoot(root: string, cwd: string): string[] {
  const rel = path.relative(root, cwd);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return [cwd];
  const folders = [root];
  let current = root;
  for (const part of rel.split(path.sep)) {
    current = path.join(current, part);
    folders.push(current);
  }
  return folders;
}

const KIND_LABEL: Record<InstructionFile['kind'], string> = {
  user: "the user's private instructions for all projects",
  project: 'project instructions, checked into the codebase',
  local: "the user's private instructions for this project, not checked in",
  import: 'imported',
};

/** One file as the context message shows it. */
export function describeInstructionFile(file: InstructionFile): string {
  const label = file.kind === 'import' ? `imported by ${file.importedFrom}` : KIND_LABEL[file.kind];
  return `Contents of ${file.path} (${label}):\n\n${file.text}`;
}
