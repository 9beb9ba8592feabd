import type { ToolFacts } from '../shared/core/tool/toolFacts.js';
import type { RoleDefinition } from './role.js';
import { type RoleSources, roleNamed, roleSet } from './roleSet.js';

/**
 * `findRole` (roleCatalog.ts) for a command that has not loaded the tools: every tool's module
 * (about 40 % of `orca agent`'s module loading before its job is queued) is imported only when a
 * custom role needs the tools' facts, i.e. when the repository or a plugin has an agent file. The
 * roles found are the same either way: without an agent file the tools are never asked for, and
 * with one the set is made again with them (docs/benchmarks.md, the single agent).
 */
export async function findRoleLoadingTools(
  repoDir: string,
  name: string,
  sources: RoleSources,
): Promise<{ role: RoleDefinition; warnings: string[] }> {
  let wanted = false;
  const none = (): readonly ToolFacts[] => {
    wanted = true;
    return [];
  };
  const withoutTools = roleSet(repoDir, sources, none);
  if (!wanted) return roleNamed(withoutTools, name);
  const { catalogTools } = await import('../shared/tools/catalog.js');
  return roleNamed(roleSet(repoDir, sources, catalogTools), name);
}
