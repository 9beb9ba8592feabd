import type { RoleSpec } from '../shared/infra/queue/agentJob.js';
import { catalogToolNames } from '../shared/policy/tools/catalog.js';
import { BUILTIN_ROLES } from './builtinRoles.js';
import { loadCustomRoles } from './customRoles.js';
import type { RoleDefinition } from './role.js';

/** The roles a repository offers: the built-in five, then its `.claude/agents/*.md`. */
export function availableRoles(repoDir: string): { roles: RoleDefinition[]; warnings: string[] } {
  const custom = loadCustomRoles(repoDir, [...catalogToolNames(), 'TaskCreate', 'TaskUpdate', 'TaskList']);
  return { roles: [...BUILTIN_ROLES, ...custom.roles], warnings: custom.warnings };
}

export function findRole(repoDir: string, name: string): { role: RoleDefinition; warnings: string[] } {
  const { roles, warnings } = availableRoles(repoDir);
  const role = roles.find((candidate) => candidate.name === name);
  if (!role) throw new Error(`unknown role ${JSON.stringify(name)}: the roles are ${roles.map((r) => r.name).join(', ')}`);
  return { role, warnings };
}

/** The role as it travels in a job payload. */
export function roleSpec(role: RoleDefinition): RoleSpec {
  const { description: _description, ...spec } = role;
  return { ...spec, mcpServers: role.mcpServers ?? [] };
}
