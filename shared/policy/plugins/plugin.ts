import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { type HooksConfig, mergeHooksConfigs, NO_HOOKS, parseHooksConfig } from '../hooks/hooksConfig.js';

/**
 * A Claude Code plugin folder, as Claude Code loads one: `.claude-plugin/plugin.json` (optional;
 * the folder's name is the plugin's name without it), `hooks/hooks.json`, `agents/`, `skills/`,
 * `commands/` and `.mcp.json` at the plugin's root, or where plugin.json points. `${CLAUDE_PLUGIN_ROOT}`
 * in hook commands (and their args) is the plugin's folder.
 */

const PathOrPaths = z.union([z.string(), z.array(z.string())]);

const PluginManifestSchema = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-"'),
  version: z.string().optional(),
  description: z.string().optional(),
  commands: PathOrPaths.optional(),
  agents: PathOrPaths.optional(),
  skills: PathOrPaths.optional(),
  /** A path to a hooks file, or the hooks themselves. */
  hooks: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  mcpServers: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
});

/** A hooks file: `{ "description"?, "hooks": { … } }`. */
const HooksFileSchema = z.looseObject({ description: z.string().optional(), hooks: z.record(z.string(), z.unknown()) });

export interface Plugin {
  name: string;
  root: string;
  hooks: HooksConfig;
  agentDirs: string[];
  skillDirs: string[];
  commandDirs: string[];
  /** The plugin's MCP servers, as written (`.mcp.json` or plugin.json's `mcpServers`): for the MCP layer to read. */
  mcpServers?: Record<string, unknown>;
  /** Things of the plugin orca does not use, one line each, to be reported once. */
  notices: string[];
}

export class PluginError extends Error {
  override readonly name = 'PluginError';
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new PluginError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** `${CLAUDE_PLUGIN_ROOT}` (and `$CLAUDE_PLUGIN_ROOT`) in every string of a hooks value. */
function expandRoot(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.replaceAll('${CLAUDE_PLUGIN_ROOT}', root).replace(/\$CLAUDE_PLUGIN_ROOT\b/g, root);
  if (Array.isArray(value)) return value.map((item) => expandRoot(item, root));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandRoot(item, root)]));
  return value;
}

function folders(root: string, given: string | string[] | undefined, fallback: string): string[] {
  const named = given === undefined ? [] : Array.isArray(given) ? given : [given];
  const all = [path.join(root, fallback), ...named.map((entry) => path.resolve(root, entry))];
  return [...new Set(all)].filter((dir) => existsSync(dir) && statSync(dir).isDirectory());
}

export function loadPlugin(dir: string): Plugin {
  const root = path.resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new PluginError(`plugin folder ${root} does not exist`);
  const manifestFile = path.join(root, '.claude-plugin', 'plugin.json');
  const raw = existsSync(manifestFile) ? readJson(manifestFile) : { name: path.basename(root) };
  const parsed = PluginManifestSchema.safeParse(raw);
  if (!parsed.success) throw new PluginError(describeZodError(parsed.error, manifestFile));
  const manifest = parsed.data;
  const notices: string[] = [];

  const hookSources: Array<{ value: unknown; source: string }> = [];
  const defaultHooks = path.join(root, 'hooks', 'hooks.json');
  if (existsSync(defaultHooks)) hookSources.push({ value: readJson(defaultHooks), source: defaultHooks });
  if (typeof manifest.hooks === 'string') {
    const file = path.resolve(root, manifest.hooks);
    if (file !== defaultHooks) hookSources.push({ value: readJson(file), source: file });
  } else if (manifest.hooks !== undefined) hookSources.push({ value: { hooks: manifest.hooks }, source: manifestFile });
  const configs = hookSources.map(({ value, source }) => {
    const file = HooksFileSchema.safeParse(value);
    if (!file.success) throw new PluginError(describeZodError(file.error, source));
    return parseHooksConfig(expandRoot(file.data.hooks, root), source);
  });

  let mcpServers: Record<string, unknown> | undefined;
  const mcpFile = path.join(root, '.mcp.json');
  if (existsSync(mcpFile)) {
    const value = readJson(mcpFile) as { mcpServers?: Record<string, unknown> };
    mcpServers = (value.mcpServers ?? value) as Record<string, unknown>;
  } else if (typeof manifest.mcpServers === 'string') {
    const value = readJson(path.resolve(root, manifest.mcpServers)) as { mcpServers?: Record<string, unknown> };
    mcpServers = (value.mcpServers ?? value) as Record<string, unknown>;
  } else if (manifest.mcpServers !== undefined) mcpServers = manifest.mcpServers;
  if (mcpServers !== undefined)
    notices.push(`plugin ${manifest.name}: MCP servers (${Object.keys(mcpServers).join(', ')}): not supported yet, not started`);

  return {
    name: manifest.name,
    root,
    hooks: configs.length === 0 ? NO_HOOKS : mergeHooksConfigs(configs),
    agentDirs: folders(root, manifest.agents, 'agents'),
    skillDirs: folders(root, manifest.skills, 'skills'),
    commandDirs: folders(root, manifest.commands, 'commands'),
    ...(mcpServers !== undefined ? { mcpServers: expandRoot(mcpServers, root) as Record<string, unknown> } : {}),
    notices,
  };
}
