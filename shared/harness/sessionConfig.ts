import { type ConfigFolders, writeConfigFolders } from '../context/config/configFolders.js';
import { settingsFromConfig } from '../context/config/trustedSettings.js';
import { hooksFromSettings } from '../policy/hooks/hookSettings.js';
import { type HooksConfig, mergeHooksConfigs, notFiredNotice } from '../policy/hooks/hooksConfig.js';
import { loadPlugins, type PluginSet } from '../policy/plugins/pluginSet.js';
import { type LoadedSettings, loadSettings } from '../policy/settings/loadSettings.js';
import type { HarnessOptions } from './harnessOptions.js';

/** What a session is configured by: its settings, its plugins, the hooks of both, and the notices the reading left. */
export interface SessionConfig {
  settings: LoadedSettings;
  plugins: PluginSet;
  hooks: HooksConfig;
  /** Where the trusted configuration's files were written out for the session; unset without one. */
  folders?: ConfigFolders;
  /** Warnings for the session's first events; later steps (the sandbox) add theirs. */
  notices: string[];
}

/**
 * The session's settings (from the run's trusted configuration, or read from the workspace and the
 * user's folders when there is none), its plugins, and the hooks of both (`disableAllHooks` drops the plugins').
 */
export function readSessionConfig(options: HarnessOptions): SessionConfig {
  const trusted = options.config;
  const settings = trusted
    ? settingsFromConfig(options.workspaceRoot, trusted.files)
    : loadSettings({ projectRoot: options.workspaceRoot, userClaudeDir: options.userClaudeDir });
  // Plugin folders are the user's own (--plugin-dir, enabledPlugins' directory marketplaces): read from disk.
  const plugins = loadPlugins({ dirs: options.pluginDirs ?? [], settings: settings.sources, projectRoot: options.workspaceRoot });
  const hooksOff = settings.sources.some((source) => source.raw.disableAllHooks === true);
  const hooks = mergeHooksConfigs([hooksFromSettings(settings.sources), ...(hooksOff ? [] : plugins.plugins.map((p) => p.hooks))]);
  const folders = trusted ? writeConfigFolders(trusted.files, trusted.folder) : undefined;
  const notices: string[] = [...(trusted?.files.problems ?? []).map((problem) => `configuration: ${problem}`), ...plugins.notices];
  const notFired = notFiredNotice(hooks);
  if (notFired !== undefined) notices.push(notFired);
  return { settings, plugins, hooks, folders, notices };
}
