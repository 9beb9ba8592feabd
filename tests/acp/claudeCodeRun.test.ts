import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { git } from '../support/gitRepo.js';
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

let server: MessagesServer | undefined;

/** The stand-in for Claude Code's agents: each request answered by its task (named in its first message) and its turn (the answers before it). */
async function standIn(scripts: Record<string, Behaviour[]>): Promise<MessagesServer> {
  server = new MessagesServer({
    answer: (body) => {
      const request = body as Body;
      if (!request.tools || request.tools.length === 0) return reply.text('ok');
      const first = JSON.stringify(request.messages[0]);
      const task = Object.keys(scripts).find((name) => first.includes(`src/${name}.ts`));
      if (!task) return reply.error(400, 'invalid_request_error', 'the stand-in has no script for this conversation');
      const turn = request.messages.filter((message: Body) => message.role === 'assistant').length;
      return scripts[task]![turn] ?? reply.text('Done.');
    },
  });
  await server.start();
  return server;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function orcaRun(
  env: OrcaTestEnv,
  repo: string,
  api: MessagesServer,
  agents: string,
): Promise<{ code: number | null; json: RunJson; stderr: string }> {
  // --ask-timeout 0: a request no rule answers is denied at once, never waited on.
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
      '--ask-timeout',
      '0',
      '--agent',
      agents,
    ],
    {
      env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-fake-key' },
      deadlineMs: 200_000,
    },
  );
  try {
    return { code: run.code, json: JSON.parse(run.stdout) as RunJson, stderr: run.stderr };
  } catch {
    throw new Error(`orca run printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

describe('orca run with Claude Code Workers over ACP', { timeout: SLOW_TEST_MS }, () => {
  it('merges two Claude Code Workers and one of orca’s own, checks and verification PASS, their calls on the board', async () => {
    const env = await OrcaTestEnv.open();
    const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
    const api = await standIn({ cart: claudeCodeTurns('cart'), invoice: claudeCodeTurns('invoice') });
    const run = await orcaRun(env, repo, api, 'worker=claude-code,worker/report=orca');
    const { json } = run;
    expect(run.code, `${run.stderr}\n${JSON.stringify(json.tasks, null, 2)}`).toBe(0);
    expect(json.status).toBe('PASS');
    expect(json.tasks.map((task) => [task.id, task.status, task.agent]).sort()).toEqual([
      ['cart', 'verified', 'claude-code'],
      ['invoice', 'verified', 'claude-code'],
      ['report', 'verified', 'orca'],
    ]);
    expect(json.gates.every((gate) => gate.ok)).toBe(true);
    expect(json.verification?.verdict).toBe('PASS');
    for (const task of json.tasks)
      expect(
        task.gates?.every((gate) => gate.ok),
        task.id,
      ).toBe(true);

    // Claude Code's requests all passed the stand-in's checks.
    expect(api.requests.filter((request) => request.rejection !== undefined).map((request) => request.rejection)).toEqual([]);
    // The board's stream holds Claude Code's calls, its own Grep among orca's tools it called.
    const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry);
    const calls = (task: string) =>
      events
        .filter((entry) => entry.source === 'agent' && entry.task_id === task && (entry.event as Body).type === 'tool_call')
        .map((entry) => (entry.event as Body).name);
    expect(calls('cart')).toEqual(['Grep', 'Read', 'Edit', 'Edit', 'Edit', 'Read', 'Edit', 'Bash', 'Report']);
    expect(calls('invoice')).toEqual(['Grep', 'Read', 'Edit', 'Edit', 'Edit', 'Read', 'Edit', 'Bash', 'Report']);
    // The board names the agent of each task that orca's own loop did not run.
    const status = await env.cli(['status', json.run_id]);
    expect(status.stdout).toMatch(/\bcart\s+worker \(claude-code\)/);
    expect(status.stdout).toMatch(/\breport\s+worker\s/);
  });

  it('holds a misbehaving Claude Code Worker: nothing outside its paths merges, the guarded file is put back, its false claim is refused', async () => {
    const env = await OrcaTestEnv.open();
    const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
    const turn = (name: string, input: unknown) => reply.stream([{ type: 'tool_use', name, input }]);
    const misbehaving = [
      ...claudeCodeTurns('cart').slice(0, 5),
      turn('mcp__orca__Write', { file_path: 'src/extra.ts', content: 'export const extra = 1;\n' }),
      // Written by code it runs, which no reading of the command sees: the watch after the call puts it back.
      turn('mcp__orca__Bash', {
        command: `node -e "const fs = require('fs'); fs.mkdirSync('.claude', { recursive: true }); fs.writeFileSync('.claude/settings.json', '{}')"`,
      }),
      turn('mcp__orca__Report', { summary: 'cart done', unresolved: [], claimed_checks: [{ command: 'npm test', exit_code: 0 }] }),
      reply.text('Reported.'),
      // orca's further prompt: the check is run, and reported honestly.
      turn('mcp__orca__Bash', { command: 'npm test' }),
      turn('mcp__orca__Report', { summary: 'cart done', unresolved: [], claimed_checks: [{ command: 'npm test', exit_code: 0 }] }),
    ];
    const api = await standIn({ cart: misbehaving });
    const run = await orcaRun(env, repo, api, 'worker/cart=claude-code');
    const { json } = run;
    expect(run.code, `${run.stderr}\n${JSON.stringify(json.tasks, null, 2)}`).toBe(0);
    expect(json.tasks.map((task) => [task.id, task.status, task.agent]).sort()).toEqual([
      ['cart', 'verified', 'claude-code'],
      ['invoice', 'verified', 'orca'],
      ['report', 'verified', 'orca'],
    ]);

    // Nothing outside its paths merged, and the settings file it wrote never reached a commit.
    const merged = git(repo, 'ls-tree', '-r', '--name-only', json.head).split('\n');
    expect(merged).not.toContain('src/extra.ts');
    expect(merged).not.toContain('.claude/settings.json');

    const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry);
    const cart = events.filter((entry) => entry.source === 'agent' && entry.task_id === 'cart').map((entry) => entry.event as Body);
    expect(cart).toContainEqual(expect.objectContaining({ type: 'permission', tool: 'Write', decision: 'deny', by: 'owned-paths' }));
    expect(cart.some((event) => event.type === 'notice' && /put back \.claude\/settings\.json/.test(event.message))).toBe(true);
    // The false claim was refused with a further prompt in the same session, and Claude Code's model was sent it.
    const further = cart.filter((event) => event.type === 'prompt').slice(1);
    expect(further.length).toBeGreaterThan(0);
    const refusal = further.map((event) => event.text as string).find((text) => text.includes('npm test'));
    expect(refusal, JSON.stringify(further)).toBeDefined();
    expect(
      api.requests.some((request) =>
        JSON.stringify(request.body?.messages ?? []).includes(JSON.stringify(refusal!.slice(0, 80)).slice(1, -1)),
      ),
    ).toBe(true);
  });
});
