import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import matter from 'gray-matter';
import { z } from 'zod';
import { describeZodError } from '../shared/core/boundary/zodIssues.js';
import { resolveModelAlias } from '../shared/core/model/modelAliases.js';
import { EffortSchema, ThinkingOptionSchema } from '../shared/core/model/thinking.js';
import type { PermissionMode } from '../shared/core/tool/permissionMode.js';
import { BUILTIN_ROLES } from './builtinRoles.js';
import type { RoleDefinition } from './role.js';

/** A list written as YAML (`[Read, Grep]`) or Claude Code's comma string (`Read, Grep`). */
const ToolList = z
  .union([z.array(z.string()), z.string()])
  .transform((value) => (Array.isArray(value) ? value : value.split(',')).map((name) => name.trim()).filter(Boolean));

/** The front matter of a Claude Code subagent file, as orca reads it. */
const AgentFileSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lowercase letters, digits and hyphens'),
  description: z.string().min(1),
  tools: ToolList.optional(),
  disallowedTools: ToolList.optional(),
  model: z.string().min(1).optional(),
  /** orca's own fields: how the role's model thinks, and its effort level. */
  thinking: ThinkingOptionSchema.optional(),
  effort: EffortSchema.optional(),
  permissionMode: z.enum(['default', 'acceptEdits', 'dontAsk', 'bypassPermissions', 'plan']).optional(),
  maxTurns: z.number().int().positive().optional(),
  /**
   * Claude Code's `mcpServers`: a list of configured servers' names and inline definitions
   * (`- github` or `- name: { command: … }`), or one map of names to definitions.
   */
  mcpServers: z
    .union([
      z.array(z.union([z.string().min(1), z.record(z.string(), z.unknown())])),
      z
        .record(z.string(), z.record(z.string(), z.unknown()))
        .transform((map) => Object.entries(map).map(([name, config]) => ({ [name]: config }))),
    ])
    .optional(),
});

/**
 * Claude Code's permission modes in orca's ordered modes. Bash needs full access; under
 * `default` and `acceptEdits` a Bash call is then decided by the settings' allow rules, since
 * nobody is there to answer a prompt.
 */
const MODES: Record<string, PermissionMode> = {
  plan: 'read-only',
  dontAsk: 'read-only',
  default: 'workspace-write',
  acceptEdits: 'workspace-write',
  bypassPermissions: 'full-access',
};

/**
 * The tools a custom role without a `tools` list inherits: everything a worker has but Remember,
 * which keeps cards every later session is shown (docs/memory.md): a role has it only by naming it.
 */
const INHERITED_TOOLS = BUILTIN_ROLES.find((role) => role.name === 'worker')!.tools.filter((tool) => tool !== 'Remember');

export interface CustomRoleLoad {
  roles: RoleDefinition[];
  /** One line per file skipped or tool dropped, naming the file. */
  warnings: string[];
}

/**
 * Loads `.claude/agents/*.md` from a repository. A malformed file is skipped with a warning
 * naming it and what is wrong; a file naming a built-in role is skipped too (built-ins win).
 */
export function loadCustomRoles(repoDir: string, knownTools: readonly string[]): CustomRoleLoad {
  const dir = path.join(repoDir, '.claude', 'agents');
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((name) => name.endsWith('.md'))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { roles: [], warnings: [] };
    throw error;
  }
  return customRolesFrom(
    files.map((file) => ({ source: path.join(dir, file), text: readFileSync(path.join(dir, file), 'utf8') })),
    knownTools,
  );
}

/**
 * The same from the files' text (the trusted configuration sends `.claude/agents/*.md` as read at
 * the base commit), each named by `source` in roles and warnings; in the order given.
 */
export function customRolesFrom(files: ReadonlyArray<{ source: string; text: string }>, knownTools: readonly string[]): CustomRoleLoad {
  const roles: RoleDefinition[] = [];
  const warnings: string[] = [];
  for (const { source, text } of files) {
    let parsed: matter.GrayMatterFile<string>;
    try {
      parsed = matter(text);
    } catch (error) {
      warnings.push(`${source}: skipped, its front matter is not valid YAML (${(error as Error).message.split('\n')[0]})`);
      continue;
    }
    const front = AgentFileSchema.safeParse(parsed.data);
    if (!front.success) {
      warnings.push(`${source}: skipped, ${describeZodError(front.error, 'its front matter')}`);
      continue;
    }
    const agent = front.data;
    if (BUILTIN_ROLES.some((role) => role.name === agent.name) || roles.some((role) => role.name === agent.name)) {
      warnings.push(`${source}: skipped, a role named ${agent.name} already exists`);
      continue;
    }
    const prompt = parsed.content.trim();
    if (!prompt) {
      warnings.push(`${source}: skipped, it has no prompt below its front matter`);
      continue;
    }
    const wanted = agent.tools ?? INHERITED_TOOLS;
    const unknown = wanted.filter((tool) => !knownTools.includes(tool));
    if (unknown.length > 0) warnings.push(`${source}: tools orca does not have were left out: ${unknown.join(', ')}`);
    const tools = wanted.filter((tool) => knownTools.includes(tool) && !(agent.disallowedTools ?? []).includes(tool));
    const mode = MODES[agent.permissionMode ?? 'default']!;
    const writes = mode !== 'read-only' && tools.some((tool) => tool === 'Edit' || tool === 'Write');
    roles.push({
      name: agent.name,
      description: agent.description,
      prompt,
      tools,
      mode,
      model: agent.model ? resolveModelAlias(agent.model) : undefined,
      thinking: agent.thinking,
      effort: agent.effort,
      limits: agent.maxTurns ? { maxTurns: agent.maxTurns } : {},
      output: writes ? 'worker' : 'explore',
      workspace: writes ? 'branch' : 'view',
      sandbox: true,
      mcpServers: agent.mcpServers ?? [],
      source,
    });
  }
  return { roles, warnings };
}
