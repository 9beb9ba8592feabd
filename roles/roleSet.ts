import path from 'node:path';
import picomatch from 'picomatch';
import { settingsFromConfig } from '../shared/context/config/trustedSettings.js';
import type { ToolFacts } from '../shared/core/tool/toolFacts.js';
import type { TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import { loadPlugins } from '../shared/policy/plugins/pluginSet.js';
import { loadSettings, SettingsError, type SettingsSource } from '../shared/policy/settings/loadSettings.js';
import { BUILTIN_ROLES } from './builtinRoles.js';
import { customRolesFrom, loadAgentFolder, loadCustomRoles } from './customRoles.js';
import type { RoleDefinition } from './role.js';

/** Agent files, in subfolders too (as Claude Code scans `.claude/agents/`). */
const AGENT_FILE = picomatch('.claude/agents/**/*.md', { dot: true });

/** Where a repository's roles come from: the run's trusted configuration, and the plugins given by folder. */
export interface RoleSources {
  /** The run's trusted configuration (the base commit); without it, the repository's folder is read. */
  config?: TrustedConfig;
  /** `--plugin-dir` folders: the user's own, read from disk. */
  pluginDirs?: readonly string[];
}

export interface RoleSet {
  roles: RoleDefinition[];
  warnings: string[];
  skipped: Map<string, string>;
}

/**
 * The roles a repository offers: the built-in five, then its `.claude/agents/**` files (from the
 * trusted configuration when given, else from the folder), then its plugins' agents. `tools` gives
 * the tools a custom role may name; it is asked only when there is an agent file to read, so a
 * command whose repository has none need not load the tools' modules (roleLookup.ts).
 */
export function roleSet(repoDir: string, sources: RoleSources, tools: () => readonly ToolFacts[]): RoleSet {
  const { config, pluginDirs = [] } = sources;
  const files = config
    ? config.project
        .filter((file) => AGENT_FILE(file.path))
        .sort((a, b) => (a.path < b.path ? -1 : 1))
        .map((file) => ({ source: path.join(repoDir, file.path), text: file.text }))
    : undefined;
  const custom = files ? customRolesFrom(files, files.length > 0 ? tools() : []) : loadCustomRoles(repoDir, tools());
  const roles = [...BUILTIN_ROLES, ...custom.roles];
  const warnings = [...custom.warnings];
  const skipped = new Map(custom.skipped);
  // A plugin's agents come after the project's: a project agent of the same name wins.
  const plugins = loadPlugins({ dirs: pluginDirs, settings: settingsOf(repoDir, config), projectRoot: repoDir });
  warnings.push(...plugins.notices);
  for (const plugin of plugins.plugins) {
    for (const dir of plugin.agentDirs) {
      const loaded = loadAgentFolder(
        dir,
        tools(),
        roles.map((role) => role.name),
      );
      roles.push(...loaded.roles);
      warnings.push(...loaded.warnings);
      for (const [name, why] of loaded.skipped) if (!skipped.has(name)) skipped.set(name, why);
    }
  }
  return { roles, warnings, skipped };
}

/** The role named `name` in `set`; an error naming why it is not there (a skipped file) or the roles there are. */
export function roleNamed({ roles, warnings, skipped }: RoleSet, name: string): { role: RoleDefinition; warnings: string[] } {
  const role = roles.find((candidate) => candidate.name === name);
  if (!role) {
    const why = skipped.get(name);
    if (why) throw new Error(`role ${JSON.stringify(name)} is not available: ${why}`);
    throw new Error(`unknown role ${JSON.stringify(name)}: the roles are ${roles.map((r) => r.name).join(', ')}`);
  }
  return { role, warnings };
}

/**
 * The repository's settings (the trusted configuration's when given), for the plugins they enable. A broken settings file is not this
 * lookup's to report: the agent's session reads the same file and fails naming it.
 */
function settingsOf(repoDir: string, config: TrustedConfig | undefined): SettingsSource[] {
  try {
    return (config ? settingsFromConfig(repoDir, config) : loadSettings({ projectRoot: repoDir })).sources;
  } catch (error) {
    if (error instanceof SettingsError) return [];
    throw error;
  }
}
