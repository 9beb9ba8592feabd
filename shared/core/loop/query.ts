import { type AgentEvent, type AgentEventInput, type EndReason, stamp } from '../events/agentEvent.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/message.js';
import type { StopReason } from '../model/model.js';
import { addUsage, type Usage } from '../model/usage.js';
import { groupedNumber } from '../text/groupedNumber.js';
import { type BatchCall, runToolCall } from '../tool/pipeline.js';
import { REPORT_TOOL } from '../tool/report.js';
import { loadDescription } from '../tool/tool.js';
import { type AgentSession, type PreparedContext, SessionAbort, type StopInfo } from './session.js';
import { streamTurn, type TurnAnswer } from './turnStream.js';

export interface AgentResult {
  reason: EndReason;
  detail: string;
  /** The accepted Report input, when the session ended with one. */
  report?: unknown;
  turns: number;
  usage: Usage;
  costUsd: number;
  /** False when the agent did not say what it spent (an ACP agent may not): usage and cost are zero then, not measured. */
  usageReported?: boolean;
}

/**
 * The agent loop for one task: assemble the request, stream the model's answer, run the tools it
 * asked for, append their results, repeat. Yields every event as it happens and returns how the
 * session ended. It always ends with an `end` event naming its reason; nothing stops silently.
 */
export async function* query(session: AgentSession, prompt: string): AsyncGenerator<AgentEvent, AgentResult> {
  const loop = new AgentLoop(session);
  try {
    yield* loop.startSession(prompt);
    for (;;) {
      const limit = loop.limitBeforeTurn();
      if (limit) return yield* loop.end(limit);
      yield* loop.startTurn();
      let streamed = yield* loop.streamTurn(yield* loop.prepareRequest());
      // The conversation outgrew the model's window: compacted once, the turn is tried again.
      while ('overflow' in streamed) {
        if (streamed.usage) yield* loop.chargeUsage(streamed.usage);
        const ending = yield* loop.compactAfterOverflow(streamed.overflow);
        if (ending) return yield* loop.end(ending);
        streamed = yield* loop.streamTurn(yield* loop.prepareRequest());
      }
      if ('ending' in streamed) return yield* loop.end(streamed.ending);
      const { answer } = streamed;
      yield* loop.chargeUsage(answer.usage);
      yield* loop.appendAnswer(answer);
      if (answer.stopReason === 'refusal') return yield* loop.end(refusalEnding(answer.detail));
      if (answer.toolUses.length === 0) {
        const stop = yield* loop.handleStop(answer.stopReason);
        if (stop) return yield* loop.end(stop);
      } else {
        const round = yield* loop.runToolCalls(answer);
        const after = yield* loop.checkAfterTools(round);
        if (after) return yield* loop.end(after);
      }
      // A spent budget ends the session only after one last turn in which the model is asked to Report.
      const overBudget = loop.budgetSpent();
      if (overBudget) return yield* loop.end(overBudget);
    }
  } finally {
    loop.stopWallClock();
  }
}

/** Why the session ends; `AgentLoop.end` turns it into the `end` event and the result. */
interface Ending {
  reason: EndReason;
  detail: string;
  report?: unknown;
}

/** What the model is told once, when a budget or the turn limit is reached, before the session ends. */
export const LIMIT_REACHED = loadDescription(import.meta.url, './limitReached.md');

/** Tool inputs in a row that are not valid JSON before the session gives up on the model. */
export const MAX_BROKEN_TOOL_INPUTS = 3;

/** What one turn's tool calls came to. */
interface ToolRound {
  results: ToolResultBlock[];
  /** Text the hooks added for the model, sent after the results. */
  additional: string[];
  /** The Report that was accepted, if one was. */
  report?: { input: unknown };
  /** The first hook's request to stop the session. */
  hookStop?: string;
  /** The calls that ran, for the after-batch slot. */
  calls: BatchCall[];
}

/**
 * The steps of the loop, over one session and what lives only while `query` runs: the wall
 * clock, the refused Reports, and whether the model is going on because a stop check sent it back.
 * A step that may end the session returns an Ending (or undefined to go on); the outline ends it.
 */
class AgentLoop {
  private readonly wallClock: NodeJS.Timeout;
  private reportAttempts = 0;
  private stopContinuation = false;
  /** Whether the model was already given its last turn to Report in, at a budget or the turn limit. */
  private lastTurnGiven = false;
  private turn = 0;
  /** Tool inputs that did not parse, in a row. */
  private brokenInputs = 0;
  /** Whether this turn already compacted because the conversation outgrew the model's window. */
  private compactedForOverflow = false;

  constructor(private readonly session: AgentSession) {
    const remaining = session.limits.wallClockMs - (Date.now() - session.startedAt);
    this.wallClock = setTimeout(() => session.abortController.abort(new SessionAbort('wall_clock')), Math.max(0, remaining));
  }

  *startSession(prompt: string): Generator<AgentEvent> {
    const { session } = this;
    yield stamp({
      type: 'session_start',
      session_id: session.id,
      role: session.role,
      model: session.model.id,
      scripted: session.model.scripted,
      cwd: session.workspace.root,
    });
    session.messages.push(userText(prompt));
  }

  /** An abort, or the turn limit reached (after the one last turn to Report in), before another turn starts. */
  limitBeforeTurn(): Ending | undefined {
    if (this.session.signal.aborted) return this.abortEnding();
    const { maxTurns } = this.session.limits;
    if (this.session.turns >= maxTurns) {
      return this.lastTurnOr({ reason: 'max_turns', detail: `reached the limit of ${maxTurns} turns` }, `the limit of ${maxTurns} turns`);
    }
    return undefined;
  }

  *startTurn(): Generator<AgentEvent> {
    this.compactedForOverflow = false;
    this.session.turns += 1;
    this.turn = this.session.turns;
    yield stamp({ type: 'turn_start', turn: this.turn });
  }

  /** The context layer builds the request (compacting as it needs); its events come out first. */
  async *prepareRequest(): AsyncGenerator<AgentEvent, PreparedContext> {
    const prepared = await this.session.context.prepare(this.session);
    yield* this.flush();
    return prepared;
  }

  /**
   * Streams the model's answer; a failed call ends the session, except one that says the
   * conversation no longer fits the model's window (`overflow`).
   */
  async *streamTurn(
    request: PreparedContext,
  ): AsyncGenerator<AgentEvent, { answer: TurnAnswer } | { ending: Ending } | { overflow: string; usage?: Usage }> {
    const streamed = yield* streamTurn(this.session, request);
    if ('aborted' in streamed) return { ending: this.abortEnding() };
    if ('failed' in streamed) return { ending: { reason: 'error', detail: streamed.failed } };
    return streamed;
  }

  /**
   * The API said the conversation does not fit: the context layer compacts it now, whatever its
   * thresholds say, and the turn is tried again. Once per turn; a second time, or a compaction
   * that cannot be done, ends the session saying which.
   */
  async *compactAfterOverflow(why: string): AsyncGenerator<AgentEvent, Ending | undefined> {
    const { session } = this;
    if (this.compactedForOverflow) {
      return { reason: 'error', detail: `model call failed: ${why}, even after a reactive compaction of the conversation` };
    }
    this.compactedForOverflow = true;
    if (!session.context.compactNow) {
      return { reason: 'error', detail: `model call failed: ${why}; this session has no compaction to make it fit` };
    }
    const outcome = await session.context.compactNow(session, why);
    yield* this.flush();
    if (!outcome.ok) return { reason: 'error', detail: `model call failed: ${why}; reactive compaction failed: ${outcome.reason}` };
    yield stamp({ type: 'notice', level: 'info', message: `${why}: compacted the conversation, trying the turn again` });
    return undefined;
  }

  *chargeUsage(usage: Usage): Generator<AgentEvent> {
    const { session } = this;
    const cost = session.model.cost(usage);
    session.usage = addUsage(session.usage, usage);
    session.costUsd += cost;
    yield stamp({ type: 'usage', turn: this.turn, usage, cost_usd: cost, total: session.usage, total_cost_usd: session.costUsd });
  }

  /** The answer goes into the history exactly as it came, thinking included; its thinking goes to the transcript. */
  *appendAnswer({ content, text }: TurnAnswer): Generator<AgentEvent> {
    if (content.length > 0) this.session.messages.push({ role: 'assistant', content: [...content] });
    for (const block of content) {
      if (block.type === 'thinking') yield stamp({ type: 'thinking', turn: this.turn, text: block.thinking, redacted: false });
      if (block.type === 'redacted_thinking') yield stamp({ type: 'thinking', turn: this.turn, text: '', redacted: true });
    }
    if (text) yield stamp({ type: 'assistant_text', turn: this.turn, text });
  }

  /** The token or cost budget, once the session has spent it and had its last turn to Report in. */
  budgetSpent(): Ending | undefined {
    const { session } = this;
    const { limits } = session;
    const spent = session.tokensSpent();
    if (spent >= limits.maxTokens) {
      return this.lastTurnOr(
        { reason: 'token_budget', detail: `used ${spent} tokens of a budget of ${limits.maxTokens}` },
        `your token budget (${groupedNumber(spent)} of ${groupedNumber(limits.maxTokens)} tokens used)`,
      );
    }
    if (session.costUsd >= limits.maxCostUsd) {
      return this.lastTurnOr(
        { reason: 'cost_budget', detail: `spent $${session.costUsd.toFixed(4)} of a budget of $${limits.maxCostUsd}` },
        `your cost budget ($${session.costUsd.toFixed(2)} of $${limits.maxCostUsd.toFixed(2)} spent)`,
      );
    }
    return undefined;
  }

  /**
   * A limit is reached: the first time, the model is told so and gets one more turn, in which a
   * Report still ends the session well (limitReached.md); after that turn, the session ends.
   */
  private lastTurnOr(ending: Ending, what: string): Ending | undefined {
    if (this.lastTurnGiven) return ending;
    this.lastTurnGiven = true;
    this.session.messages.push(userText(LIMIT_REACHED.replace('{limit}', what)));
    this.session.pending.push({ type: 'notice', level: 'warn', message: `${ending.detail}: the agent has one last turn to Report in` });
    return undefined;
  }

  /** An answer without tool calls: cut off, it is asked for the rest; else it ends, unless a stop check sends it back. */
  async *handleStop(stopReason: StopReason): AsyncGenerator<AgentEvent, Ending | undefined> {
    // The API paused a long turn: the paused answer, sent back as it is, lets the model go on.
    if (stopReason === 'pause_turn') return undefined;
    if (stopReason === 'max_tokens') {
      this.session.messages.push(userText('Your answer was cut off at the output limit. Continue, in smaller steps.'));
      return undefined;
    }
    if (yield* this.sentBackByStopCheck({ reason: 'no_tool_use' })) return undefined;
    return { reason: 'no_tool_use', detail: `the model stopped without calling ${REPORT_TOOL}` };
  }

  /**
   * Runs the calls in order (none once the session is aborted) and appends their results as one
   * user message. A call whose input did not parse is not run: its result tells the model what was wrong.
   */
  async *runToolCalls({ toolUses, brokenInputs }: TurnAnswer): AsyncGenerator<AgentEvent, ToolRound> {
    // The model is at work again: its next stop is its own, not a continuation a stop check caused.
    this.stopContinuation = false;
    const round: ToolRound = { results: [], additional: [], calls: [] };
    for (const use of toolUses) {
      if (this.session.signal.aborted) {
        round.results.push({
          type: 'tool_result',
          tool_use_id: use.id,
          content: `${use.name} was not run: the session was aborted.`,
          is_error: true,
        });
        continue;
      }
      const broken = brokenInputs.get(use.id);
      if (broken !== undefined) {
        this.brokenInputs += 1;
        yield* this.refuseBrokenInput(use, broken, round);
        continue;
      }
      this.brokenInputs = 0;
      yield* this.callTool(use, round);
    }
    if (round.calls.length > 0 && this.session.slots.postToolBatch && !this.session.signal.aborted) {
      const after = await this.session.slots.postToolBatch(round.calls, this.session.toolContext);
      yield* this.flush();
      round.additional.push(...(after.additionalContext ?? []));
      if (after.feedback) round.additional.push(`[PostToolBatch hook feedback] ${after.feedback}`);
      round.hookStop ??= after.stop;
    }
    const resultMessage: Message = { role: 'user', content: [...round.results] };
    for (const text of round.additional) resultMessage.content.push({ type: 'text', text });
    this.session.messages.push(resultMessage);
    return round;
  }

  /** After the tool calls: an abort, a hook's stop, a Report (unless a stop check sends it back), or one refused Report too many. */
  async *checkAfterTools(round: ToolRound): AsyncGenerator<AgentEvent, Ending | undefined> {
    if (this.session.signal.aborted) return this.abortEnding();
    if (round.hookStop) return { reason: 'stopped_by_hook', detail: `a hook stopped the session: ${round.hookStop}` };
    if (round.report) {
      if (yield* this.sentBackByStopCheck({ reason: 'report', report: round.report.input })) return undefined;
      return { reason: 'report', detail: 'the agent reported', report: round.report.input };
    }
    if (this.brokenInputs >= MAX_BROKEN_TOOL_INPUTS) {
      const last = round.results.findLast((result) => result.is_error)?.content ?? '';
      return {
        reason: 'error',
        detail: `the model sent tool input that is not valid JSON ${this.brokenInputs} times in a row; the last: ${last}`,
      };
    }
    if (this.reportAttempts >= this.session.limits.maxReportAttempts) {
      return {
        reason: 'error',
        detail: `${REPORT_TOOL} was refused ${this.reportAttempts} times; the last error: ${round.results.find((r) => r.is_error)?.content ?? ''}`,
      };
    }
    return undefined;
  }

  /** The `end` event, after whatever is still pending, and the result `query` returns. */
  *end({ reason, detail, report }: Ending): Generator<AgentEvent, AgentResult> {
    const { session } = this;
    this.stopWallClock();
    yield* this.flush();
    const result: AgentResult = { reason, detail, report, turns: session.turns, usage: session.usage, costUsd: session.costUsd };
    yield stamp({ type: 'end', reason, detail, turns: session.turns, usage: session.usage, cost_usd: session.costUsd, report });
    return result;
  }

  stopWallClock(): void {
    clearTimeout(this.wallClock);
  }

  /** The error result for a call whose input did not parse, recorded like a failed call. */
  private *refuseBrokenInput(use: ToolUseBlock, problem: string, round: ToolRound): Generator<AgentEvent> {
    const { session, turn } = this;
    const content = `${use.name} was not run: ${problem}. Send the call again with its input as one valid JSON object.`;
    yield stamp({ type: 'tool_call', turn, id: use.id, name: use.name, input: use.input });
    round.results.push({ type: 'tool_result', tool_use_id: use.id, content, is_error: true });
    yield stamp({
      type: 'tool_result',
      id: use.id,
      name: use.name,
      is_error: true,
      chars: content.length,
      preview: content.slice(0, 200),
      duration_ms: 0,
    });
    const tool = session.registry.get(use.name);
    session.ledger.record({ turn, id: use.id, name: use.name, tool, input: use.input, isError: true, at: Date.now() });
  }

  /** One call through the tool pipeline, recorded in the ledger and told to the context layer. */
  private async *callTool(use: ToolUseBlock, round: ToolRound): AsyncGenerator<AgentEvent> {
    const { session, turn } = this;
    yield stamp({ type: 'tool_call', turn, id: use.id, name: use.name, input: use.input });
    const run = await runToolCall(use, session.registry, session.slots, session.toolContext);
    yield* this.flush();
    round.results.push(run.block);
    session.ledger.record({
      turn,
      id: use.id,
      name: use.name,
      tool: run.tool,
      input: run.input ?? use.input,
      isError: run.block.is_error === true,
      data: run.output?.data,
      spilledTo: run.spilledTo,
      at: Date.now(),
    });
    round.additional.push(...run.additionalContext);
    round.hookStop ??= run.stop;
    round.calls.push({
      id: use.id,
      name: use.name,
      tool: run.tool,
      input: run.input ?? use.input,
      ...(run.output ? { response: run.output.data !== undefined ? run.output.data : run.output.content } : {}),
      isError: run.block.is_error === true,
    });
    session.context.afterTool?.(session, {
      name: use.name,
      tool: run.tool,
      input: run.input ?? use.input,
      data: run.output?.data,
      isError: run.block.is_error === true,
      mayWrite: run.mayWrite,
    });
    if (use.name !== REPORT_TOOL) return;
    if (run.block.is_error) {
      this.reportAttempts += 1;
      yield stamp({ type: 'report_rejected', attempt: this.reportAttempts, error: run.block.content });
    } else {
      round.report = { input: run.input };
    }
  }

  /** Asks the stop checks; when one sends the agent back, its message becomes the next user message. */
  private async *sentBackByStopCheck(info: Omit<StopInfo, 'active'>): AsyncGenerator<AgentEvent, boolean> {
    const more = await this.session.stopCheck?.beforeStop(this.session, { ...info, active: this.stopContinuation });
    yield* this.flush();
    if (!more) return false;
    this.stopContinuation = true;
    this.session.messages.push(userText(more));
    return true;
  }

  private abortEnding(): Ending {
    const { signal, limits } = this.session;
    const why = signal.reason instanceof SessionAbort ? signal.reason.why : String(signal.reason ?? 'aborted');
    if (why === 'wall_clock') return { reason: 'wall_clock', detail: `wall clock limit of ${limits.wallClockMs} ms reached` };
    // The reason says aborted; the detail says only why (a detail is shown after the reason).
    return { reason: 'aborted', detail: why };
  }

  /** Events emitted from inside tools, slots and the context layer since the last flush. */
  private *flush(): Generator<AgentEvent> {
    while (this.session.pending.length > 0) yield stamp(this.session.pending.shift()!);
  }
}

function refusalEnding(detail: string | undefined): Ending {
  return { reason: 'refusal', detail: `the model declined to go on (stop reason refusal${detail ? `: ${detail}` : ''})` };
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
