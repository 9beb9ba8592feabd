import path from 'node:path';
import type { SettingsSource } from '../settings/loadSettings.js';
import { enabledPluginDirs } from './enabledPlugins.js';
import { loadPlugin, type Plugin } from './plugin.js';

/**
 * The plugins a session (or a run) loads: the folders given with `--plugin-dir`, then the ones its
 * settings enable (enabledPlugins.ts); one folder once. A folder that is not a plugin is an error
 * naming it; what a plugin has that orca does not use is a notice.
 */
export interface PluginSet {
  plugins: Plugin[];
  notices: string[];
}

export function loadPlugins(options: { dirs: readonly string[]; settings: readonly SettingsSource[]; projectRoot: string }): PluginSet {
  const enabled = enabledPluginDirs(options.settings, options.projectRoot);
  const dirs = [...new Set([...options.dirs.map((dir) => path.resolve(dir)), ...enabled.dirs])];
  const plugins = dirs.map(loadPlugin);
  return { plugins, notices: [...enabled.notices, ...plugins.flatMap((plugin) => plugin.notices)] };
}
