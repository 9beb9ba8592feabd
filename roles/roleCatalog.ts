import path from 'node:path';
import picomatch from 'picomatch';
import type { RoleSpec } from '../shared/infra/queue/agentJob.js';
import type { TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import { catalogToolNames } from '../shared/policy/tools/catalog.js';
import { BUILTIN_ROLES } from './builtinRoles.js';
import { customRolesFrom, loadCustomRoles } from './customRoles.js';
import type { RoleDefinition } from './role.js';

const AGENT_FILE = picomatch('.claude/agents/*.md', { dot: true });

/**
 * The roles a repository offers: the built-in five, then its `.claude/agents/*.md`: from the
 * run's trusted configuration (the base commit) when given, else from the folder.
 */
export function availableRoles(repoDir: string, config?: TrustedConfig): { roles: RoleDefinition[]; warnings: string[] } {
  const known = [...catalogToolNames(), 'TaskCreate', 'TaskUpdate', 'TaskList'];
  const custom = config
    ? customRolesFrom(
        config.project
          .filter((file) => AGENT_FILE(file.path))
          .sort((a, b) => (a.path < b.path ? -1 : 1))
          .map((file) => ({ source: path.join(repoDir, file.path), text: file.text })),
        known,
      )
    : loadCustomRoles(repoDir, known);
  return { roles: [...BUILTIN_ROLES, ...custom.roles], warnings: custom.warnings };
}

export function findRole(repoDir: string, name: string, config?: TrustedConfig): { role: RoleDefinition; warnings: string[] } {
  const { roles, warnings } = availableRoles(repoDir, config);
  const role = roles.find((candidate) => candidate.name === name);
  if (!role) throw new Error(`unknown role ${JSON.stringify(name)}: the roles are ${roles.map((r) => r.name).join(', ')}`);
  return { role, warnings };
}

/** The role as it travels in a job payload. */
export function roleSpec(role: RoleDefinition): RoleSpec {
  const { description: _description, ...spec } = role;
  return { ...spec, mcpServers: role.mcpServers ?? [] };
}
