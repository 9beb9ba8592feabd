import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../shared/core/boundary/zodIssues.js';
import { resolveModelAlias } from '../shared/core/model/modelAliases.js';
import { EffortSchema, ThinkingOptionSchema } from '../shared/core/model/thinking.js';
import type { PermissionMode } from '../shared/core/tool/permissionMode.js';
import { familyOf, type ToolFacts } from '../shared/core/tool/toolFacts.js';
import type { ClaudeCodePermissionMode } from '../shared/policy/hooks/hookInput.js';
import { REMEMBER_TOOL } from '../shared/tools/remember.js';
import { AGENT_KEYS, readAgentFrontMatter } from './agentFrontMatter.js';
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
  /** orca's own: what runs the role's agent (docs/agents.md): orca, a preset, or one of orca.json's agents. */
  agent: z.string().min(1).optional(),
  /** Claude Code's own: a worktree of its own is what orca gives every writing role. */
  isolation: z.literal('worktree', 'the only isolation is "worktree"').optional(),
  /** A display colour for Claude Code's interface; orca has no use for it. */
  color: z.string().optional(),
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
 * Claude Code agent fields orca reads but does not honour: each is named once, in a warning, for
 * the file that has it (the role still loads, without it).
 */
const NOT_SUPPORTED: Record<string, string> = {
  hooks: 'agent-scoped hooks are not supported; put them in .claude/settings.json',
  skills: 'preloading skills is not supported; the agent can load them with the Skill tool',
  memory: "Claude Code's agent memory folders are not supported; orca's memory is docs/memory.md",
  background: 'every orca agent runs as a job already; "background" has no effect',
  initialPrompt: 'an initial prompt is not supported; the task prompt is the first message',
};

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
const INHERITED_TOOLS = BUILTIN_ROLES.find((role) => role.name === 'worker')!.tools.filter((tool) => tool !== REMEMBER_TOOL);

export interface CustomRoleLoad {
  roles: RoleDefinition[];
  /** One line per file skipped or tool dropped, naming the file. */
  warnings: string[];
  /** Role name (its `name`, else the file's name) → why its file was skipped: said when the role is asked for. */
  skipped: Map<string, string>;
}

/** Every `.md` under `dir`, in subfolders too (as Claude Code scans `.claude/agents/`), sorted by path. */
function agentFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The mode of a role whose file names none: orca's run agents' (the built-in worker's) when it
 * has a tool that changes files or runs commands, else read-only.
 */
function inheritedMode(tools: readonly ToolFacts[]): PermissionMode {
  return tools.some((tool) => familyOf(tool) === 'edit' || familyOf(tool) === 'run') ? 'full-access' : 'read-only';
}

/**
 * Loads `.claude/agents/` (subfolders too) from a repository. A malformed file is skipped with a warning
 * naming it and what is wrong; a file naming a built-in role is skipped too (built-ins win).
 */
export function loadCustomRoles(repoDir: string, knownTools: readonly ToolFacts[]): CustomRoleLoad {
  return loadAgentFolder(path.join(repoDir, '.claude', 'agents'), knownTools);
}

/** The agent files of one folder (a project's `.claude/agents`, a plugin's `agents`), in subfolders too. */
export function loadAgentFolder(dir: string, knownTools: readonly ToolFacts[], taken: readonly string[] = []): CustomRoleLoad {
  return customRolesFrom(
    agentFiles(dir).map((source) => ({ source, text: readFileSync(source, 'utf8') })),
    knownTools,
    taken,
  );
}

/**
 * The same from the files' text (the trusted configuration sends `.claude/agents/**\/*.md` as read
 * at the base commit), each named by `source` in roles and warnings; in the order given. A role
 * named in `taken` (one loaded before) is skipped. `knownTools` are the tools a role may name:
 * their facts give a role without a mode its mode, and its output and workspace.
 */
export function customRolesFrom(
  files: ReadonlyArray<{ source: string; text: string }>,
  knownTools: readonly ToolFacts[],
  taken: readonly string[] = [],
): CustomRoleLoad {
  const roles: RoleDefinition[] = [];
  const warnings: string[] = [];
  const skipped = new Map<string, string>();
  const skip = (source: string, name: string, why: string) => {
    warnings.push(`${source}: skipped, ${why}`);
    if (!skipped.has(name)) skipped.set(name, `${source} was skipped: ${why}`);
  };
  for (const { source, text } of files) {
    const stem = path.basename(source, '.md');
    let parsed: { data: Record<string, unknown>; body: string };
    try {
      parsed = readAgentFrontMatter(text);
    } catch (error) {
      skip(source, stem, (error as Error).message);
      continue;
    }
    const named = typeof parsed.data.name === 'string' ? parsed.data.name : stem;
    const front = AgentFileSchema.safeParse(parsed.data);
    if (!front.success) {
      skip(source, named, describeZodError(front.error, 'its front matter'));
      continue;
    }
    const unsupported = Object.keys(NOT_SUPPORTED).filter((key) => parsed.data[key] !== undefined);
    for (const key of unsupported) warnings.push(`${source}: ${key}: not supported by orca, ignored: ${NOT_SUPPORTED[key]}`);
    const unknownKeys = Object.keys(parsed.data).filter((key) => !(AGENT_KEYS as readonly string[]).includes(key));
    if (unknownKeys.length > 0) warnings.push(`${source}: unknown front-matter keys ignored: ${unknownKeys.join(', ')}`);
    const agent = front.data;
    if (
      BUILTIN_ROLES.some((role) => role.name === agent.name) ||
      roles.some((role) => role.name === agent.name) ||
      taken.includes(agent.name)
    ) {
      warnings.push(`${source}: skipped, a role named ${agent.name} already exists`);
      continue;
    }
    const prompt = parsed.body.trim();
    if (!prompt) {
      skip(source, agent.name, 'it has no prompt below its front matter');
      continue;
    }
    const wanted = agent.tools ?? INHERITED_TOOLS;
    const known = (name: string) => knownTools.find((tool) => tool.name === name);
    const unknown = wanted.filter((name) => !known(name));
    if (unknown.length > 0) warnings.push(`${source}: tools orca does not have were left out: ${unknown.join(', ')}`);
    const tools = wanted.filter((name) => known(name) && !(agent.disallowedTools ?? []).includes(name));
    const facts = tools.map((name) => known(name)!);
    // As in Claude Code, a file that names no mode runs in the mode of the run it is part of.
    const mode = agent.permissionMode ? MODES[agent.permissionMode]! : inheritedMode(facts);
    const writes = mode !== 'read-only' && facts.some((tool) => familyOf(tool) === 'edit');
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
      ...(agent.agent ? { agent: agent.agent } : {}),
      ...(agent.permissionMode ? { claudeMode: agent.permissionMode as ClaudeCodePermissionMode } : {}),
    });
  }
  return { roles, warnings, skipped };
}
