import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { type Behaviour, MessagesServer, reply } from '../support/messagesServer.js';
import { npmInstallForFile } from '../support/npmInstall.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { transcriptsOf } from '../support/transcripts.js';

/**
 * `orca agent --agent opencode`: the real OpenCode (`opencode acp`, OPENCODE_VERSION from npm, on the workers' PATH)
 * as a Worker, against the strict Messages stand-in, in the sandbox. Its own read, edit and bash
 * are denied by the preset's settings; orca's are offered over MCP (`orca_Read` …), so its writes
 * meet orca's rules and its checks are evidence.
 */

const DEMO_SCRIPT = path.join(packageRoot(), 'coordinator', 'demo', 'demo-script.json');

/** The OpenCode the tests run, installed from npm for this file (support/npmInstall.ts says why not a devDependency). */
const OPENCODE_VERSION = '1.18.33';
const installed = npmInstallForFile(`opencode-ai@${OPENCODE_VERSION}`, SLOW_TEST_MS);

let server: MessagesServer;
/** The turns of an `orca run`'s OpenCode Worker, by the number of answers before the request: set by a test that runs one. */
let workerTurns: Behaviour[] | undefined;

beforeEach(async () => {
  workerTurns = undefined;
  // OpenCode's title request offers no tools: it gets a plain text.
  server = new MessagesServer({
    answer: (body) => {
      const request = body as Body;
      if (!request?.tools || request.tools.length === 0) return reply.text('A title');
      if (!workerTurns) return undefined;
      const turn = request.messages.filter((message: Body) => message.role === 'assistant').length;
      return workerTurns[turn] ?? reply.text('Done.');
    },
  });
  await server.start();
});

afterEach(async () => {
  await server.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

function apiEnv(): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-test-fake-key',
    PATH: `${installed.bin()}${path.delimiter}${process.env.PATH}`,
  };
}

/** The demo's Worker turns for `task` from its first Read on, as OpenCode's model calls them: orca's tools by OpenCode's names for them. */
function demoWorkerTurns(task: string): Behaviour[] {
  const script = JSON.parse(readFileSync(DEMO_SCRIPT, 'utf8')) as {
    agents: Array<{ when: { role: string; task?: string }; turns: Array<{ tools?: Array<{ name: string; input: unknown }> }> }>;
  };
  const turns = script.agents.find((agent) => agent.when.role === 'worker' && agent.when.task === task)!.turns;
  return turns
    .filter((turn) => !(turn.tools ?? []).some((tool) => tool.name === 'Grep'))
    .map((turn) => reply.stream((turn.tools ?? []).map((tool) => ({ type: 'tool_use', name: `orca_${tool.name}`, input: tool.input }))));
}

/** The requests that carried the task's tools (not OpenCode's title request). */
function taskRequests(): Body[] {
  return server.requests.filter((request) => (request.body?.tools ?? []).length > 0).map((request) => request.body);
}

describe('OpenCode as an orca agent over ACP', { timeout: SLOW_TEST_MS }, () => {
  it('writes and checks through orca’s tools, reports, and its commit holds only its change', async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({ 'src/greet.js': "export const greet = () => 'hello';\n" });
    const check = "node -e \"import('./src/greet.js').then((m) => process.exit(m.greet() === 'hi' ? 0 : 1))\"";
    server.enqueue(
      reply.toolUse('orca_Read', { file_path: 'src/greet.js' }),
      reply.toolUse('orca_Write', { file_path: 'src/greet.js', content: "export const greet = () => 'hi';\n" }),
      reply.toolUse('orca_Bash', { command: check }),
      reply.toolUse('orca_Report', { summary: 'greet says hi.', unresolved: [], claimed_checks: [{ command: check, exit_code: 0 }] }),
      reply.text('Done.'),
    );
    const run = await env.cli(['agent', '--role', 'worker', '--agent', 'opencode', 'Make greet() say hi.', '--repo', dir, '--json'], {
      env: apiEnv(),
      deadlineMs: 240_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    const out = JSON.parse(run.stdout) as Body;
    expect(out).toMatchObject({ status: 'completed', agent: 'opencode', sandbox: 'bwrap', usage_reported: true });
    expect(git(dir, 'diff', '--name-only', `${out.commit}~1`, out.commit)).toBe('src/greet.js');
    expect(git(dir, 'show', `${out.commit}:src/greet.js`).trim()).toBe("export const greet = () => 'hi';");

    // Every request OpenCode sent passed the stand-in's checks, at the preset's model, offering orca's tools and none of its own that write or run.
    expect(server.requests.map((request) => request.rejection)).toEqual(server.requests.map(() => undefined));
    expect(server.requests.every((request) => request.path === '/v1/messages')).toBe(true);
    const first = taskRequests()[0];
    expect(first.model).toBe('claude-sonnet-4-5');
    const tools = first.tools.map((tool: Body) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['orca_Report', 'orca_Read', 'orca_Write', 'orca_Edit', 'orca_Bash', 'grep']));
    for (const own of ['read', 'edit', 'write', 'apply_patch', 'patch', 'bash', 'webfetch', 'websearch', 'task'])
      expect(tools).not.toContain(own);
    // orca's role instructions open the first prompt.
    expect(JSON.stringify(first.messages[0])).toContain('You are an agent of orca');

    // The transcript shows OpenCode's calls, as orca ran them.
    const calls = transcriptsOf(env.home)
      .filter((line) => line.type === 'tool_call')
      .map((line) => line.name);
    expect(calls).toEqual(['Read', 'Write', 'Bash', 'Report']);
    expect(transcriptsOf(env.home).find((line) => line.type === 'session_start')).toMatchObject({ model: 'opencode (ACP)' });
  });

  it('holds a misbehaving OpenCode Worker in an orca run: its own write tool and a write outside its paths land nowhere, the guarded file is put back', async () => {
    const env = await OrcaTestEnv.open();
    const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
    const turn = (name: string, input: unknown) => reply.stream([{ type: 'tool_use', name, input }]);
    workerTurns = [
      ...demoWorkerTurns('cart').slice(0, 4),
      // OpenCode's own write tool, which its settings deny: it is not offered, and a call of it writes nothing.
      turn('write', { filePath: path.join('src', 'own.ts'), content: 'export const own = 1;\n' }),
      turn('orca_Write', { file_path: 'src/extra.ts', content: 'export const extra = 1;\n' }),
      // Written by code it runs, which no reading of the command sees: the watch after the call puts it back.
      turn('orca_Bash', {
        command: `node -e "const fs = require('fs'); fs.mkdirSync('.claude', { recursive: true }); fs.writeFileSync('.claude/settings.json', '{}')"`,
      }),
      turn('orca_Bash', { command: 'npm test' }),
      turn('orca_Report', { summary: 'cart done', unresolved: [], claimed_checks: [{ command: 'npm test', exit_code: 0 }] }),
      reply.text('Reported.'),
    ];
    // --ask-timeout 0: a request no rule answers is denied at once, never waited on.
    const cli = await env.cli(
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
        'worker/cart=opencode',
      ],
      { env: apiEnv(), deadlineMs: 240_000 },
    );
    const json = JSON.parse(cli.stdout) as RunJson;
    // What its checks printed and which calls failed or took long, for a failure to say why (the run
    // failed once in a full suite with `npm test` exiting 2: tsc's diagnostics, after edits whose results were not kept).
    const checksSaid = () =>
      JSON.stringify(
        transcriptsOf(env.home).filter(
          (line) =>
            /npm test|error TS/.test(JSON.stringify(line)) ||
            (line.type === 'tool_result' && (line.is_error === true || /Edit|Write/.test(String(line.name)))),
        ),
        null,
        1,
      ).slice(0, 12_000);
    expect(cli.code, `${cli.stderr}\n${JSON.stringify(json.tasks, null, 2)}\n${checksSaid()}`).toBe(0);
    expect(json.status).toBe('PASS');
    expect(json.tasks.map((task) => [task.id, task.status, task.agent]).sort()).toEqual([
      ['cart', 'verified', 'opencode'],
      ['invoice', 'verified', 'orca'],
      ['report', 'verified', 'orca'],
    ]);

    // Its edits merged; nothing outside its paths did, and the settings file its code wrote never reached a commit.
    const merged = git(repo, 'ls-tree', '-r', '--name-only', json.head).split('\n');
    for (const file of ['src/extra.ts', 'src/own.ts', '.claude/settings.json']) expect(merged).not.toContain(file);
    expect(git(repo, 'show', `${json.head}:src/cart.ts`)).not.toContain('function toDollars');

    // OpenCode's requests passed the stand-in's checks; its own write was never offered, and its call of it came back an error.
    expect(server.requests.filter((request) => request.rejection !== undefined).map((request) => request.rejection)).toEqual([]);
    const tools = taskRequests()[0].tools.map((tool: Body) => tool.name);
    expect(tools).not.toContain('write');
    const messages: Body[] = taskRequests().at(-1).messages;
    const blocks = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
    // OpenCode turns a call of a tool it does not offer into its `invalid` tool, whose error its model is sent.
    const ownWrite = blocks.find((block) => block.type === 'tool_use' && block.name === 'invalid' && block.input?.tool === 'write');
    const result = blocks.find((block) => block.type === 'tool_result' && block.tool_use_id === ownWrite?.id);
    expect(JSON.stringify(result?.content)).toContain("unavailable tool 'write'");

    const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry);
    const cart = events.filter((entry) => entry.source === 'agent' && entry.task_id === 'cart').map((entry) => entry.event as Body);
    expect(cart).toContainEqual(expect.objectContaining({ type: 'permission', tool: 'Write', decision: 'deny', by: 'owned-paths' }));
    expect(cart.some((event) => event.type === 'notice' && /put back \.claude\/settings\.json/.test(event.message))).toBe(true);
    const calls = cart.filter((event) => event.type === 'tool_call').map((event) => event.name);
    // Its refused call of its own `write` is on the board too, as OpenCode streamed it.
    expect(calls).toEqual(['Read', 'Edit', 'Edit', 'Edit', 'Read', 'Edit', 'write', 'Write', 'Bash', 'Bash', 'Report']);
  });
});
