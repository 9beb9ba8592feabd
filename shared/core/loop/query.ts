import { stamp, type AgentEvent, type AgentEventInput, type EndReason } from '../events/agentEvent.js';
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../model/message.js';
import type { StopReason } from '../model/model.js';
import { ModelError } from '../model/modelError.js';
import { addUsage, totalInputTokens, type Usage } from '../model/usage.js';
import { runToolCall } from '../tool/pipeline.js';
import { REPORT_TOOL } from '../tool/report.js';
import { SessionAbort, type AgentSession } from './session.js';

export interface AgentResult {
  reason: EndReason;
  detail: string;
  /** The accepted Report input, when the session ended with one. */
  report?: unknown;
  turns: number;
  usage: Usage;
  costUsd: number;
}

/**
 * The agent loop for one task: assemble the request, stream the model's answer, run the tools it
 * asked for, append their results, repeat. Yields every event as it happens and returns how the
 * session ended. It always ends with an `end` event naming its reason; nothing stops silently.
 */
export async function* query(session: AgentSession, prompt: string): AsyncGenerator<AgentEvent, AgentResult> {
  const { limits } = session;
  const signal = session.signal;
  const remaining = limits.wallClockMs - (Date.now() - session.startedAt);
  const wallClock = setTimeout(() => session.abortController.abort(new SessionAbort('wall_clock')), Math.max(0, remaining));
  let reportAttempts = 0;
  let stopContinuation = false;

  const flush = function* (): Generator<AgentEvent> {
    while (session.pending.length > 0) yield stamp(session.pending.shift()!);
  };
  const end = function* (reason: EndReason, detail: string, report?: unknown): Generator<AgentEvent, AgentResult> {
    clearTimeout(wallClock);
    yield* flush();
    const result: AgentResult = { reason, detail, report, turns: session.turns, usage: session.usage, costUsd: session.costUsd };
    yield stamp({ type: 'end', reason, detail, turns: session.turns, usage: session.usage, cost_usd: session.costUsd, report });
    return result;
  };
  const endAborted = function* (): Generator<AgentEvent, AgentResult> {
    const why = signal.reason instanceof SessionAbort ? signal.reason.why : String(signal.reason ?? 'aborted');
    if (why === 'wall_clock') return yield* end('wall_clock', `wall clock limit of ${limits.wallClockMs} ms reached`);
    return yield* end('aborted', `aborted: ${why}`);
  };

  try {
    yield stamp({
      type: 'session_start',
      session_id: session.id,
      role: session.role,
      model: session.model.id,
      scripted: session.model.scripted,
      cwd: session.workspace.root,
    });
    session.messages.push({ role: 'user', content: [{ type: 'text', text: prompt }] });

    for (;;) {
      if (signal.aborted) return yield* endAborted();
      if (session.turns >= limits.maxTurns) return yield* end('max_turns', `reached the limit of ${limits.maxTurns} turns`);
      session.turns += 1;
      const turn = session.turns;
      yield stamp({ type: 'turn_start', turn });

      const prepared = await session.context.prepare(session);
      yield* flush();

      let text = '';
      const toolUses: ToolUseBlock[] = [];
      let stopReason: StopReason | undefined;
      let usage: Usage | undefined;
      try {
        const stream = session.model.stream(
          {
            system: prepared.system,
            messages: prepared.messages,
            tools: session.registry.specs(),
            cacheTools: prepared.cacheTools,
            maxTokens: limits.maxOutputTokens,
          },
          signal,
        );
        for await (const event of stream) {
          if (event.type === 'text_delta') {
            text += event.text;
            yield stamp({ type: 'text_delta', text: event.text });
          } else if (event.type === 'tool_use') {
            toolUses.push({ type: 'tool_use', id: event.id, name: event.name, input: event.input });
          } else if (event.type === 'retry') {
            text = '';
            toolUses.length = 0;
            yield stamp({ type: 'notice', level: 'warn', message: `model call retried (attempt ${event.attempt}): ${event.reason}` });
          } else {
            stopReason = event.stopReason;
            usage = event.usage;
          }
        }
      } catch (error) {
        // The partial answer is dropped whole: no half-applied turn reaches the history.
        if (signal.aborted) return yield* endAborted();
        const message = error instanceof ModelError ? error.message : error instanceof Error ? error.message : String(error);
        return yield* end('error', `model call failed: ${message}`);
      }
      if (!usage || !stopReason) return yield* end('error', 'the model stream ended without a final message');

      const cost = session.model.cost(usage);
      session.usage = addUsage(session.usage, usage);
      session.costUsd += cost;
      yield stamp({ type: 'usage', turn, usage, cost_usd: cost, total: session.usage, total_cost_usd: session.costUsd });

      const content: ContentBlock[] = [];
      if (text) content.push({ type: 'text', text });
      content.push(...toolUses);
      if (content.length > 0) session.messages.push({ role: 'assistant', content });
      if (text) yield stamp({ type: 'assistant_text', turn, text });

      const spent = totalInputTokens(session.usage) + session.usage.output_tokens;
      if (spent >= limits.maxTokens) return yield* end('token_budget', `used ${spent} tokens of a budget of ${limits.maxTokens}`);
      if (session.costUsd >= limits.maxCostUsd) {
        return yield* end('cost_budget', `spent $${session.costUsd.toFixed(4)} of a budget of $${limits.maxCostUsd}`);
      }

      if (toolUses.length === 0) {
        if (stopReason === 'max_tokens') {
          session.messages.push(userText('Your answer was cut off at the output limit. Continue, in smaller steps.'));
          continue;
        }
        const more = await session.stopCheck?.beforeStop(session, { reason: 'no_tool_use', active: stopContinuation });
        yield* flush();
        if (more) {
          stopContinuation = true;
          session.messages.push(userText(more));
          continue;
        }
        return yield* end('no_tool_use', `the model stopped without calling ${REPORT_TOOL}`);
      }
      stopContinuation = false;

      const results: ToolResultBlock[] = [];
      const additional: string[] = [];
      let report: { input: unknown } | undefined;
      let hookStop: string | undefined;
      for (const use of toolUses) {
        if (signal.aborted) {
          results.push({ type: 'tool_result', tool_use_id: use.id, content: `${use.name} was not run: the session was aborted.`, is_error: true });
          continue;
        }
        yield stamp({ type: 'tool_call', turn, id: use.id, name: use.name, input: use.input });
        const run = await runToolCall(use, session.registry, session.slots, session.toolContext);
        yield* flush();
        results.push(run.block);
        session.ledger.record({
          turn,
          id: use.id,
          name: use.name,
          input: run.input ?? use.input,
          isError: run.block.is_error === true,
          data: run.output?.data,
          spilledTo: run.spilledTo,
          at: Date.now(),
        });
        additional.push(...run.additionalContext);
        hookStop ??= run.stop;
        session.context.afterTool?.(session, { name: use.name, input: run.input ?? use.input, data: run.output?.data, isError: run.block.is_error === true, mayWrite: run.mayWrite });
        if (use.name === REPORT_TOOL) {
          if (run.block.is_error) {
            reportAttempts += 1;
            yield stamp({ type: 'report_rejected', attempt: reportAttempts, error: run.block.content });
          } else {
            report = { input: run.input };
          }
        }
      }
      const resultMessage: Message = { role: 'user', content: [...results] };
      for (const text of additional) resultMessage.content.push({ type: 'text', text });
      session.messages.push(resultMessage);

      if (signal.aborted) return yield* endAborted();
      if (hookStop) return yield* end('stopped_by_hook', `a hook stopped the session: ${hookStop}`);
      if (report) {
        const more = await session.stopCheck?.beforeStop(session, { reason: 'report', active: stopContinuation, report: report.input });
        yield* flush();
        if (more) {
          stopContinuation = true;
          session.messages.push(userText(more));
          continue;
        }
        return yield* end('report', 'the agent reported', report.input);
      }
      if (reportAttempts >= limits.maxReportAttempts) {
        return yield* end('error', `${REPORT_TOOL} was refused ${reportAttempts} times; the last error: ${results.find((r) => r.is_error)?.content ?? ''}`);
      }
    }
  } finally {
    clearTimeout(wallClock);
  }
}

function userText(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** Runs a session to its end, handing each event to `onEvent`; returns how it ended. */
export async function runSession(
  session: AgentSession,
  prompt: string,
  onEvent: (event: AgentEvent) => void = () => {},
): Promise<AgentResult> {
  const loop = query(session, prompt);
  for (;;) {
    const next = await loop.next();
    if (next.done) return next.value;
    onEvent(next.value);
  }
}

export type { AgentEventInput };
