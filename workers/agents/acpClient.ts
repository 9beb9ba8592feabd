import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { stamp } from '../../shared/core/events/agentEvent.js';
import type { AgentSession } from '../../shared/core/loop/session.js';
import { bashResultFields } from '../../shared/core/tool/bashResultData.js';
import { CallStopped } from '../../shared/core/tool/callStopped.js';
import type { CheckedCall } from '../../shared/core/tool/pipeline.js';
import { isReadOnly, levelOf } from '../../shared/core/tool/tool.js';
import { isOrcaToolApproval, isOrcaToolCall } from './orcaMcpServer.js';
import { type CallRecording, flushPending, sessionToolCall } from './sessionToolCall.js';
import type { TurnCalls } from './turnCalls.js';

/** What the agent streamed in the turn under way: its text, and what it said it spent. */
export interface StreamedTurn {
  text: string;
  /** The session's cost so far, when the agent reports it (usage_update). */
  costUsd?: number;
}

/** Claude Code names the tool a call is of in `_meta.claudeCode.toolName`; other agents only in `title`. */
const ClaudeCodeMetaSchema = z.object({ claudeCode: z.object({ toolName: z.string() }).partial() }).partial();
const ReadDataSchema = z.object({ type: z.literal('text'), file: z.object({ content: z.string() }) });

/** A command an agent runs in an ACP terminal, as orca's Bash ran it. */
interface Terminal {
  done: Promise<void>;
  output: string;
  exit?: acp.TerminalExitStatus;
  /** Aborted by terminal/kill or terminal/release: orca's Bash stops the command's whole process group. */
  stop: AbortController;
}

/**
 * orca as the ACP client: where the rules are. The agent's reads and writes through ACP's file
 * system are orca's Read and Write, its terminals orca's Bash (sandbox, process groups, the tool
 * log evidence is read from); its permission requests are answered by orca's policy (the
 * project's rules and hooks, the role's mode, the run's asks); each tool call it streams is a
 * tool event in the transcript and on the board.
 */
export class OrcaAcpClient implements acp.Client {
  readonly turn: StreamedTurn = { text: '' };
  private readonly seen = new Map<string, { name: string; recorded: boolean; ended: boolean }>();
  private readonly terminals = new Map<string, Terminal>();
  private terminalIds = 0;

  constructor(
    private readonly session: AgentSession,
    private readonly rec: CallRecording,
    /** The turn's calls: each request that runs one of orca's tools is one of them (turnCalls.ts). */
    private readonly calls: TurnCalls,
  ) {}

  async requestPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const name = toolNameOf(params.toolCall);
    const decision = await this.decide(name, params.toolCall.toolCallId, params.toolCall.rawInput);
    flushPending(this.session, this.rec.record);
    const wanted = decision.allowed ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
    const option = wanted.map((kind) => params.options.find((candidate) => candidate.kind === kind)).find(Boolean);
    return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : { outcome: { outcome: 'cancelled' } };
  }

  /**
   * orca's own tools (over MCP) are judged when they run, in the pipeline; another tool the agent
   * has is allowed only when the role has a tool of that name and orca's rules allow this call.
   */
  private async decide(name: string, id: string, input: unknown): Promise<{ allowed: boolean }> {
    const { session } = this;
    if (isOrcaToolApproval(name, id, input)) return { allowed: true };
    const tool = session.registry.get(name);
    const refuse = (reason: string) => {
      session.pending.push({ type: 'permission', tool: name, decision: 'deny', by: 'orca:acp', reason });
      return { allowed: false };
    };
    if (!tool) return refuse(`the ${session.role} role has no ${name} tool`);
    const parsed = tool.input.safeParse(input ?? {});
    if (!parsed.success) return refuse(`${name}'s input is not one orca can judge`);
    const checked: CheckedCall = {
      id,
      tool,
      input: parsed.data,
      level: levelOf(tool, parsed.data),
      readOnly: isReadOnly(tool, parsed.data),
    };
    const ctx = session.toolContext;
    const pre = await session.slots.preToolUse(checked, ctx);
    if (pre.decision === 'deny') return refuse(`a PreToolUse hook blocked it: ${pre.reason ?? 'no reason given'}`);
    return { allowed: (await session.slots.permission(checked, pre, ctx)).allowed };
  }

  async sessionUpdate(params: acp.SessionNotification): Promise<void> {
    const { update } = params;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        if (update.content.type === 'text') this.turn.text += update.content.text;
        return;
      case 'usage_update':
        if (update.cost && update.cost.currency === 'USD') this.turn.costUsd = update.cost.amount;
        return;
      case 'tool_call':
      case 'tool_call_update':
        this.toolEvent(update);
        return;
      default:
        return;
    }
  }

  /**
   * A tool call the agent streams becomes a tool_call event once its input is known, and a
   * tool_result when it ends. Calls of orca's own tools are recorded where they run instead.
   */
  private toolEvent(update: acp.ToolCallUpdate & { title?: string | null }): void {
    const known = this.seen.get(update.toolCallId);
    const name = known?.name ?? toolNameOf(update);
    const entry = known ?? { name, recorded: false, ended: false };
    this.seen.set(update.toolCallId, entry);
    if (isOrcaToolCall(name, update.toolCallId)) return;
    const input = update.rawInput;
    const ending = update.status === 'completed' || update.status === 'failed';
    const hasInput = typeof input === 'object' && input !== null && Object.keys(input).length > 0;
    if (!entry.recorded && (hasInput || ending)) {
      entry.recorded = true;
      this.rec.record(stamp({ type: 'tool_call', turn: this.rec.turn(), id: update.toolCallId, name, input: input ?? {} }));
    }
    if (ending && !entry.ended) {
      entry.ended = true;
      const output = typeof update.rawOutput === 'string' ? update.rawOutput : JSON.stringify(update.rawOutput ?? '');
      this.rec.record(
        stamp({
          type: 'tool_result',
          id: update.toolCallId,
          name,
          is_error: update.status === 'failed',
          chars: output.length,
          preview: output.slice(0, 200),
          duration_ms: 0,
        }),
      );
    }
  }

  async readTextFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const input = {
      file_path: params.path,
      ...(params.line ? { offset: params.line } : {}),
      ...(params.limit ? { limit: params.limit } : {}),
    };
    const run = await this.calls.run((stop) => sessionToolCall(this.session, 'Read', input, this.rec, stop));
    const data = ReadDataSchema.safeParse(run.output?.data);
    if (run.block.is_error || !data.success) throw new Error(run.block.content);
    return { content: data.data.file.content };
  }

  async writeTextFile(params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    const input = { file_path: params.path, content: params.content };
    const run = await this.calls.run((stop) => sessionToolCall(this.session, 'Write', input, this.rec, stop));
    if (run.block.is_error) throw new Error(run.block.content);
    return {};
  }

  async createTerminal(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    this.terminalIds += 1;
    const terminalId = `term_${this.terminalIds}`;
    const words = [params.command, ...(params.args ?? [])];
    const command = params.args && params.args.length > 0 ? words.map(shellWord).join(' ') : params.command;
    const cd = params.cwd ? `cd ${shellWord(params.cwd)} && ` : '';
    const env = (params.env ?? []).map((variable) => `${variable.name}=${shellWord(variable.value)} `).join('');
    const stop = new AbortController();
    const terminal: Terminal = { output: '', done: Promise.resolve(), stop };
    const input = { command: `${cd}${env}${command}` };
    let stopped: AbortSignal | undefined;
    // One of the turn's calls: the turn's end stops it too; after it none starts (run throws: the request's error).
    const running = this.calls.run((turnStop) => {
      stopped = AbortSignal.any([turnStop, stop.signal]);
      return sessionToolCall(this.session, 'Bash', input, this.rec, stopped);
    });
    terminal.done = running.then((run) => {
      const fields = bashResultFields(run.output?.data);
      terminal.output = run.output?.content ?? run.block.content;
      // Killed: no exit code of its own; orca's Bash ended its group with SIGTERM (SIGKILL after a grace).
      terminal.exit = stopped?.aborted
        ? { exitCode: null, signal: 'SIGTERM' }
        : { exitCode: fields.exitCode ?? (run.block.is_error ? 1 : 0), signal: null };
    });
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  async terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    const terminal = this.terminalNamed(params.terminalId);
    return { output: terminal.output, truncated: false, exitStatus: terminal.exit ?? null };
  }

  async waitForTerminalExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    const terminal = this.terminalNamed(params.terminalId);
    await terminal.done;
    return { exitCode: terminal.exit?.exitCode ?? null, signal: terminal.exit?.signal ?? null };
  }

  /**
   * Stops the command now, with every process it started (orca's Bash kills its group), and
   * answers once it has stopped; the terminal stays, for its output and exit status.
   */
  async killTerminal(params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse> {
    const terminal = this.terminalNamed(params.terminalId);
    if (!terminal.exit) terminal.stop.abort(new CallStopped('the agent killed its terminal: terminal/kill'));
    await terminal.done;
    return {};
  }

  /** Kills a command still running, then forgets the terminal. */
  async releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse> {
    const terminal = this.terminals.get(params.terminalId);
    this.terminals.delete(params.terminalId);
    if (terminal && !terminal.exit) {
      terminal.stop.abort(new CallStopped('the agent released its terminal while the command ran: terminal/release'));
      await terminal.done;
    }
    return {};
  }

  private terminalNamed(id: string): Terminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw new Error(`no terminal ${id}: create one with terminal/create`);
    return terminal;
  }
}

/** The tool a call is of: Claude Code's own name for it, else its title. */
function toolNameOf(call: { _meta?: Record<string, unknown> | null; title?: string | null; toolCallId: string }): string {
  const meta = ClaudeCodeMetaSchema.safeParse(call._meta ?? {});
  return (meta.success ? meta.data.claudeCode?.toolName : undefined) ?? call.title ?? call.toolCallId;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
