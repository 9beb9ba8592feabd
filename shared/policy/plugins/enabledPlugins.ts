import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import type { SettingsSource } from '../settings/loadSettings.js';
import { PluginError } from './plugin.js';

/**
 * The plugin folders a project's settings turn on, as Claude Code names them: `enabledPlugins`
 * (`"<plugin>@<marketplace>": true`) from marketplaces on this disk, `extraKnownMarketplaces`
 * entries with a `directory` source (`{ "source": { "source": "directory", "path": "./tools/plugins" } }`),
 * whose `.claude-plugin/marketplace.json` lists each plugin with a relative `source`. Marketplaces
 * on GitHub or another git host are not fetched: each is named once as not supported.
 */

const PluginKeysSchema = z.looseObject({
  enabledPlugins: z.record(z.string(), z.boolean()).optional(),
  extraKnownMarketplaces: z
    .record(z.string(), z.looseObject({ source: z.looseObject({ source: z.string(), path: z.string().optional() }) }))
    .optional(),
});

const MarketplaceSchema = z.looseObject({
  name: z.string().optional(),
  plugins: z.array(z.looseObject({ name: z.string(), source: z.union([z.string(), z.looseObject({ source: z.string() })]) })),
});

export interface EnabledPlugins {
  dirs: string[];
  notices: string[];
}

export function enabledPluginDirs(sources: readonly SettingsSource[], projectRoot: string): EnabledPlugins {
  const enabled = new Map<string, boolean>();
  const marketplaces = new Map<string, { source: string; path?: string; from: string }>();
  // From the most general file to the most specific, so a local `false` turns off a project `true`.
  for (const source of [...sources].reverse()) {
    const parsed = PluginKeysSchema.safeParse(source.raw);
    if (!parsed.success) throw new PluginError(describeZodError(parsed.error, source.label));
    for (const [id, on] of Object.entries(parsed.data.enabledPlugins ?? {})) enabled.set(id, on);
    for (const [name, entry] of Object.entries(parsed.data.extraKnownMarketplaces ?? {}))
      marketplaces.set(name, { ...entry.source, from: source.scope === 'user' ? path.dirname(source.file) : projectRoot });
  }
  const dirs: string[] = [];
  const notices: string[] = [];
  for (const [id, on] of enabled) {
    if (!on) continue;
    const at = id.lastIndexOf('@');
    const [name, market] = at > 0 ? [id.slice(0, at), id.slice(at + 1)] : [id, ''];
    const marketplace = marketplaces.get(market);
    if (!marketplace) {
      notices.push(`plugin ${id}: its marketplace "${market}" is not in extraKnownMarketplaces with a directory source; not loaded`);
      continue;
    }
    if (marketplace.source !== 'directory' || marketplace.path === undefined) {
      notices.push(`plugin ${id}: marketplace "${market}" has a ${marketplace.source} source; orca loads only directory marketplaces`);
      continue;
    }
    const root = path.resolve(marketplace.from, marketplace.path);
    const file = path.join(root, '.claude-plugin', 'marketplace.json');
    if (!existsSync(file)) throw new PluginError(`marketplace "${market}": ${file} does not exist`);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new PluginError(`${file} is not valid JSON: ${(error as Error).message}`);
    }
    const listed = MarketplaceSchema.safeParse(json);
    if (!listed.success) throw new PluginError(describeZodError(listed.error, file));
    const entry = listed.data.plugins.find((plugin) => plugin.name === name);
    if (!entry) {
      notices.push(`plugin ${id}: marketplace "${market}" (${file}) lists no plugin named ${name}`);
      continue;
    }
    if (typeof entry.source !== 'string') {
      notices.push(`plugin ${id}: its source is ${entry.source.source}; orca loads only plugins in the marketplace's folder`);
      continue;
    }
    dirs.push(path.resolve(root, entry.source));
  }
  return { dirs, notices };
}
