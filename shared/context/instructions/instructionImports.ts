import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../core/files/workspace.js';
import { proseWithoutCodeSpans, stripHtmlComments } from './markdownText.js';

/**
 * One instructions file (CLAUDE.md, AGENTS.md, …) with the files it imports, Claude Code's way:
 * - `@path` at the start of a line or after a space imports a file; `\ ` escapes a space. Inside
 *   a fenced block or a code span it is not an import.
 * - A relative path resolves from the importing file's real folder (a symlinked CLAUDE.md imports
 *   from where it really lives); `~/` is the user's home; `/…` is absolute.
 * - Imports nest up to 4 deep; a file already loaded (a cycle, or a second import) is not loaded
 *   again. A name that is not an existing file is prose (`@alice`), not an error.
 * - HTML comments are stripped (outside code).
 * - A project's files may import from the project and from `~/.claude`; the user's own files from
 *   anywhere. Anything else is skipped and reported, so a checked-in file cannot pull `/etc/…` or
 *   `~/.ssh/…` into what is sent to the model.
 */
export const MAX_IMPORT_DEPTH = 4;
/** Larger files are skipped, with a note: instructions are meant to be read whole, every turn. */
export const MAX_INSTRUCTION_BYTES = 256 * 1024;

export type InstructionKind = 'user' | 'project' | 'local' | 'import';

export interface InstructionFile {
  /** Real absolute path. */
  path: string;
  kind: InstructionKind;
  /** For imports: the file that imported it. */
  importedFrom?: string;
  text: string;
}

export interface SkippedInstruction {
  path: string;
  reason: string;
}

export interface ImportScope {
  homeDir: string;
  /** Folders a project file's imports may come from. */
  projectRoots: string[];
  /** Real paths already loaded in this session's instructions: each file appears once. */
  seen: Set<string>;
}

export interface LoadedInstructions {
  files: InstructionFile[];
  skipped: SkippedInstruction[];
}

/** `file` and its imports, depth first, the importing file before the files it imports. */
export function loadInstructionFile(file: string, kind: Exclude<InstructionKind, 'import'>, scope: ImportScope): LoadedInstructions {
  const out: LoadedInstructions = { files: [], skipped: [] };
  visit(file, kind, undefined, 0, kind === 'user', scope, out);
  return out;
}

function visit(
  file: string,
  kind: InstructionKind,
  importedFrom: string | undefined,
  depth: number,
  trusted: boolean,
  scope: ImportScope,
  out: LoadedInstructions,
): void {
  let real: string;
  try {
    real = realpathSync(file);
    if (!statSync(real).isFile()) return;
  } catch {
    // Not there: the usual case for most of the names looked for in each folder.
    return;
  }
  if (scope.seen.has(real)) return;
  scope.seen.add(real);
  const size = statSync(real).size;
  if (size > MAX_INSTRUCTION_BYTES) {
    out.skipped.push({ path: real, reason: `it is ${size} bytes, over the ${MAX_INSTRUCTION_BYTES}-byte limit for instructions` });
    return;
  }
  let raw: Buffer;
  try {
    raw = readFileSync(real);
  } catch (error) {
    out.skipped.push({ path: real, reason: `it cannot be read: ${error instanceof Error ? error.message : String(error)}` });
    return;
  }
  if (raw.includes(0)) {
    out.skipped.push({ path: real, reason: 'it is not a text file' });
    return;
  }
  const original = raw.toString('utf8').replace(/^\uFEFF/, '');
  const text = stripHtmlComments(original).trim();
  if (text !== '') out.files.push({ path: real, kind, importedFrom, text });

  for (const target of importTargets(original, path.dirname(real), scope.homeDir)) {
    if (!isFile(target) || scope.seen.has(realpathSync(target))) continue;
    if (depth + 1 > MAX_IMPORT_DEPTH) {
      out.skipped.push({ path: target, reason: `imported by ${real} more than ${MAX_IMPORT_DEPTH} imports deep` });
      continue;
    }
    if (!trusted && !allowedForProject(target, scope)) {
      out.skipped.push({ path: target, reason: `imported by ${real} from outside the project and ~/.claude` });
      continue;
    }
    visit(target, 'import', real, depth + 1, trusted, scope, out);
  }
}

const IMPORT = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;

/** The absolute paths a text imports, in order, from a file in `dir`. */
export function importTargets(text: string, dir: string, homeDir: string): string[] {
  const targets: string[] = [];
  for (const match of proseWithoutCodeSpans(stripHtmlComments(text)).matchAll(IMPORT)) {
    let spec = match[1]!.replace(/\\ /g, ' ');
    // Prose punctuation after a path ("see @docs/a.md.") is not part of it.
    spec = spec.replace(/[),.;:!?]+$/, '').replace(/#.*$/, '');
    if (!looksLikePath(spec)) continue;
    const target = spec.startsWith('~/') ? path.join(homeDir, spec.slice(2)) : path.resolve(dir, spec);
    if (!targets.includes(target)) targets.push(target);
  }
  return targets;
}

function looksLikePath(spec: string): boolean {
  if (spec === '' || spec === '/' || spec === '~') return false;
  return /^(?:\.{1,2}\/|~\/|\/)/.test(spec) || /^[A-Za-z0-9._-]/.test(spec);
}

function isFile(target: string): boolean {
  try {
    return statSync(target).isFile();
  } catch {
    return false;
  }
}

function allowedForProject(target: string, scope: ImportScope): boolean {
  const real = realpathSync(target);
  const roots = [...scope.projectRoots, path.join(scope.homeDir, '.claude')];
  return roots.some((root) => {
    try {
      return isInside(real, realpathSync(root));
    } catch {
      return false;
    }
  });
}
