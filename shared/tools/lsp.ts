import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  MarkupContent,
  SymbolInformation,
} from 'vscode-languageserver-protocol/node';
import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { statIfExists } from '../core/files/textFile.js';
import { codeUnitOrder } from '../core/text/codeUnitOrder.js';
import { defineTool, loadDescription, type ToolContext, type ToolOutput } from '../core/tool/tool.js';
import type { LspDocument } from './lsp/lspDocument.js';
import type { LanguageServer } from './lsp/lspServer.js';
import { isNotebookPath } from './notebook/notebook.js';

export const LSP_TOOL = 'LSP';

const OPERATIONS = ['goToDefinition', 'findReferences', 'hover', 'documentSymbol'] as const;
const AT_POSITION: ReadonlySet<string> = new Set(['goToDefinition', 'findReferences', 'hover']);

export const LspInputSchema = z.strictObject({
  operation: z
    .enum(OPERATIONS)
    .describe(
      'goToDefinition: where the symbol is defined; findReferences: every use of it; hover: its type and signature; documentSymbol: what the file declares',
    ),
  filePath: z.string().min(1).describe('The file: an absolute path, or a path relative to the workspace root.'),
  line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('The line of the symbol (1-based, as Read numbers lines); needed but for documentSymbol.'),
  character: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('The column of a character of the symbol on that line (1-based); needed but for documentSymbol.'),
});
export type LspInput = z.infer<typeof LspInputSchema>;

/** References listed at most; the rest are counted. */
const MAX_REFERENCES = 200;

/**
 * The protocol's values (request types, symbol kinds): the module costs a worker about 16 MB and
 * is loaded with its first language server (lsp/lspServer.ts), so by the time a request is sent
 * this import is already done.
 */
const protocol = () => import('./lsp/lspRequests.js');

let symbolKindNames: Map<number, string> | undefined;
async function symbolKinds(): Promise<Map<number, string>> {
  const { SymbolKind } = await protocol();
  symbolKindNames ??= new Map<number, string>(Object.entries(SymbolKind).map(([name, value]) => [value as number, name.toLowerCase()]));
  return symbolKindNames;
}

/**
 * LSP: asks the session's language server about code, without changing anything.
 *
 * The rules:
 * - The path resolves inside the workspace (or the session's read roots) like Read's.
 * - TypeScript/JavaScript and Python files are served (languageServers.ts); any other file, a
 *   notebook, or a language whose server is not available is refused with the reason and what
 *   to use instead (Grep).
 * - The file goes to the server as it is on disk now, and the server has loaded the project
 *   before it is asked (its diagnostics for the file came back), so the answer is the
 *   project's, not a half-loaded guess.
 * - Positions are 1-based, as Read shows them; a line or column past the end is refused.
 * - Locations come back as `path:line:col` with the line's text; paths outside the workspace
 *   (a library's declarations) are absolute. Hover names the file the symbol is declared in and,
 *   for an installed package, the package and version: the installed types, not memory, say
 *   what an API takes.
 */
export const lspTool = defineTool({
  name: LSP_TOOL,
  description: loadDescription(import.meta.url, './lsp.txt'),
  input: LspInputSchema,
  level: 'read-only',
  readOnly: true,
  validate(input) {
    if (AT_POSITION.has(input.operation) && (input.line === undefined || input.character === undefined)) {
      return `${input.operation} needs line and character (1-based, as Read shows them): the position of the symbol to ask about.`;
    }
    return undefined;
  },
  async call(input, ctx) {
    const lsp = ctx.services.lsp;
    if (!lsp?.enabled) {
      throw new ToolError('Language servers are turned off in this session (ORCA_LSP=off). Use Grep and Read to find the symbol.');
    }
    const abs = ctx.workspace.resolve(input.filePath, 'read');
    const shown = ctx.workspace.display(abs);
    if (!statIfExists(abs)?.isFile())
      throw new ToolError(`${shown} does not exist or is not a file. Check the path (Glob finds files by name).`);
    if (isNotebookPath(abs))
      throw new ToolError(`LSP does not answer for notebooks. Read ${shown} to see its cells, and Grep to find a name.`);
    const doc = lsp.document(abs, ctx);
    if (!doc) {
      throw new ToolError(
        `No language server serves ${shown} (orca runs them for ${lsp.servers.map((spec) => spec.label).join(' and ')} files). Use Grep to find the symbol.`,
      );
    }
    const server = await lsp.server(doc.spec, ctx);
    if (!server) {
      const notes = lsp.takeNotes();
      throw new ToolError(
        notes.length > 0
          ? notes.join('\n')
          : `The ${doc.spec.label} language server is not available (${lsp.unavailableReason(doc.spec) ?? 'unknown reason'}). Use Grep.`,
      );
    }
    try {
      return await ask(server, doc, input, shown, abs, ctx);
    } catch (error) {
      if (error instanceof ToolError || ctx.signal.aborted) throw error;
      // A slow or broken server is a refusal the model can act on, not a failure of the tool.
      throw new ToolError(
        `The ${doc.spec.label} language server could not answer: ${error instanceof Error ? error.message : String(error)}. Use Grep and Read instead.`,
      );
    }
  },
});

/** The operation, asked of `server` about `doc` once it has the file's current text and has loaded the project. */
async function ask(
  server: LanguageServer,
  doc: LspDocument,
  input: LspInput,
  shown: string,
  abs: string,
  ctx: ToolContext,
): Promise<ToolOutput> {
  await server.sync(doc.path, doc.languageId, doc.text);
  await server.diagnostics(doc.path, ctx.signal);
  const textDocument = { uri: server.uriOf(doc.path) };

  if (input.operation === 'documentSymbol') {
    const symbols = await server.send((await protocol()).DocumentSymbolRequest.type, { textDocument }, ctx.signal);
    const lines = renderSymbols(symbols ?? [], await symbolKinds());
    return {
      content: lines.length === 0 ? `${shown} declares no symbols the server reports.` : `Symbols in ${shown}:\n${lines.join('\n')}`,
      data: { operation: input.operation, filePath: abs, symbols: symbols ?? [] },
    };
  }

  const position = positionIn(doc.text, input.line!, input.character!, shown);
  const symbol = wordAt(doc.text, position) ?? 'the symbol';
  const at = `${shown}:${input.line}:${input.character}`;

  if (input.operation === 'goToDefinition') {
    const found = locations(await server.send((await protocol()).DefinitionRequest.type, { textDocument, position }, ctx.signal));
    const lines = found.map((loc) => locationLine(loc, ctx));
    return {
      content:
        lines.length === 0
          ? `The server knows no definition of ${symbol} at ${at}.`
          : `Definition of ${symbol} (at ${at}):\n${lines.join('\n')}`,
      data: { operation: input.operation, filePath: abs, locations: found },
    };
  }
  if (input.operation === 'findReferences') {
    const found = locations(
      await server.send(
        (await protocol()).ReferencesRequest.type,
        { textDocument, position, context: { includeDeclaration: true } },
        ctx.signal,
      ),
    ).sort((a, b) => codeUnitOrder(a.uri, b.uri) || a.range.start.line - b.range.start.line);
    const lines = found.slice(0, MAX_REFERENCES).map((loc) => locationLine(loc, ctx));
    if (found.length > MAX_REFERENCES) lines.push(`… and ${found.length - MAX_REFERENCES} more`);
    return {
      content:
        lines.length === 0
          ? `The server knows no references to ${symbol} at ${at}.`
          : `${found.length} reference${found.length === 1 ? '' : 's'} to ${symbol} (at ${at}), its declaration included:\n${lines.join('\n')}`,
      data: { operation: input.operation, filePath: abs, locations: found },
    };
  }
  const hover = await server.send((await protocol()).HoverRequest.type, { textDocument, position }, ctx.signal);
  const text = hover ? hoverText(hover) : '';
  if (text === '') {
    return { content: `The server has nothing to show for ${symbol} at ${at}.`, data: { operation: input.operation, filePath: abs } };
  }
  const declared = await declaredIn(server, textDocument, position, ctx);
  return {
    content: `${symbol} (at ${at}):\n${text}${declared ? `\n\n${declared}` : ''}`,
    data: { operation: input.operation, filePath: abs, hover: text },
  };
}

/** The 0-based position for a 1-based line and column, refused when it is past the file's end. */
function positionIn(text: string, line: number, character: number, shown: string): { line: number; character: number } {
  const lines = text.split(/\r?\n/);
  if (line > lines.length) throw new ToolError(`${shown} has ${lines.length} lines, so line ${line} is past its end.`);
  const length = lines[line - 1]!.length;
  if (character > length + 1) {
    throw new ToolError(`Line ${line} of ${shown} has ${length} characters, so character ${character} is past its end.`);
  }
  return { line: line - 1, character: character - 1 };
}

function wordAt(text: string, position: { line: number; character: number }): string | undefined {
  const line = text.split(/\r?\n/)[position.line] ?? '';
  let start = position.character;
  let end = position.character;
  while (start > 0 && /[\w$]/.test(line[start - 1]!)) start -= 1;
  while (end < line.length && /[\w$]/.test(line[end]!)) end += 1;
  return end > start ? line.slice(start, end) : undefined;
}

function locations(result: Location | Location[] | LocationLink[] | null | undefined): Location[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((item) => ('targetUri' in item ? { uri: item.targetUri, range: item.targetSelectionRange } : item));
}

/** `path:line:col  text of the line`, the text shown for files inside the workspace. */
function locationLine(location: Location, ctx: ToolContext): string {
  const file = filePathOf(location.uri);
  const { line, character } = location.range.start;
  if (!file) return `${location.uri}:${line + 1}:${character + 1}`;
  const where = `${ctx.workspace.display(file)}:${line + 1}:${character + 1}`;
  if (!ctx.workspace.contains(file)) return where;
  const text = lineOf(file, line);
  return text === undefined ? where : `${where}  ${text.trim().slice(0, 200)}`;
}

function lineOf(file: string, line: number): string | undefined {
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/)[line];
  } catch {
    return undefined; // gone since the server answered: the location alone still says where
  }
}

function hoverText(hover: Hover): string {
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
  return parts
    .map((part: MarkupContent | MarkedString) => (typeof part === 'string' ? part : part.value))
    .join('\n')
    .replace(/^\s*```\w*\s*$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** "Declared in …", with the installed package and its version when the declaration is in node_modules. */
async function declaredIn(
  server: LanguageServer,
  textDocument: { uri: string },
  position: { line: number; character: number },
  ctx: ToolContext,
): Promise<string | undefined> {
  const [target] = locations(await server.send((await protocol()).DefinitionRequest.type, { textDocument, position }, ctx.signal));
  const file = target ? filePathOf(target.uri) : undefined;
  if (!target || !file) return undefined;
  const where = `${ctx.workspace.display(file)}:${target.range.start.line + 1}`;
  const pkg = installedPackageOf(file);
  return pkg ? `Declared in ${where}, from the installed ${pkg.name} ${pkg.version}.` : `Declared in ${where}.`;
}

const PackageJsonSchema = z.object({ name: z.string(), version: z.string() });

/** The package a file under node_modules belongs to, from its package.json. */
function installedPackageOf(file: string): { name: string; version: string } | undefined {
  if (!file.split(path.sep).includes('node_modules')) return undefined;
  for (let dir = path.dirname(file); path.basename(dir) !== 'node_modules' && dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (!statIfExists(manifest)) continue;
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(manifest, 'utf8'));
    } catch {
      continue; // an unreadable manifest names no version: look further up
    }
    // A nested package.json ({"type": "module"} in a dist folder) has no name: the package's own is further up.
    const parsed = PackageJsonSchema.safeParse(json);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

function renderSymbols(symbols: readonly (DocumentSymbol | SymbolInformation)[], kinds: Map<number, string>, depth = 0): string[] {
  const lines: string[] = [];
  for (const symbol of symbols) {
    const kind = kinds.get(symbol.kind) ?? 'symbol';
    const line = 'range' in symbol ? symbol.range.start.line : symbol.location.range.start.line;
    lines.push(
      `${'  '.repeat(depth)}${kind} ${symbol.name}${'detail' in symbol && symbol.detail ? ` ${symbol.detail}` : ''} (line ${line + 1})`,
    );
    if ('children' in symbol && symbol.children) lines.push(...renderSymbols(symbol.children, kinds, depth + 1));
  }
  return lines;
}

function filePathOf(uri: string): string | undefined {
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
