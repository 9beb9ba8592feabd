import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { type AgentResult, query } from '../../shared/core/loop/query.js';
import { AgentSession } from '../../shared/core/loop/session.js';
import { type ScriptedAgentIdentity, ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript, type Script } from '../../shared/core/model/scriptFile.js';
import { defineTool } from '../../shared/core/tool/tool.js';
import { tempDir } from '../support/tempDir.js';

function script(value: object): Script {
  return parseScript(value, 'test script');
}

const WORKER: ScriptedAgentIdentity = { role: 'worker', task: 't1', prompt: 'Fix the bug.' };

describe('ScriptedModel driving the agent loop', () => {
  const WorkerReport = z.object({
    summary: z.string(),
    unresolved: z.array(z.string()),
    claimed_checks: z.array(z.object({ command: z.string(), exit_code: z.number().int() })),
  });
  const goodReport = { summary: 'fixed', unresolved: [], claimed_checks: [{ command: 'npm test', exit_code: 0 }] };
  const badReport = { unresolved: [], claimed_checks: [] };
  const noteTool = defineTool({
    name: 'Note',
    description: 'Writes a note.',
    input: z.object({ text: z.string() }),
    level: 'read-only',
    readOnly: true,
    async call(input) {
      return { content: `noted: ${input.text}` };
    },
  });

  async function drive(turns: object[]): Promise<{ result: AgentResult; events: AgentEvent[]; session: AgentSession }> {
    const model = new ScriptedModel(script({ agents: [{ when: { role: 'worker', task: 't1' }, turns }] }), WORKER);
    const session = new AgentSession({
      role: 'worker',
      model,
      systemPrompt: 'You are a worker. '.repeat(20),
      tools: [noteTool],
      outputSchema: WorkerReport,
      workspaceRoot: tempDir(),
      sessionDir: path.join(tempDir(), 'session'),
      mode: 'read-only',
    });
    const events: AgentEvent[] = [];
    const loop = query(session, WORKER.prompt);
    for (;;) {
      const next = await loop.next();
      if (next.done) return { result: next.value, events, session };
      events.push(next.value);
    }
  }

  const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
    events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);

  it('ends with reason report when the script calls Report, and says no LLM was used', async () => {
    const { result, events } = await drive([
      { text: 'Taking a note first.', tools: [{ name: 'Note', input: { text: 'hello' } }] },
      { tools: [{ name: 'Report', input: goodReport }] },
    ]);
    expect(result.reason).toBe('report');
    expect(result.report).toEqual(goodReport);
    expect(result.turns).toBe(2);
    expect(result.costUsd).toBe(0);
    expect(ofType(events, 'session_start')[0]).toMatchObject({ model: 'scripted', scripted: true });
    expect(ofType(events, 'end')).toEqual([expect.objectContaining({ reason: 'report' })]);
    const usages = ofType(events, 'usage');
    expect(usages[0]!.usage.cache_read_tokens).toBe(0);
    expect(usages[0]!.usage.cache_creation_tokens).toBeGreaterThan(0);
    expect(usages[1]!.usage.cache_read_tokens).toBe(usages[0]!.usage.cache_creation_tokens);
  });

  it('ends with reason no_tool_use when the script runs out', async () => {
    const { result, events } = await drive([{ tools: [{ name: 'Note', input: { text: 'hello' } }] }]);
    expect(result.reason).toBe('no_tool_use');
    expect(result.turns).toBe(2);
    expect(ofType(events, 'assistant_text').at(-1)!.text).toContain('ran out after 1 turns');
  });

  it('sends a Report missing a field back naming it, and the agent recovers', async () => {
    const { result, events, session } = await drive([
      { tools: [{ name: 'Report', input: badReport }] },
      { tools: [{ name: 'Report', input: goodReport }] },
    ]);
    const rejected = ofType(events, 'report_rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.error).toMatch(/^Report input is invalid: summary: /);
    const returned = session.messages[2]!.content[0]!;
    expect(returned).toMatchObject({ type: 'tool_result', is_error: true });
    expect(returned.type === 'tool_result' && returned.content).toContain('summary');
    expect(result.reason).toBe('report');
    expect(result.report).toEqual(goodReport);
  });

  it('ends with reason error after three invalid Reports', async () => {
    const { result, events } = await drive(Array.from({ length: 4 }, () => ({ tools: [{ name: 'Report', input: badReport }] })));
    expect(ofType(events, 'report_rejected').map((event) => event.attempt)).toEqual([1, 2, 3]);
    expect(result.reason).toBe('error');
    expect(result.turns).toBe(3);
    expect(result.detail).toContain('summary');
  });
});
