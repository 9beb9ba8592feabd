import { setTimeout as sleep } from 'node:timers/promises';
import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { type AgentEvent, type EndReason, stamp } from '../../shared/core/events/agentEvent.js';
import type { AgentResult } from '../../shared/core/loop/query.js';
import { type AgentSession, SessionAbort } from '../../shared/core/loop/session.js';
import { addUsage, emptyUsage, type Usage } from '../../shared/core/model/usage.js';
import { inputSchema } from '../../shared/core/tool/registry.js';
import { REPORT_TOOL } from '../../shared/core/tool/report.js';
import type { SessionDriver } from '../../shared/harness/harness.js';
import { OrcaAcpClient } from './acpClient.js';
import type { AgentStart } from './agentStart.js';
import type { OfferedResult, OfferedTool } from './orcaMcpServer.js';
import { agentInstructions, newSessionRequest, type SessionFor } from './sessionRequest.js';
import { type CallRecording, flushPending, sessionToolCall } from './sessionToolCall.js';
import { TurnCalls, TurnEnded } from './turnCalls.js';

/** The tools orca always offers an external agent, when its role has them. */
const ALWAYS_OFFERED = [REPORT_TOOL, 'Remember'];

/** How long an agent has to end its turn on ACP's cancel after an accepted Report before the Report's call is answered anyway. */
const REPORT_CANCEL_WAIT_MS = 10_000;

/** What the agent answers a prompt with, as orca reads it (the SDK checks requests; this checks the response). */
const PromptResponseSchema = z.object({
  stopReason: z.enum(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']),
  usage: z
    .object({
      inputTokens: z.number(),
      outputTokens: z.number(),
      cachedReadTokens: z.number().nullish(),
      cachedWriteTokens: z.number().nullish(),
      thoughtTokens: z.number().nullish(),
    })
    .nullish(),
  /** Gemini CLI's report of the turn's tokens (its model requests' sum), where ACP's `usage` is not sent. */
  _meta: z
    .object({ quota: z.object({ token_count: z.object({ input_tokens: z.number(), output_tokens: z.number() }) }).nullish() })
    .nullish(),
});

/** A turn's tokens as Gemini CLI reports them, in the shape of ACP's `usage`. */
function quotaUsage(
  quota: { token_count: { input_tokens: number; output_tokens: number } } | null | undefined,
): z.infer<typeof PromptResponseSchema>['usage'] {
  return quota ? { inputTokens: quota.token_count.input_tokens, outputTokens: quota.token_count.output_tokens } : undefined;
}

/** The ACP session's agent, already starting (agentStart.ts), and what its session is opened with. */
export interface AcpRun extends SessionFor {
  start: AgentStart;
}

/** Runs the session's agent as an external ACP agent, orca its client (docs/agents.md). */
export function acpDriver(run: AcpRun): SessionDriver {
  return (session, prompt, record) => new AcpSession(session, run, record).drive(prompt);
}

/** Why the session ends. */
interface Ending {
  reason: EndReason;
  detail: string;
  report?: unknown;
}

/**
 * One external agent's session: started in the sandbox with orca's tools as an MCP server, given
 * the task, and held to orca's ending: its Report judged by the session's stop checks (the report
 * gate, the Stop hooks, the reminder), a refused one answered with a further prompt in the same
 * session, a turn ended without Report reminded once, then failed.
 */
class AcpSession {
  private turns = 0;
  private report: { input: unknown } | undefined;
  private reportAttempts = 0;
  private usage: Usage = emptyUsage();
  private usageReported = false;
  private costUsd = 0;
  private readonly rec: CallRecording;
  private readonly calls = new TurnCalls();
  /** The prompt under way: how to cancel it, and its answer. */
  private prompting: { cancel: () => Promise<void>; answered: Promise<unknown> } | undefined;
  /** orca cancelled the prompt under way because the agent's Report was accepted (endTurnAtReport). */
  private cancelledAtReport = false;

  constructor(
    private readonly session: AgentSession,
    private readonly run: AcpRun,
    private readonly record: (event: AgentEvent) => void,
  ) {
    this.rec = { record, turn: () => this.turns };
  }

  async drive(prompt: string): Promise<AgentResult> {
    const { session, run } = this;
    this.record(
      stamp({
        type: 'session_start',
        session_id: session.id,
        role: session.role,
        model: `${run.agent.name} (ACP)`,
        scripted: false,
        cwd: session.workspace.root,
      }),
    );
    const wallClock = setTimeout(() => session.abortController.abort(new SessionAbort('wall_clock')), session.limits.wallClockMs);
    const client = new OrcaAcpClient(session, this.rec, this.calls);
    // The agent has been starting since the worktree was known: what it asked meanwhile is answered from here on.
    run.start.bind({ client, tools: { tools: this.offeredTools(), call: (name, input) => this.callOffered(name, input) } });
    try {
      const ending = await this.sessionEnding(client, prompt);
      // No call of the session outlives it: whatever still runs (an abort, a failure) is stopped before its end.
      await this.calls.end(`the ${run.agent.name} agent's session has ended`);
      return this.end(ending);
    } finally {
      clearTimeout(wallClock);
      // Its whole process tree goes with the session, however it ended.
      await run.start.close();
    }
  }

  /** Opens the agent's session and converses to its end; how it ended, a failure included. */
  private async sessionEnding(client: OrcaAcpClient, prompt: string): Promise<Ending> {
    const { session, run } = this;
    const ended = this.agentEnded();
    try {
      const { mcp, agent, connection } = await ended.race(run.start.initialized);
      if (agent.choice) this.record(stamp({ type: 'notice', level: agent.choice.level, message: agent.choice.note }));
      const sessionId = await ended.race(run.start.openSession(newSessionRequest(run, mcp)));
      return await this.converse(connection, sessionId, client, prompt, ended);
    } catch (error) {
      if (session.signal.aborted) return this.abortEnding();
      const why = describeError(error);
      const stderr = run.start.stderrTail();
      return {
        reason: 'error',
        detail: `the ${run.agent.name} agent failed: ${why}${stderr ? `; its stderr ends: ${stderr.slice(-600)}` : ''}`,
      };
    }
  }

  /** Prompts until the session ends: the task, then each refusal or reminder the stop checks answer with. */
  private async converse(
    connection: acp.ClientSideConnection,
    sessionId: string,
    client: OrcaAcpClient,
    prompt: string,
    ended: AgentEnd,
  ): Promise<Ending> {
    const { session, run } = this;
    const onAbort = () => void connection.cancel({ sessionId }).catch(() => undefined);
    session.signal.addEventListener('abort', onAbort, { once: true });
    try {
      let text = run.agent.session === 'claude-code' ? prompt : `${agentInstructions(run)}\n\n---\n\n${prompt}`;
      let active = false;
      for (;;) {
        const ending = await this.promptTurn(connection, sessionId, client, text, ended);
        // Its calls end with its turn, and its own process holds still: the stop checks judge the tree as it stays.
        await this.calls.end(`the ${run.agent.name} agent's turn has ended`);
        if (ending) return ending;
        const held = await run.start.hold();
        const more = await this.stopChecks(active);
        // Judged: it stays held until its close kills it. Sent back: it goes on, for its next prompt.
        if (typeof more !== 'string') return more;
        await held?.release();
        text = more;
        active = true;
      }
    } finally {
      session.signal.removeEventListener('abort', onAbort);
    }
  }

  /** One prompt and the turn it starts, to the agent's end of turn; an Ending when the session cannot go on. */
  private async promptTurn(
    connection: acp.ClientSideConnection,
    sessionId: string,
    client: OrcaAcpClient,
    text: string,
    ended: AgentEnd,
  ): Promise<Ending | undefined> {
    const { session } = this;
    if (session.signal.aborted) return this.abortEnding();
    if (this.turns >= session.limits.maxTurns) return { reason: 'max_turns', detail: `${this.turns} prompts, the role's limit` };
    this.turns += 1;
    this.record(stamp({ type: 'turn_start', turn: this.turns }));
    // The task's prompt is recorded by the harness; each further prompt (a refusal, a reminder) here.
    if (this.turns > 1) this.record(stamp({ type: 'prompt', text }));
    client.turn.text = '';
    this.calls.open();
    this.cancelledAtReport = false;
    const answered = connection.prompt({ sessionId, prompt: [{ type: 'text', text }] });
    this.prompting = { cancel: () => connection.cancel({ sessionId }), answered };
    const raw = await ended.race(answered).finally(() => {
      this.prompting = undefined;
    });
    flushPending(session, this.record);
    const response = PromptResponseSchema.parse(raw);
    this.charge(response.usage ?? quotaUsage(response._meta?.quota), client.turn.costUsd);
    if (client.turn.text) this.record(stamp({ type: 'assistant_text', turn: this.turns, text: client.turn.text }));
    if (session.signal.aborted || (response.stopReason === 'cancelled' && !this.cancelledAtReport)) return this.abortEnding();
    if (response.stopReason === 'refusal') return { reason: 'refusal', detail: 'the agent declined to go on (stop reason refusal)' };
    return undefined;
  }

  /**
   * The agent's turn ended: its Report (or its lack) goes to the session's stop checks, as orca's
   * own loop does. Their message is the next prompt; none means the session ends here.
   */
  private async stopChecks(active: boolean): Promise<string | Ending> {
    const { session } = this;
    const report = this.report;
    this.report = undefined;
    const more = await session.stopCheck?.beforeStop(
      session,
      report ? { reason: 'report', report: report.input, active } : { reason: 'no_tool_use', active },
    );
    flushPending(session, this.record);
    if (this.reportAttempts >= session.limits.maxReportAttempts) {
      return { reason: 'error', detail: `${REPORT_TOOL} was refused ${this.reportAttempts} times` };
    }
    if (more) return more;
    if (report) return { reason: 'report', detail: 'the agent reported', report: report.input };
    return { reason: 'no_tool_use', detail: `the ${this.run.agent.name} agent ended its turn without ${REPORT_TOOL}, after a reminder` };
  }

  /** orca's tools as the agent is offered them: Report and Remember, and those that replace its own. */
  private offeredTools(): OfferedTool[] {
    const names = new Set([...ALWAYS_OFFERED, ...this.run.agent.replaces]);
    return this.session.registry
      .tools()
      .filter((tool) => names.has(tool.name))
      .map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputJsonSchema ?? inputSchema(tool.input) }));
  }

  /**
   * A call of one of orca's tools over MCP: through the session's pipeline, as one of the turn's
   * calls; a Report that fits its schema is kept for the turn's end, and ends the turn.
   */
  private async callOffered(name: string, input: unknown): Promise<OfferedResult> {
    if (!this.offeredTools().some((tool) => tool.name === name)) return { content: `orca offers no tool ${name}`, isError: true };
    let running: ReturnType<typeof sessionToolCall>;
    try {
      running = this.calls.run((stop) => sessionToolCall(this.session, name, input, this.rec, stop));
    } catch (error) {
      if (error instanceof TurnEnded) return { content: error.message, isError: true };
      throw error;
    }
    const run = await running;
    const isError = run.block.is_error === true;
    if (name === REPORT_TOOL) {
      if (isError) {
        this.reportAttempts += 1;
        this.record(stamp({ type: 'report_rejected', attempt: this.reportAttempts, error: run.block.content }));
      } else {
        this.report = { input: run.input };
        if (this.run.agent.reportEndsTurn) await this.endTurnAtReport();
      }
    }
    return { content: run.block.content, isError };
  }

  /**
   * An accepted Report ends the agent's turn there: orca cancels the prompt before it answers the
   * call, so the agent makes no model request after it (Claude Code would ask for its closing
   * words: a model call of the whole conversation, which nobody reads). The Report is judged once
   * the turn has ended, as always, and a refused one is answered with a further prompt. An agent
   * that has not ended its turn on ACP's cancel within REPORT_CANCEL_WAIT_MS gets its answer all
   * the same, and ends its turn as it would have.
   */
  private async endTurnAtReport(): Promise<void> {
    const prompting = this.prompting;
    if (!prompting) return;
    this.cancelledAtReport = true;
    // A notification: it fails only when the connection is gone, and then the prompt fails with it (promptTurn says why).
    await prompting.cancel().catch(() => undefined);
    await Promise.race([prompting.answered.catch(() => undefined), sleep(REPORT_CANCEL_WAIT_MS, undefined, { ref: false })]);
  }

  private charge(usage: z.infer<typeof PromptResponseSchema>['usage'], costUsd: number | undefined): void {
    if (usage) {
      this.usageReported = true;
      this.usage = addUsage(this.usage, {
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        cache_read_tokens: usage.cachedReadTokens ?? 0,
        cache_creation_tokens: usage.cachedWriteTokens ?? 0,
        thinking_tokens: usage.thoughtTokens ?? 0,
      });
      this.session.usage = this.usage;
    }
    // The agent's figure is the session's total so far.
    if (costUsd !== undefined) {
      this.usageReported = true;
      this.costUsd = costUsd;
      this.session.costUsd = costUsd;
    }
  }

  /** Races a request against the agent's end (its process gone) and the session's abort: one it will never answer is not waited on. */
  private agentEnded(): AgentEnd {
    const aborted = new Promise<never>((_, reject) => {
      const stop = () => reject(new Error('aborted'));
      if (this.session.signal.aborted) stop();
      else this.session.signal.addEventListener('abort', stop, { once: true });
    });
    aborted.catch(() => undefined);
    return { race: <T>(work: Promise<T>) => Promise.race([this.run.start.race(work), aborted]) };
  }

  private abortEnding(): Ending {
    const reason: unknown = this.session.signal.reason;
    const why = reason instanceof SessionAbort ? reason.why : String(reason ?? 'aborted');
    if (why === 'wall_clock') return { reason: 'wall_clock', detail: `wall clock limit of ${this.session.limits.wallClockMs} ms reached` };
    return { reason: 'aborted', detail: `aborted: ${why}` };
  }

  private end({ reason, detail, report }: Ending): AgentResult {
    const { session } = this;
    flushPending(session, this.record);
    const usage = this.usage;
    this.record(stamp({ type: 'end', reason, detail, turns: this.turns, usage, cost_usd: this.costUsd, report }));
    return { reason, detail, report, turns: this.turns, usage, costUsd: this.costUsd, usageReported: this.usageReported };
  }
}

/** Races a request against the agent's end and the session's abort. */
interface AgentEnd {
  race<T>(work: Promise<T>): Promise<T>;
}

/** An error as one line: a JSON-RPC error the agent answered with is an object with a message and details. */
function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const data = 'data' in error ? ` (${JSON.stringify(error.data)})` : '';
    return `${String(error.message)}${data}`;
  }
  return String(error);
}
