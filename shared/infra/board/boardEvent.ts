import type { ZodError } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { type AgentEvent, AgentEventSchema } from '../../core/events/agentEvent.js';
import { type RunEvent, RunEventSchema } from '../../core/events/runEvent.js';
import type { RunStreamEntry } from '../../core/events/runStreamEntry.js';
import { type WorkspaceEvent, WorkspaceEventSchema } from './workspaceEvent.js';

const AGENT_EVENT_TYPES = new Set<string>(AgentEventSchema.options.map((option) => option.shape.type.value));
const RUN_EVENT_TYPES = new Set<string>(RunEventSchema.options.map((option) => option.shape.type.value));

export type BoardEvent =
  | { source: 'run'; event: RunEvent }
  | { source: 'agent'; event: AgentEvent }
  | { source: 'workspace'; event: WorkspaceEvent }
  /** A type this version does not know (a newer worker's): it is kept on the stream, and only marks the run as alive. */
  | { source: 'unknown'; event: { type: string; at: number } };

/** The entry's event, checked against its schema; a known type that does not match is an error naming the field. */
export function parseBoardEvent(entry: RunStreamEntry): BoardEvent {
  const { type } = entry.event;
  const subject = `${entry.source} event ${type} of run ${entry.run_id}`;
  const check = <T>(result: { success: true; data: T } | { success: false; error: ZodError }): T => {
    if (!result.success) throw new Error(describeZodError(result.error, subject));
    return result.data;
  };
  if (entry.source === 'run' && RUN_EVENT_TYPES.has(type)) return { source: 'run', event: check(RunEventSchema.safeParse(entry.event)) };
  if (entry.source === 'agent' && type === 'workspace')
    return { source: 'workspace', event: check(WorkspaceEventSchema.safeParse(entry.event)) };
  if (entry.source === 'agent' && AGENT_EVENT_TYPES.has(type))
    return { source: 'agent', event: check(AgentEventSchema.safeParse(entry.event)) };
  return { source: 'unknown', event: entry.event };
}
