import { z } from 'zod';
import { type AcpAgent, AcpAgentSchema, type AgentBackend, ORCA_BACKEND } from './agentBackend.js';
import { PRESETS } from './presets.js';

/** orca.json's `agents`: ACP commands named by the project, as a preset describes itself (without `kind` and `name`). */
export const ProjectAgentsSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'an agent name is lower-case letters, digits and dashes'),
  AcpAgentSchema.omit({ kind: true, name: true }),
);
export type ProjectAgents = z.infer<typeof ProjectAgentsSchema>;

/** Which agent runs which role, by role name (lower-case); a bare name is the Worker's. */
export const AgentChoiceSchema = z.union([z.string().min(1), z.record(z.string().min(1), z.string().min(1))]);
export type AgentChoice = z.infer<typeof AgentChoiceSchema>;

/** The role a bare `--agent NAME` (or orca.json's `"agent": "NAME"`) is for. */
const DEFAULT_ROLE = 'worker';

/** `--agent claude-code` (for `bareRole`) or `--agent worker=claude-code,verification=orca`: agent names by role. */
export function parseAgentOption(
  value: string,
  bareRole = DEFAULT_ROLE,
): { ok: true; byRole: Record<string, string> } | { ok: false; problem: string } {
  const byRole: Record<string, string> = {};
  for (const part of value.split(',').map((item) => item.trim())) {
    if (!part) continue;
    const [role, name, extra] = part.includes('=') ? part.split('=').map((item) => item.trim()) : [bareRole, part];
    if (!role || !name || extra !== undefined) {
      return {
        ok: false,
        problem: `--agent ${JSON.stringify(value)}: write NAME or ROLE=NAME[,ROLE=NAME…], e.g. worker=claude-code,verification=orca`,
      };
    }
    byRole[role.toLowerCase()] = name;
  }
  if (Object.keys(byRole).length === 0) return { ok: false, problem: '--agent needs an agent name: orca, or one of docs/agents.md' };
  return { ok: true, byRole };
}

/** A choice as agent names by role. */
export function choiceByRole(choice: AgentChoice | undefined): Record<string, string> {
  if (choice === undefined) return {};
  if (typeof choice === 'string') return { [DEFAULT_ROLE]: choice };
  return Object.fromEntries(Object.entries(choice).map(([role, name]) => [role.toLowerCase(), name]));
}

/** The agent a name means: `orca`, one of orca.json's `agents` (they win over a preset of the same name), or a preset. */
export function agentNamed(name: string, project: ProjectAgents = {}): AgentBackend | { problem: string } {
  if (name === 'orca') return ORCA_BACKEND;
  const own = project[name];
  if (own) return { ...AcpAgentSchema.parse({ ...own, kind: 'acp', name }) };
  const preset = PRESETS.find((agent) => agent.name === name);
  if (preset) return { ...preset };
  const known = ['orca', ...PRESETS.map((agent) => agent.name), ...Object.keys(project)].join(', ');
  return {
    problem: `no agent named ${JSON.stringify(name)}: use one of ${known}, or name its ACP command in orca.json's "agents" (docs/agents.md)`,
  };
}

/** Where a role's agent is chosen, strongest first. */
export interface AgentSources {
  /** `--agent` of the command. */
  option: Record<string, string>;
  /** The role file's `agent:`. */
  roleFile?: string;
  /** orca.json's `agent`. */
  project: Record<string, string>;
  /** orca.json's `agents`. */
  defined?: ProjectAgents;
}

/**
 * The agent that runs `role` (for a plan subtask, `subtask`): `--agent` for the subtask
 * (`worker/ID=NAME`) or the role, else its role file's `agent:`, else orca.json's, else orca's own.
 */
export function agentForRole(role: string, sources: AgentSources, subtask?: string): AgentBackend | { problem: string } {
  const key = role.toLowerCase();
  const forTask = subtask === undefined ? undefined : `${key}/${subtask.toLowerCase()}`;
  const name =
    (forTask && (sources.option[forTask] ?? sources.project[forTask])) ?? sources.option[key] ?? sources.roleFile ?? sources.project[key];
  return name === undefined ? ORCA_BACKEND : agentNamed(name, sources.defined);
}

export type { AcpAgent };
