import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import type { Workspace } from '../core/files/workspace.js';
import { defineTool, loadDescription } from '../core/tool/tool.js';
import { insideGitFolder } from './search/gitignore.js';
import { splitGlobInput } from './search/globFilter.js';
import { formatGrep } from './search/grepOutput.js';
import type { EngineResult, GrepQuery } from './search/grepQuery.js';
import { runJsGrep } from './search/jsGrep.js';
import { mayMatchNewline } from './search/matchText.js';
import { ripgrepPath, runRipgrep } from './search/ripgrep.js';

export const GREP_TOOL = 'Grep';

const count = z.number().int().min(0);

export const GrepInputSchema = z.strictObject({
  pattern: z.string().min(1).describe('The regular expression to search file contents for (ripgrep syntax).'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('The file or folder to search: absolute, or relative to the workspace root. Defaults to the workspace root.'),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob, e.g. "*.js" or "**/*.{ts,tsx}" (several: separate with spaces or commas).'),
  type: z.string().optional().describe('Only search files of this ripgrep type, e.g. js, ts, py, rust, go, java, md.'),
  output_mode: z
    .enum(['files_with_matches', 'content', 'count'])
    .optional()
    .describe('"files_with_matches" (default): file paths; "content": matching lines; "count": matches per file.'),
  '-i': z.boolean().optional().describe('Case-insensitive search.'),
  '-n': z.boolean().optional().describe('Show line numbers (content mode; default true).'),
  '-A': count.optional().describe('Lines to show after each match (content mode).'),
  '-B': count.optional().describe('Lines to show before each match (content mode).'),
  '-C': count.optional().describe('Lines to show before and after each match (content mode).'),
  multiline: z
    .boolean()
    .optional()
    .describe('Let the pattern span lines, with . matching line breaks (rg -U --multiline-dotall). Default false.'),
  head_limit: count.optional().describe('Show only the first N entries (files, lines or counts); 0 or absent shows all.'),
});
export type GrepInput = z.infer<typeof GrepInputSchema>;

/** Which engine runs: ORCA_GREP=js forces the JS fallback, ORCA_GREP=rg insists on rg. */
const EngineSchema = z.enum(['auto', 'rg', 'js']);
export type GrepEngine = z.infer<typeof EngineSchema>;

/** Bytes looked at to tell whether a file named in `path` is binary. */
const SNIFF_BYTES = 64 * 1024;

/**
 * Grep: searches file contents inside the workspace with rg, or with a JS fallback that gives the
 * same output when rg is not on PATH (or ORCA_GREP=js).
 *
 * The rules:
 * - `path` (default: the workspace root) resolves through the workspace and must exist; a path
 *   that leads outside is refused. A folder is searched recursively; a file is searched whatever
 *   glob, type and .gitignore say (as rg does), unless it is binary, which is said plainly.
 * - Files: .gitignore files honoured (nested ones too), hidden files searched, `.git` never
 *   (a path into it is refused), symlinks not followed, binary files skipped.
 * - Modes: files_with_matches (default; newest first, then by path), content (`path:N:text`,
 *   context lines as `path-N-text`, `--` between groups, line numbers unless -n is false), count
 *   (`path:N`). Content and count are ordered by path. -A/-B/-C, -n apply to content mode only;
 *   -A and -B beat -C.
 * - An invalid regex, an unknown type and a missing path are errors, never "No matches found".
 *   A pattern with \n needs multiline: true (rg refuses it otherwise).
 * - head_limit keeps the first N entries and says how many there were; a long result is
 *   otherwise left to the pipeline's result budget.
 */
export const grepTool = makeGrepTool();

/** A Grep tool; `engine` fixes the engine (tests compare both), else ORCA_GREP decides per call. */
export function makeGrepTool(options: { engine?: GrepEngine } = {}) {
  return defineTool({
    name: GREP_TOOL,
    description: loadDescription(import.meta.url, './grep.txt'),
    input: GrepInputSchema,
    level: 'read-only',
    readOnly: true,
    family: 'read',
    rule: { kind: 'path', field: 'path' },
    results: { kind: 'output' },
    async call(input, ctx) {
      if (!input.multiline && hasLineBreak(input.pattern)) {
        throw new ToolError(
          'The pattern contains a line break (\\n), which only multiline mode can match: set multiline: true to search across lines.',
        );
      }
      const target = await resolveTarget(ctx.workspace, input.path);
      if (insideGitFolder(ctx.workspace.relative(target.abs))) {
        throw new ToolError(`Grep does not search .git. Inspect the repository with git commands in Bash instead.`);
      }
      const mode = input.output_mode ?? 'files_with_matches';
      if (target.isFile && (await looksBinary(target.abs))) {
        return { content: `${shown(ctx.workspace, target.abs)} is a binary file; Grep does not search binary files.` };
      }
      const query: GrepQuery = {
        pattern: input.pattern,
        base: target.base,
        target: target.rel,
        targetIsFile: target.isFile,
        globs: input.glob ? splitGlobInput(input.glob) : [],
        type: input.type,
        mode,
        ignoreCase: input['-i'] ?? false,
        before: input['-B'] ?? input['-C'] ?? 0,
        after: input['-A'] ?? input['-C'] ?? 0,
        multiline: input.multiline ?? false,
      };
      if (mode !== 'content') query.before = query.after = 0;
      const result = await runEngine(options.engine ?? engineFromEnv(), query, ctx.signal);
      return formatGrep(result, {
        mode,
        base: target.base,
        display: target.base === ctx.workspace.root ? (rel) => rel : (rel) => path.join(target.base, rel),
        lineNumbers: input['-n'] ?? true,
        context: query.before > 0 || query.after > 0,
        countsMatches: query.multiline && mayMatchNewline(query.pattern),
        headLimit: input.head_limit ? input.head_limit : undefined,
      });
    },
  });
}

function runEngine(engine: GrepEngine, query: GrepQuery, signal: AbortSignal): Promise<EngineResult> {
  if (engine === 'js') return runJsGrep(query, signal);
  const rg = ripgrepPath();
  if (rg) return runRipgrep(rg, query, signal);
  if (engine === 'rg') throw new Error('ORCA_GREP=rg, but no rg executable was found on PATH.');
  return runJsGrep(query, signal);
}

function engineFromEnv(): GrepEngine {
  const parsed = EngineSchema.safeParse(process.env.ORCA_GREP || 'auto');
  if (!parsed.success) {
    throw new Error(`ORCA_GREP must be one of auto, rg, js; it is ${JSON.stringify(process.env.ORCA_GREP)}.`);
  }
  return parsed.data;
}

/**
 * Where the search runs. Inside the workspace, rg runs in the root and paths are relative to it;
 * in a read-only root outside it (the session's saved tool results) the searched folder is the
 * base and paths are shown absolute.
 */
async function resolveTarget(
  workspace: Workspace,
  requested: string | undefined,
): Promise<{ abs: string; base: string; rel: string; isFile: boolean }> {
  const abs = workspace.resolve(requested ?? '.', 'read');
  let info;
  try {
    info = await stat(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ToolError(
        `Path does not exist: ${requested}. Give a file or folder inside the workspace (or leave path out to search all of it).`,
      );
    }
    throw error;
  }
  if (!info.isFile() && !info.isDirectory()) {
    throw new ToolError(`${requested} is neither a file nor a folder; Grep searches files and folders.`);
  }
  const isFile = info.isFile();
  const base = workspace.contains(abs) ? workspace.root : isFile ? path.dirname(abs) : abs;
  const rel = path.relative(base, abs).split(path.sep).join('/');
  return { abs, base, rel, isFile };
}

function shown(workspace: Workspace, abs: string): string {
  return workspace.contains(abs) ? workspace.relative(abs) : abs;
}

/** A NUL byte near the start, as rg judges a file it was asked to search (UTF-16 with BOM is text). */
async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    const head = buffer.subarray(0, bytesRead);
    if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return false;
    return head.includes(0);
  } finally {
    await handle.close();
  }
}

/** A literal line break, or a `\n` escape that is not itself escaped (`\\n` is a backslash and n). */
function hasLineBreak(pattern: string): boolean {
  return pattern.includes('\n') || /(^|[^\\])(\\\\)*\\n/.test(pattern);
}
