import { catalogTools } from '../shared/tools/catalog.js';
import type { RoleDefinition } from './role.js';
import { type RoleSet, type RoleSources, roleNamed, roleSet } from './roleSet.js';

export type { RoleSources } from './roleSet.js';
export { roleSpec } from './roleSpec.js';

/**
 * The roles a repository offers (roleSet.ts), every tool's module loaded: the built-in five, then
 * its `.claude/agents/**` files (from the trusted configuration when given, else from the
 * folder), then its plugins' agents.
 */
export function availableRoles(repoDir: string, sources: RoleSources = {}): RoleSet {
  return roleSet(repoDir, sources, catalogTools);
}

export function findRole(repoDir: string, name: string, sources: RoleSources = {}): { role: RoleDefinition; warnings: string[] } {
  return roleNamed(availableRoles(repoDir, sources), name);
}
