import { type AgentEvent, stamp } from '../../shared/core/events/agentEvent.js';
import type { AgentSession } from '../../shared/core/loop/session.js';
import { runToolCall, type ToolRunResult } from '../../shared/core/tool/pipeline.js';

/** Where an external agent's calls are recorded: the session's event writer and its turn. */
export interface CallRecording {
  record: (event: AgentEvent) => void;
  turn: () => number;
}

let calls = 0;

/**
 * One call an external agent made of orca's tools (over MCP, or ACP's file system and terminals),
 * run as orca's loop runs its own agents' calls: through the session's pipeline (hooks, the
 * permission rules, owned and guarded paths, the after-call watch, the check recorder), recorded
 * in the ledger the evidence is read from, its events in the transcript and on the board.
 */
export async function sessionToolCall(
  session: AgentSession,
  name: string,
  input: unknown,
  rec: CallRecording,
  /** Stops this call alone (an ACP terminal's kill), as the session's abort stops every call. */
  stop?: AbortSignal,
): Promise<ToolRunResult> {
  calls += 1;
  const id = `acp_${calls}`;
  const turn = rec.turn();
  rec.record(stamp({ type: 'tool_call', turn, id, name, input }));
  const ctx = stop ? { ...session.toolContext, signal: AbortSignal.any([session.toolContext.signal, stop]) } : session.toolContext;
  const run = await runToolCall({ id, name, input }, session.registry, session.slots, ctx);
  flushPending(session, rec.record);
  const isError = run.block.is_error === true;
  session.ledger.record({
    turn,
    id,
    name,
    tool: run.tool,
    input: run.input ?? input,
    isError,
    data: run.output?.data,
    spilledTo: run.spilledTo,
    at: Date.now(),
  });
  session.context.afterTool?.(session, {
    name,
    tool: run.tool,
    input: run.input ?? input,
    data: run.output?.data,
    isError,
    mayWrite: run.mayWrite,
  });
  return run;
}

/** The events tools and slots left pending, recorded now. */
export function flushPending(session: AgentSession, record: (event: AgentEvent) => void): void {
  for (const event of session.pending.splice(0)) record(stamp(event));
}
