import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { runSession } from '../../shared/core/loop/query.js';
import { AgentSession } from '../../shared/core/loop/session.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript, type ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { modeOnlySlots } from '../../shared/core/tool/pipeline.js';
import type { HooksConfig } from '../../shared/policy/hooks/hooksConfig.js';
import { createStopCheck, STOP_BLOCK_LIMIT, type StopHooksOptions } from '../../shared/policy/hooks/stopHooks.js';
import { createHarnessSlots } from '../../shared/policy/hooks/toolSlots.js';
import { bashTool } from '../../shared/tools/bash.js';
import { tempDir } from '../support/tempDir.js';
import { hooksOf, recorded, respondHook } from './hookTestKit.js';

async function run(hooks: HooksConfig, turns: ScriptTurn[], options: StopHooksOptions = {}) {
  const project = tempDir('orca-stop-project-');
  const session = new AgentSession({
    role: 'worker',
    model: new ScriptedModel(parseScript({ agents: [{ when: { role: 'worker' }, turns }] }, 'test script'), {
      role: 'worker',
      prompt: 'go',
    }),
    systemPrompt: 'You are a worker.',
    tools: [bashTool],
    outputSchema: z.object({ summary: z.string() }),
    workspaceRoot: project,
    sessionDir: path.join(tempDir('orca-session-'), 'session'),
    mode: 'full-access',
    slots: createHarnessSlots({ hooks, permission: modeOnlySlots.permission }),
    stopCheck: createStopCheck(hooks, options),
  });
  const events: AgentEvent[] = [];
  const result = await runSession(session, 'go', (event) => events.push(event));
  return { result, events, session };
}

describe('Stop hooks', () => {
  it(`a Stop hook that always blocks is honoured ${STOP_BLOCK_LIMIT} times in a row, then the stop goes through with a notice`, async () => {
    const dir = tempDir();
    const record = path.join(dir, 'stops.jsonl');
    const hooks = hooksOf({
      Stop: [{ hooks: [{ type: 'command', command: respondHook(dir, { record, exit: 2, stderr: 'keep going' }) }] }],
    });
    const turns: ScriptTurn[] = Array.from({ length: 15 }, (_, i) => ({ text: `done (${i + 1})` }));

    const { result, events, session } = await run(hooks, turns);

    expect(result).toMatchObject({ reason: 'no_tool_use', turns: STOP_BLOCK_LIMIT + 1 });
    const runs = recorded(record);
    expect(runs.map((r) => r.input.stop_hook_active)).toEqual([false, ...Array(STOP_BLOCK_LIMIT).fill(true)]);
    expect(runs[0]!.input).toMatchObject({ hook_event_name: 'Stop', last_assistant_message: 'done (1)' });
    expect(events.filter((e) => e.type === 'hook').map((e) => e.type === 'hook' && e.outcome)).toEqual(
      Array(STOP_BLOCK_LIMIT + 1).fill('block'),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'notice',
        level: 'warn',
        message: `Stop hooks blocked the agent from stopping ${STOP_BLOCK_LIMIT} times in a row; letting it stop now. The last reason: keep going`,
      }),
    );
    const continuations = session.messages.filter(
      (m) => m.role === 'user' && m.content.some((b) => b.type === 'text' && b.text.startsWith('Stop hook feedback')),
    );
    expect(continuations).toHaveLength(STOP_BLOCK_LIMIT);
  });

  it('stop_hook_active stays true through the tool calls of the continuation, and a stop the hook allows ends the session', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'stops.jsonl');
    const marker = path.join(dir, 'refused-once');
    // Refuses the first stop only, recording what it read each time.
    const command = `tee -a ${record} > /dev/null; echo >> ${record}; if [ -e ${marker} ]; then exit 0; fi; touch ${marker}; echo "write the changelog first" >&2; exit 2`;
    const hooks = hooksOf({ Stop: [{ hooks: [{ type: 'command', command }] }] });

    const { result, session } = await run(hooks, [
      { text: 'finished' },
      { tools: [{ name: 'Bash', input: { command: 'echo "- fixed" > CHANGELOG.md' } }] },
      { tools: [{ name: 'Report', input: { summary: 'done, changelog written' } }] },
    ]);

    expect(result).toMatchObject({ reason: 'report', report: { summary: 'done, changelog written' } });
    const inputs = readFileSync(record, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
    expect(inputs.map((input) => input.stop_hook_active)).toEqual([false, true]);
    const feedback = session.messages.find(
      (m) => m.role === 'user' && m.content.some((b) => b.type === 'text' && b.text.includes('write the changelog first')),
    );
    expect(feedback).toBeDefined();
  });

  it('SubagentStop hooks match the agent type and get the agent fields', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'stops.jsonl');
    const hooks = hooksOf({
      SubagentStop: [
        { matcher: 'worker', hooks: [{ type: 'command', command: respondHook(dir, { record }) }] },
        { matcher: 'explore', hooks: [{ type: 'command', command: 'exit 2' }] },
      ],
    });
    const { result, session } = await run(hooks, [{ text: 'all done' }], { event: 'SubagentStop' });
    // The explore group's exit 2 did not run: the first stop went through.
    expect(result).toMatchObject({ reason: 'no_tool_use', turns: 1 });
    expect(recorded(record)[0]!.input).toMatchObject({
      hook_event_name: 'SubagentStop',
      stop_hook_active: false,
      agent_id: session.id,
      agent_type: 'worker',
      agent_transcript_path: path.join(session.toolContext.session.dir, 'transcript.jsonl'),
      last_assistant_message: 'all done',
    });
  });

  it('continue: false from a Stop hook lets the agent stop even when another hook blocks', async () => {
    const dir = tempDir();
    const hooks = hooksOf({
      Stop: [
        {
          hooks: [
            { type: 'command', command: respondHook(dir, { stdout: { continue: false, stopReason: 'out of budget' } }) },
            { type: 'command', command: respondHook(dir, { exit: 2, stderr: 'not yet' }) },
          ],
        },
      ],
    });
    const { result, events } = await run(hooks, [{ text: 'stopping' }, { text: 'should not be reached' }]);
    expect(result).toMatchObject({ reason: 'no_tool_use', turns: 1 });
    expect(events).toContainEqual(expect.objectContaining({ type: 'notice', message: 'a Stop hook ended the session: out of budget' }));
  });
});
