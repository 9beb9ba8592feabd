import path from 'node:path';
import { z } from 'zod';
import { staticSystemPrompt } from '../../shared/context/prompt/staticPrompt.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import type { AgentLimits } from '../../shared/core/loop/limits.js';
import { type AgentResult, runSession } from '../../shared/core/loop/query.js';
import { AgentSession, type ContextAssembler, type StopCheck } from '../../shared/core/loop/session.js';
import type { Model, ModelEvent, ModelRequest } from '../../shared/core/model/model.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript, type ScriptTurn } from '../../shared/core/model/scriptFile.js';
import type { ToolPipelineSlots } from '../../shared/core/tool/pipeline.js';
import type { AnyTool, SessionServices } from '../../shared/core/tool/tool.js';
import { bashTool } from '../../shared/tools/bash.js';
import { editTool } from '../../shared/tools/edit.js';
import { readTool } from '../../shared/tools/read.js';
import { skillTool } from '../../shared/tools/skill.js';
import { writeTool } from '../../shared/tools/write.js';
import { tempDir } from '../support/tempDir.js';

/**
 * A spy around a real model: every request it is sent is copied (deeply, so later changes to
 * the session cannot rewrite what was sent) before the request goes on unchanged.
 */
export class RecordingModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly inner: Model) {}
  get id(): string {
    return this.inner.id;
  }
  get scripted(): boolean {
    return this.inner.scripted;
  }
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    this.requests.push(structuredClone(request));
    return this.inner.stream(request, signal);
  }
  cost(usage: Parameters<Model['cost']>[0]): number {
    return this.inner.cost(usage);
  }
}

export const WorkerReportSchema = z.object({ summary: z.string() });
export const REPORT_TURN: ScriptTurn = { tools: [{ name: 'Report', input: { summary: 'done' } }] };

export interface ScriptedRun {
  session: AgentSession;
  model: RecordingModel;
  events: AgentEvent[];
  result: AgentResult;
}

/** One agent session, start to end, with the Scripted model playing `turns` and `context` assembling. */
export async function runScripted(options: {
  root: string;
  turns: ScriptTurn[];
  context?: ContextAssembler;
  prompt?: string;
  role?: string;
  tools?: AnyTool[];
  limits?: Partial<AgentLimits>;
  services?: SessionServices;
  shellEnv?: Record<string, string>;
  onEvent?: (event: AgentEvent, session: AgentSession) => void;
  model?: Model;
  /** The pipeline's slots (a guard wrapped around modeOnlySlots); the mode's alone by default. */
  slots?: ToolPipelineSlots;
  stopCheck?: StopCheck;
}): Promise<ScriptedRun> {
  const role = options.role ?? 'worker';
  const prompt = options.prompt ?? 'Do the task.';
  const script = parseScript({ agents: [{ when: { role }, turns: options.turns }] }, 'test script');
  const model = new RecordingModel(options.model ?? new ScriptedModel(script, { role, prompt }));
  const session = new AgentSession({
    role,
    model,
    systemPrompt: staticSystemPrompt(`You are the ${role} of a test.`),
    tools: options.tools ?? [readTool, editTool, writeTool, bashTool, skillTool],
    outputSchema: WorkerReportSchema,
    workspaceRoot: options.root,
    sessionDir: path.join(tempDir('orca-session-'), 'session'),
    mode: 'full-access',
    limits: options.limits,
    context: options.context,
    services: options.services,
    shell: options.shellEnv ? { env: options.shellEnv } : undefined,
    slots: options.slots,
    stopCheck: options.stopCheck,
  });
  const events: AgentEvent[] = [];
  const result = await runSession(session, prompt, (event) => {
    events.push(event);
    options.onEvent?.(event, session);
  });
  return { session, model, events, result };
}

/** Every text the model was shown in a request's messages, joined. */
export function messagesText(request: ModelRequest): string {
  return request.messages
    .flatMap((message) => message.content)
    .map((block) =>
      block.type === 'text'
        ? block.text
        : block.type === 'tool_result'
          ? block.content
          : block.type === 'tool_use'
            ? JSON.stringify(block.input)
            : '',
    )
    .join('\n');
}

export function bash(command: string): ScriptTurn {
  return { tools: [{ name: 'Bash', input: { command } }] };
}

export function read(file_path: string, extra: { offset?: number; limit?: number } = {}): ScriptTurn {
  return { tools: [{ name: 'Read', input: { file_path, ...extra } }] };
}
