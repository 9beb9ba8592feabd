import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { builtinRole } from '../../roles/builtinRoles.js';
import { roleSpec } from '../../roles/roleCatalog.js';
import type { ScriptTurn } from '../../shared/model/scriptFile.js';
import type { AgentJobInput, RoleSpec } from '../../shared/queue/agentJob.js';
import type { Keys } from '../../shared/queue/keys.js';
import { readRunEvents } from '../../shared/queue/runEvents.js';

/** A run id of this test's own (slug-safe). */
export function testRunId(label: string): string {
  return `${label}-${randomBytes(3).toString('hex')}`;
}

/**
 * An agent job for a built-in role (the worker by default) whose model is a Scripted one playing
 * `turns`: what a coordinator would enqueue, with the role changed only where `role` says.
 */
export function scriptedJob(options: {
  runId: string;
  taskId: string;
  repo: { path: string } | { remote: string };
  base: string;
  turns: ScriptTurn[];
  role?: Partial<RoleSpec>;
  roleName?: string;
  env?: Record<string, string>;
  fileState?: AgentJobInput['file_state'];
  ports?: number;
}): AgentJobInput {
  const builtin = builtinRole(options.roleName ?? 'worker');
  if (!builtin) throw new Error(`no built-in role ${options.roleName}`);
  const role = { ...roleSpec(builtin), ...options.role };
  return {
    run_id: options.runId,
    task_id: options.taskId,
    role,
    prompt: `test task ${options.taskId}`,
    repo: options.repo,
    base: options.base,
    branch: role.workspace === 'branch' ? `orca/${options.runId}/${options.taskId}` : undefined,
    model: { script: { latency_ms: 0, agents: [{ when: { role: role.name }, turns: options.turns }] } },
    env: options.env ?? {},
    file_state: options.fileState ?? [],
    ports: options.ports,
  };
}

/** The worker role's closing turn. */
export function reportTurn(summary = 'done'): ScriptTurn {
  return { tools: [{ name: 'Report', input: { summary, unresolved: [], claimed_checks: [] } }] };
}

export function toolTurn(name: string, input: Record<string, unknown>): ScriptTurn {
  return { tools: [{ name, input }] };
}

export interface ToolOutcome {
  name: string;
  input: Record<string, unknown>;
  isError: boolean;
  preview: string;
}

/** Every tool call of a task as the run's event stream recorded it, with how it came back. */
export async function toolOutcomes(redis: Redis, keys: Keys, runId: string, taskId: string): Promise<ToolOutcome[]> {
  const events = (await readRunEvents(redis, keys, runId, '0', 100_000)).map(({ entry }) => entry).filter((entry) => entry.task_id === taskId);
  const results = new Map<string, { is_error: boolean; preview: string }>();
  for (const { event } of events) {
    if (event.type === 'tool_result') results.set(String(event.id), { is_error: Boolean(event.is_error), preview: String(event.preview) });
  }
  return events
    .map(({ event }) => event)
    .filter((event) => event.type === 'tool_call')
    .map((event) => {
      const result = results.get(String(event.id));
      return { name: String(event.name), input: event.input as Record<string, unknown>, isError: result?.is_error ?? true, preview: result?.preview ?? '(no result)' };
    });
}
