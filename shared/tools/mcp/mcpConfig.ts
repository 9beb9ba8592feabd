import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';

/**
 * MCP server definitions in Claude Code's format (`.mcp.json` at the repository root, the user's
 * `~/.claude.json`, an agent file's `mcpServers`): `{ "mcpServers": { "<name>": { … } } }` with
 * stdio servers (`command`, `args`, `env`) and remote ones (`type: "http"` or `"sse"`, `url`,
 * `headers`). Every string may use `${VAR}` and `${VAR:-default}`.
 *
 * This file only reads text and settings it is given, never the disk: where the text comes from
 * (the worktree today, the run's trusted configuration from its base commit later) is the caller's.
 */
const StringMap = z.record(z.string(), z.string());

export const StdioServerSchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: StringMap.default({}),
});

export const RemoteServerSchema = z.looseObject({
  type: z.enum(['http', 'sse']),
  url: z.string().min(1),
  headers: StringMap.default({}),
});

export const McpServerConfigSchema = z.union([StdioServerSchema, RemoteServerSchema], {
  error: 'a server needs `command` (a stdio server) or `type: "http"` and `url` (a streamable HTTP server)',
});
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;
export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
export type RemoteServerConfig = z.infer<typeof RemoteServerSchema>;

/** A stdio server: one orca starts. Told by `command`, as Claude Code does when `type` is left out. */
export function isStdioServer(config: McpServerConfig): config is StdioServerConfig {
  return typeof config.command === 'string' && config.type !== 'http' && config.type !== 'sse';
}
export type McpServerConfigInput = z.input<typeof McpServerConfigSchema>;

export const McpJsonSchema = z.looseObject({
  mcpServers: z.record(z.string().min(1), McpServerConfigSchema).default({}),
});

/** Where a server was defined: the repository's `.mcp.json` (needs approval), the user's own config, or an agent file. */
export type McpScope = 'project' | 'user' | 'role';

export interface McpServerEntry {
  name: string;
  scope: McpScope;
  /** The file that defined it, for messages. */
  source: string;
  config: McpServerConfig;
}

/** An MCP config file that cannot be used: the message names the file and what is wrong. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

/** The servers a config file's text defines; `undefined` text (no file) defines none. */
export function parseMcpConfig(text: string | undefined, source: string, scope: McpScope): McpServerEntry[] {
  if (text === undefined) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${source} is not valid JSON (${(error as Error).message}). Fix the file, or remove it.`);
  }
  const parsed = McpJsonSchema.safeParse(raw);
  if (!parsed.success) throw new McpConfigError(`${describeZodError(parsed.error, source)}. Fix the file, or remove it.`);
  return Object.entries(parsed.data.mcpServers).map(([name, config]) => ({ name, scope, source, config }));
}

/** Inline definitions (an agent file's `mcpServers` entries that are objects), checked like a config file's. */
export function parseInlineServers(servers: Record<string, unknown>, source: string): McpServerEntry[] {
  const parsed = z.record(z.string().min(1), McpServerConfigSchema).safeParse(servers);
  if (!parsed.success) throw new McpConfigError(`${describeZodError(parsed.error, `${source} mcpServers`)}.`);
  return Object.entries(parsed.data).map(([name, config]) => ({ name, scope: 'role', source, config }));
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * `${VAR}` and `${VAR:-default}` in every string of the server's definition, from `env`. A
 * variable that is unset and has no default is an error naming it, as in Claude Code: the server
 * would otherwise start with a hole in its command or credentials.
 */
export function expandServerConfig(entry: McpServerEntry, env: NodeJS.ProcessEnv): McpServerConfig {
  const missing = new Set<string>();
  const expand = (text: string): string =>
    text.replace(VARIABLE, (_whole, name: string, fallback: string | undefined) => {
      const value = env[name];
      // As in the shell: an empty value takes the default, when there is one.
      if (value !== undefined && (value !== '' || fallback === undefined)) return value;
      if (fallback !== undefined) return fallback;
      missing.add(name);
      return '';
    });
  const map = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expand(value)]));
  const { config } = entry;
  const expanded: McpServerConfig = isStdioServer(config)
    ? { ...config, command: expand(config.command), args: config.args.map(expand), env: map(config.env) }
    : { ...config, url: expand((config as RemoteServerConfig).url), headers: map((config as RemoteServerConfig).headers) };
  if (missing.size > 0) {
    throw new McpConfigError(
      `${[...missing].map((name) => `\${${name}}`).join(', ')} in its definition in ${entry.source} ${missing.size === 1 ? 'is' : 'are'} not set and ${missing.size === 1 ? 'has' : 'have'} no default (write \${VAR:-default} for one)`,
    );
  }
  return expanded;
}

/** The approval keys of Claude Code's settings, read from each settings file's raw JSON. */
const ApprovalSchema = z.looseObject({
  enableAllProjectMcpServers: z.boolean().optional(),
  enabledMcpjsonServers: z.array(z.string()).optional(),
  disabledMcpjsonServers: z.array(z.string()).optional(),
});

export interface ApprovalSource {
  label: string;
  raw: Record<string, unknown>;
}

/**
 * Whether the user approved a project server (one of `.mcp.json`, or an agent file's inline
 * one), as Claude Code decides: `disabledMcpjsonServers` names it (refused), else
 * `enabledMcpjsonServers` names it or `enableAllProjectMcpServers` is true. The reason says which
 * file decided, or what to add to approve it.
 */
export function projectServerApproval(name: string, sources: readonly ApprovalSource[]): { approved: boolean; reason: string } {
  const read = sources.map((source) => {
    const parsed = ApprovalSchema.safeParse(source.raw);
    if (!parsed.success) throw new McpConfigError(`${describeZodError(parsed.error, source.label)}.`);
    return { label: source.label, ...parsed.data };
  });
  const disabled = read.find((source) => source.disabledMcpjsonServers?.includes(name));
  if (disabled) return { approved: false, reason: `disabledMcpjsonServers in ${disabled.label} names it` };
  const enabled = read.find((source) => source.enabledMcpjsonServers?.includes(name));
  if (enabled) return { approved: true, reason: `enabledMcpjsonServers in ${enabled.label} names it` };
  const all = read.find((source) => source.enableAllProjectMcpServers === true);
  if (all) return { approved: true, reason: `enableAllProjectMcpServers is true in ${all.label}` };
  return {
    approved: false,
    reason: `it is a project server the user has not approved: add "${name}" to enabledMcpjsonServers (or set enableAllProjectMcpServers) in .claude/settings.local.json or ~/.claude/settings.json`,
  };
}
