import MiniSearch from 'minisearch';
import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import type { DeferredToolCatalog } from '../core/tool/registry.js';
import { type AnyTool, defineTool, loadDescription, type ToolContext } from '../core/tool/tool.js';

declare module '../core/tool/tool.js' {
  interface SessionServices {
    /** The session's deferred tools (its registry), which ToolSearch finds and loads. */
    toolSearch?: DeferredToolCatalog;
  }
}

export const TOOL_SEARCH_TOOL = 'ToolSearch';

export const ToolSearchInputSchema = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1, 'say what to look for, or select:<name>,<name>')
    .describe('Keywords for the tools you need, or "select:<name>,<name>" for tools whose names you know'),
  max_results: z.number().int().min(1).max(20).default(5).describe('How many matching tools to load at most (default 5)'),
});

/**
 * ToolSearch: the client-side tool search for deferred tools (docs/mcp.md, "Deferred loading").
 * Keywords are matched with BM25 (MiniSearch) against each deferred tool's name, split at `_`
 * and case changes, and description, the name counting double; `select:` names tools outright.
 * The tools found are activated in the session's registry: from the next request on their
 * schemas are sent, after the static tools, so the cached prefix stays as it was.
 */
export const toolSearchTool = defineTool({
  name: TOOL_SEARCH_TOOL,
  description: loadDescription(import.meta.url, './toolSearch.txt'),
  input: ToolSearchInputSchema,
  level: 'read-only',
  readOnly: true,
  async call(input, ctx) {
    const catalog = catalogOf(ctx);
    const deferred = catalog.deferredTools();
    const chosen = input.query.startsWith('select:')
      ? selected(input.query.slice('select:'.length), deferred, ctx)
      : found(input.query, deferred);
    const picked = chosen.slice(0, input.max_results);
    if (picked.length === 0) {
      const left = deferred.length;
      throw new ToolError(
        `No deferred tool matches "${input.query}"${left === 0 ? ': every tool is loaded already' : ` (${left} are not loaded yet)`}. Try other keywords, or select:<name> with a full tool name.`,
      );
    }
    const loaded = catalog.activate(picked.map((tool) => tool.name));
    ctx.emit({ type: 'notice', level: 'info', message: `ToolSearch loaded ${loaded.length} tool(s): ${loaded.join(', ')}` });
    const lines = picked.map((tool) => `- ${tool.name}: ${firstLine(tool.description)}`);
    return {
      content: `Loaded ${picked.length} tool(s); call them from your next turn on:\n${lines.join('\n')}`,
      data: { loaded },
    };
  },
});

function catalogOf(ctx: ToolContext): DeferredToolCatalog {
  const catalog = ctx.services.toolSearch;
  if (!catalog) throw new ToolError('ToolSearch is not available in this session: every tool it has is loaded already.');
  return catalog;
}

function selected(list: string, deferred: AnyTool[], ctx: ToolContext): AnyTool[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !deferred.some((tool) => tool.name === name));
  if (unknown.length > 0 && unknown.length === names.length) {
    throw new ToolError(
      `select: names no deferred tool (${unknown.join(', ')}): give full names such as mcp__<server>__<tool>, or search with keywords.`,
    );
  }
  if (unknown.length > 0) ctx.emit({ type: 'notice', level: 'info', message: `ToolSearch: no deferred tool named ${unknown.join(', ')}` });
  return names.flatMap((name) => deferred.filter((tool) => tool.name === name));
}

function found(query: string, deferred: AnyTool[]): AnyTool[] {
  const index = new MiniSearch<{ name: string; words: string; description: string }>({
    idField: 'name',
    fields: ['words', 'description'],
    searchOptions: { boost: { words: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
  });
  index.addAll(deferred.map((tool) => ({ name: tool.name, words: nameWords(tool.name), description: tool.description })));
  const byName = new Map(deferred.map((tool) => [tool.name, tool]));
  return index.search(query).flatMap((hit) => {
    const tool = byName.get(String(hit.id));
    return tool ? [tool] : [];
  });
}

/** `mcp__github__createIssue` as `mcp github create issue`. */
function nameWords(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
