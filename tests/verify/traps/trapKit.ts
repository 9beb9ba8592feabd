import path from 'node:path';
import { WorkerOutputSchema } from '../../../roles/outputs.js';
import type { AgentEvent } from '../../../shared/core/events/agentEvent.js';
import { type AgentResult, runSession } from '../../../shared/core/loop/query.js';
import { AgentSession, type ContextAssembler, type StopCheck } from '../../../shared/core/loop/session.js';
import type { Model } from '../../../shared/core/model/model.js';
import { ScriptedModel } from '../../../shared/core/model/scripted.js';
import { parseScript, type ScriptTurn } from '../../../shared/core/model/scriptFile.js';
import { modeOnlySlots } from '../../../shared/core/tool/pipeline.js';
import type { AnyTool, SessionServices } from '../../../shared/core/tool/tool.js';
import { CheckRecorder } from '../../../shared/infra/verify/checks/checkRecorder.js';
import { bashTool } from '../../../shared/tools/bash.js';
import { editTool } from '../../../shared/tools/edit.js';
import { readTool } from '../../../shared/tools/read.js';
import { writeTool } from '../../../shared/tools/write.js';
import { git, makeRepo } from '../../support/gitRepo.js';
import { tempDir } from '../../support/tempDir.js';

/**
 * The fixtures of the trap corpus: a small real project whose tests run under node:test (no
 * install needed), and a real agent session (the Scripted model, the real tools, the host's
 * check recorder) to plant a trap in.
 */
export const ADD_SOURCE = 'export const add = (a, b) => a + b;\n';

export const ADD_TESTS = [
  "import test from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { add } from '../src/add.mjs';",
  '',
  "test('adds', () => {",
  '  assert.equal(add(1, 2), 3);',
  '});',
  '',
  "test('adds negatives', () => {",
  '  assert.equal(add(-1, -2), -3);',
  '});',
  '',
].join('\n');

export const TEST_COMMAND = 'node --test test/';

/** A git repository with src/add.mjs and test/add.test.mjs; returns its path and base commit. */
export function addProject(extra: Record<string, string> = {}): { dir: string; base: string } {
  const dir = makeRepo({
    'package.json': JSON.stringify({ name: 'adder', private: true, type: 'module', scripts: { test: TEST_COMMAND } }, null, 2),
    '.gitignore': 'node_modules/\n',
    'src/add.mjs': ADD_SOURCE,
    'test/add.test.mjs': ADD_TESTS,
    ...extra,
  });
  return { dir, base: git(dir, 'rev-parse', 'HEAD') };
}

export interface WorkerRun {
  session: AgentSession;
  recorder: CheckRecorder;
  result: AgentResult;
  events: AgentEvent[];
}

/** A worker session on `root` playing `turns`, with the host recording the checks it runs. */
export async function runWorker(options: {
  root: string;
  turns: ScriptTurn[];
  tools?: AnyTool[];
  context?: ContextAssembler;
  stopCheck?: StopCheck;
  services?: SessionServices;
  shellEnv?: Record<string, string>;
  /** Wraps the Scripted model (to record the requests it is sent). */
  wrapModel?: (model: Model) => Model;
  recorderOptions?: ConstructorParameters<typeof CheckRecorder>[0];
}): Promise<WorkerRun> {
  const script = parseScript({ agents: [{ when: { role: 'worker' }, turns: options.turns }] }, 'trap script');
  const recorder = new CheckRecorder(options.recorderOptions);
  const services: SessionServices = options.services ?? {};
  recorder.attachTo(services);
  const session = new AgentSession({
    role: 'worker',
    model: (options.wrapModel ?? ((model) => model))(new ScriptedModel(script, { role: 'worker', prompt: 'Do the task.' })),
    systemPrompt: 'You are the worker of a test.',
    tools: options.tools ?? [readTool, editTool, writeTool, bashTool],
    outputSchema: WorkerOutputSchema,
    workspaceRoot: options.root,
    sessionDir: path.join(tempDir('orca-trap-session-'), 'session'),
    mode: 'full-access',
    slots: recorder.wrap(modeOnlySlots),
    context: options.context,
    stopCheck: options.stopCheck,
    services,
    shell: options.shellEnv ? { env: options.shellEnv } : undefined,
  });
  const events: AgentEvent[] = [];
  const result = await runSession(session, 'Do the task.', (event) => events.push(event));
  return { session, recorder, result, events };
}

export function bash(command: string): ScriptTurn {
  return { tools: [{ name: 'Bash', input: { command } }] };
}

export function report(claimed: Array<{ command: string; exit_code: number }>, summary = 'Done.'): ScriptTurn {
  return { tools: [{ name: 'Report', input: { summary, unresolved: [], claimed_checks: claimed } }] };
}
