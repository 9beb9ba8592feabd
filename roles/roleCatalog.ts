import type { RoleSpec } from '../shared/infra/queue/agentJob.js';
import { loadPlugins } from '../shared/policy/plugins/pluginSet.js';
import { loadSettings, SettingsError, type SettingsSource } from '../shared/policy/settings/loadSettings.js';
import { catalogToolNames } from '../shared/policy/tools/catalog.js';
import { BUILTIN_ROLES } from './builtinRoles.js';
import { loadAgentFolder, loadCustomRoles } from './customRoles.js';
import type { RoleDefinition } from './role.js';

/** The roles a repository offers: the built-in five, then its `.claude/agents/*.md`. */
export function availableRoles(
  repoDir: string,
  pluginDirs: readonly string[] = [],
): { roles: RoleDefinition[]; warnings: string[]; skipped: Map<string, string> } {
  const tools = [...catalogToolNames(), 'TaskCreate', 'TaskUpdate', 'TaskList'];
  const custom = loadCustomRoles(repoDir, tools);
  const roles = [...BUILTIN_ROLES, ...custom.roles];
  const warnings = [...custom.warnings];
  const skipped = new Map(custom.skipped);
  // A plugin's agents come after the project's: a project agent of the same name wins.
  const plugins = loadPlugins({ dirs: pluginDirs, settings: settingsOf(repoDir), projectRoot: repoDir });
  warnings.push(...plugins.notices);
  for (const plugin of plugins.plugins) {
    for (const dir of plugin.agentDirs) {
      const loaded = loadAgentFolder(
        dir,
        tools,
        roles.map((role) => role.name),
      );
      roles.push(...loaded.roles);
      warnings.push(...loaded.warnings);
      for (const [name, why] of loaded.skipped) if (!skipped.has(name)) skipped.set(name, why);
    }
  }
  return { roles, warnings, skipped };
}

export function findRole(repoDir: string, name: string, pluginDirs: readonly string[] = []): { role: RoleDefinition; warnings: string[] } {
  const { roles, warnings, skipped } = availableRoles(repoDir, pluginDirs);
  const role = roles.find((candidate) => candidate.name === name);
  if (!role) {
    const why = skipped.get(name);
    if (why) throw new Error(`role ${JSON.stringify(name)} is not available: ${why}`);
    throw new Error(`unknown role ${JSON.stringify(name)}: the roles are ${roles.map((r) => r.name).join(', ')}`);
  }
  return { role, warnings };
}

/** The role as it travels in a job payload. */
export function roleSpec(role: RoleDefinition): RoleSpec {
  const { description: _description, ...spec } = role;
  return spec;
}

/**
 * The repository's settings, for the plugins they enable. A broken settings file is not this
 * lookup's to report: the agent's session reads the same file and fails naming it.
 */
function settingsOf(repoDir: string): SettingsSource[] {
  try {
    return loadSettings({ projectRoot: repoDir }).sources;
  } catch (error) {
    if (error instanceof SettingsError) return [];
    throw error;
  }
}
