import { type AgentEvent, stamp } from '../events/agentEvent.js';
import type { AssistantBlock, ToolUseBlock } from '../model/message.js';
import type { StopReason } from '../model/model.js';
import { ModelError } from '../model/modelError.js';
import type { Usage } from '../model/usage.js';
import type { AgentSession, PreparedContext } from './session.js';

/** The model's answer in one turn, once its stream has ended with a final message. */
export interface TurnAnswer {
  /** Every block, in the order the model sent them: the assistant turn exactly as received. */
  content: AssistantBlock[];
  text: string;
  toolUses: ToolUseBlock[];
  /** Tool uses whose input did not parse, by id: what was wrong, for the model. */
  brokenInputs: Map<string, string>;
  stopReason: StopReason;
  usage: Usage;
  detail?: string;
}

/**
 * How one model call came out: a whole answer; the session aborted while it streamed; a failure
 * that ends the session (`failed`, its detail); or `overflow`, the conversation no longer fits the
 * model's window (what it cost so far, when the API said).
 */
export type TurnStream = { answer: TurnAnswer } | { aborted: true } | { failed: string } | { overflow: string; usage?: Usage };

/**
 * Streams the model's answer to the prepared request, passing its text on as it comes. A retried
 * call starts its answer over; a broken stream drops the partial answer whole, so no half-applied
 * turn reaches the history.
 */
export async function* streamTurn(session: AgentSession, request: PreparedContext): AsyncGenerator<AgentEvent, TurnStream> {
  let text = '';
  const content: AssistantBlock[] = [];
  const toolUses: ToolUseBlock[] = [];
  const brokenInputs = new Map<string, string>();
  let final: { stopReason: StopReason; usage: Usage; detail?: string } | undefined;
  try {
    const stream = session.model.stream(
      {
        system: request.system,
        messages: request.messages,
        tools: session.registry.specs(),
        cacheTools: request.cacheTools,
        staticTools: session.registry.staticCount(),
        maxTokens: session.limits.maxOutputTokens,
      },
      session.signal,
    );
    for await (const event of stream) {
      if (event.type === 'text_delta') {
        yield stamp({ type: 'text_delta', text: event.text });
      } else if (event.type === 'block') {
        content.push(event.block);
        if (event.block.type === 'text') text += event.block.text;
        if (event.block.type === 'tool_use') toolUses.push(event.block);
        if (event.block.type === 'tool_use' && event.inputError !== undefined) brokenInputs.set(event.block.id, event.inputError);
      } else if (event.type === 'notice') {
        yield stamp({ type: 'notice', level: event.level, message: event.message });
      } else if (event.type === 'retry') {
        text = '';
        content.length = 0;
        toolUses.length = 0;
        brokenInputs.clear();
        yield stamp({ type: 'notice', level: 'warn', message: `model call retried (attempt ${event.attempt}): ${event.reason}` });
      } else {
        final = { stopReason: event.stopReason, usage: event.usage, detail: event.detail };
      }
    }
  } catch (error) {
    if (session.signal.aborted) return { aborted: true };
    if (error instanceof ModelError && error.kind === 'context_window') return { overflow: error.message };
    const message = error instanceof Error ? error.message : String(error);
    return { failed: `model call failed: ${message}` };
  }
  if (!final?.usage || !final.stopReason) return { failed: 'the model stream ended without a final message' };
  if (final.stopReason === 'model_context_window_exceeded') {
    // What came is cut off where the window filled: dropped, like a broken stream.
    return {
      overflow: "the model's context window filled up during the answer (stop reason model_context_window_exceeded)",
      usage: final.usage,
    };
  }
  return { answer: { content, text, toolUses, brokenInputs, ...final } };
}
