import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { type Behaviour, MessagesServer, reply, type ServerBlock } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

/**
 * A whole `orca run` whose coordinator, explorer, planner and verifier are the Scripted model
 * (the demo's script) and whose three Workers are two real Claude Code agents (over ACP, against
 * the strict Messages stand-in) and one of orca's own: the same tasks, the same gates.
 */

const DEMO_SCRIPT = path.join(packageRoot(), 'coordinator', 'demo', 'demo-script.json');

interface ScriptTurn {
  text?: string;
  tools?: Array<{ name: string; input: unknown }>;
}

/** The demo's Worker turns for `task`, as Claude Code's model answers them: orca's tools by their MCP names, Grep Claude Code's own. */
function claudeCodeTurns(task: string): Behaviour[] {
  const script = JSON.parse(readFileSync(DEMO_SCRIPT, 'utf8')) as {
    agents: Array<{ when: { role: string; task?: string }; turns: ScriptTurn[] }>;
  };
  const turns = script.agents.find((agent) => agent.when.role === 'worker' && agent.when.task === task)!.turns;
  return turns.map((turn) => {
    const blocks: ServerBlock[] = turn.text ? [{ type: 'text', text: turn.text }] : [];
    for (const tool of turn.tools ?? [])
      blocks.push({ type: 'tool_use', name: tool.name === 'Grep' ? 'Grep' : `mcp__orca__${tool.name}`, input: tool.input });
    return reply.stream(blocks);
  });
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

let server: MessagesServer;

beforeEach(async () => {
  const scripts = { cart: claudeCodeTurns('cart'), invoice: claudeCodeTurns('invoice') };
  // Two agents at once: each request is answered by its task (named in its first message) and its turn (the answers before it).
  server = new MessagesServer({
    answer: (body) => {
      const request = body as Body;
      if (!request.tools || request.tools.length === 0) return reply.text('ok');
      const first = JSON.stringify(request.messages[0]);
      const task = first.includes('src/cart.ts') ? 'cart' : first.includes('src/invoice.ts') ? 'invoice' : undefined;
      if (!task) return reply.error(400, 'invalid_request_error', 'the stand-in has no script for this conversation');
      const turn = request.messages.filter((message: Body) => message.role === 'assistant').length;
      return scripts[task][turn] ?? reply.text('Done.');
    },
  });
  await server.start();
});

afterEach(async () => {
  await server.close();
});

describe('orca run with Claude Code Workers over ACP', { timeout: SLOW_TEST_MS }, () => {
  it('merges two Claude Code Workers and one of orca’s own, checks and verification PASS, their calls on the board', async () => {
    const env = await OrcaTestEnv.open();
    const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
    const run = await env.cli(
      [
        'run',
        'a scripted task',
        '--repo',
        repo,
        '--script',
        DEMO_SCRIPT,
        '--json',
        '--workers',
        '2',
        '--agent',
        'worker=claude-code,worker/report=orca',
      ],
      { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-fake-key' }, deadlineMs: 280_000 },
    );
    let json: RunJson;
    try {
      json = JSON.parse(run.stdout) as RunJson;
    } catch {
      throw new Error(`orca run printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
    }
    expect(run.code, `${run.stderr}\n${JSON.stringify(json.tasks, null, 2)}`).toBe(0);
    expect(json.status).toBe('PASS');
    expect(json.tasks.map((task) => [task.id, task.status, task.agent]).sort()).toEqual([
      ['cart', 'merged', 'claude-code'],
      ['invoice', 'merged', 'claude-code'],
      ['report', 'merged', 'orca'],
    ]);
    expect(json.gates.every((gate) => gate.ok)).toBe(true);
    expect(json.verification?.verdict).toBe('PASS');
    for (const task of json.tasks)
      expect(
        task.gates?.every((gate) => gate.ok),
        task.id,
      ).toBe(true);

    // Claude Code's requests all passed the stand-in's checks.
    expect(server.requests.filter((request) => request.rejection !== undefined).map((request) => request.rejection)).toEqual([]);
    // The board's stream holds Claude Code's calls, its own Grep among orca's tools it called.
    const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry);
    const calls = (task: string) =>
      events
        .filter((entry) => entry.source === 'agent' && entry.task_id === task && (entry.event as Body).type === 'tool_call')
        .map((entry) => (entry.event as Body).name);
    expect(calls('cart')).toEqual(['Grep', 'Read', 'Edit', 'Edit', 'Edit', 'Read', 'Edit', 'Bash', 'Report']);
    expect(calls('invoice')).toEqual(['Grep', 'Read', 'Edit', 'Edit', 'Edit', 'Read', 'Edit', 'Bash', 'Report']);
  });
});
