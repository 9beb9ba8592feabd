import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { npmInstallForFile } from '../support/npmInstall.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { ResponsesServer, responsesReply } from '../support/responsesServer.js';
import { transcriptsOf } from '../support/transcripts.js';

/**
 * `orca agent --agent codex`: the real Codex (Zed's `codex-acp`, CODEX_ACP_VERSION from npm, on
 * the workers' PATH) as a Worker, against the strict Responses stand-in, in the sandbox. Its own
 * shell is off and its patches are refused; orca's Read, Write, Edit and Bash are offered over
 * MCP (its namespace `mcp__orca`), so its writes meet orca's rules and its checks are evidence.
 */

const DEMO_SCRIPT = path.join(packageRoot(), 'coordinator', 'demo', 'demo-script.json');

/** The Codex adapter the tests run, installed from npm for this file (support/npmInstall.ts says why not a devDependency). */
const CODEX_ACP_VERSION = '0.16.0';
const installed = npmInstallForFile(`@zed-industries/codex-acp@${CODEX_ACP_VERSION}`, SLOW_TEST_MS);

let server: ResponsesServer;

beforeEach(async () => {
  server = new ResponsesServer();
  await server.start();
});

afterEach(async () => {
  await server.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

function apiEnv(): Record<string, string> {
  return {
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: 'sk-test-fake-openai-key',
    PATH: `${installed.bin()}${path.delimiter}${process.env.PATH}`,
  };
}

/** The demo's Worker turns for `task` from its first Read on, as Codex's model calls them: orca's tools in the `mcp__orca` namespace (no Grep: Codex is not offered orca's). */
function demoWorkerTurns(task: string) {
  const script = JSON.parse(readFileSync(DEMO_SCRIPT, 'utf8')) as {
    agents: Array<{ when: { role: string; task?: string }; turns: Array<{ tools?: Array<{ name: string; input: unknown }> }> }>;
  };
  const turns = script.agents.find((agent) => agent.when.role === 'worker' && agent.when.task === task)!.turns;
  return turns
    .filter((turn) => !(turn.tools ?? []).some((tool) => tool.name === 'Grep'))
    .flatMap((turn) => (turn.tools ?? []).map((tool) => responsesReply.orca(tool.name, tool.input)));
}

/** The names of the tools a request offered, a namespace's as `namespace.name`. */
function offered(body: Body): string[] {
  return body.tools.flatMap((tool: Body) =>
    tool.type === 'namespace' ? tool.tools.map((inner: Body) => `${tool.name}.${inner.name}`) : [tool.name ?? tool.type],
  );
}

describe('Codex as an orca agent over ACP', { timeout: SLOW_TEST_MS }, () => {
  it('writes and checks through orca’s tools, reports, and its commit holds only its change', async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({ 'src/greet.js': "export const greet = () => 'hello';\n" });
    const check = "node -e \"import('./src/greet.js').then((m) => process.exit(m.greet() === 'hi' ? 0 : 1))\"";
    server.enqueue(
      responsesReply.orca('Read', { file_path: 'src/greet.js' }),
      responsesReply.orca('Write', { file_path: 'src/greet.js', content: "export const greet = () => 'hi';\n" }),
      responsesReply.orca('Bash', { command: check }),
      responsesReply.orca('Report', { summary: 'greet says hi.', unresolved: [], claimed_checks: [{ command: check, exit_code: 0 }] }),
    );
    const run = await env.cli(['agent', '--role', 'worker', '--agent', 'codex', 'Make greet() say hi.', '--repo', dir, '--json'], {
      env: apiEnv(),
      deadlineMs: 240_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout}\n${JSON.stringify(server.requests.map((r) => [r.path, r.rejection]))}`).toBe(0);
    const out = JSON.parse(run.stdout) as Body;
    // Codex reports no tokens or cost over ACP (its usage_update carries only its context's size): said, not zeros passed off as spent.
    expect(out).toMatchObject({ status: 'completed', agent: 'codex', sandbox: 'bwrap', usage_reported: false });
    expect(git(dir, 'diff', '--name-only', `${out.commit}~1`, out.commit)).toBe('src/greet.js');
    expect(git(dir, 'show', `${out.commit}:src/greet.js`).trim()).toBe("export const greet = () => 'hi';");

    // Every request passed the stand-in's checks, over HTTP (no WebSocket tried), with the key as a bearer token.
    expect(server.requests.map((request) => [request.method, request.path, request.rejection])).toEqual(
      server.requests.map(() => ['POST', '/v1/responses', undefined]),
    );
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-fake-openai-key');
    // orca's tools offered in the `mcp__orca` namespace; no shell of Codex's own.
    const tools = offered(server.requests[0]!.body);
    expect(tools).toEqual(
      expect.arrayContaining(['mcp__orca.Read', 'mcp__orca.Write', 'mcp__orca.Edit', 'mcp__orca.Bash', 'mcp__orca.Report']),
    );
    for (const own of ['shell', 'shell_command', 'exec_command', 'local_shell', 'write_stdin']) expect(tools).not.toContain(own);
    // orca's role instructions open the first prompt.
    expect(JSON.stringify(server.requests[0]!.body.input)).toContain('You are an agent of orca');
    // The accepted Report ended Codex's turn: no request after the one that called it.
    expect(server.requests).toHaveLength(4);
    expect(server.pending).toBe(0);

    // The transcript shows Codex's calls, as orca ran them.
    const calls = transcriptsOf(env.home)
      .filter((line) => line.type === 'tool_call')
      .map((line) => line.name);
    expect(calls).toEqual(['Read', 'Write', 'Bash', 'Report']);
  });

  it('holds a misbehaving Codex Worker in an orca run: its own patch and a write outside its paths land nowhere, the guarded file is put back', async () => {
    const env = await OrcaTestEnv.open();
    const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
    const ownPatch = '*** Begin Patch\n*** Add File: src/own.ts\n+export const own = 1;\n*** End Patch\n';
    server.enqueue(
      ...demoWorkerTurns('cart').slice(0, -2),
      // Codex's own apply_patch, which its settings keep from writing: Codex refuses it and tells its model.
      responsesReply.custom('apply_patch', ownPatch),
      responsesReply.orca('Write', { file_path: 'src/extra.ts', content: 'export const extra = 1;\n' }),
      // Written by code it runs, which no reading of the command sees: the watch after the call puts it back.
      responsesReply.orca('Bash', {
        command: `node -e "const fs = require('fs'); fs.mkdirSync('.claude', { recursive: true }); fs.writeFileSync('.claude/settings.json', '{}')"`,
      }),
      ...demoWorkerTurns('cart').slice(-2),
    );
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
        'worker/cart=codex',
      ],
      { env: apiEnv(), deadlineMs: 240_000 },
    );
    const json = JSON.parse(cli.stdout) as RunJson;
    const said = JSON.stringify(server.requests.map((request) => [request.path, request.rejection]));
    expect(cli.code, `${cli.stderr}\n${JSON.stringify(json.tasks, null, 2)}\n${said}`).toBe(0);
    expect(json.status).toBe('PASS');
    expect(json.tasks.map((task) => [task.id, task.status, task.agent]).sort()).toEqual([
      ['cart', 'verified', 'codex'],
      ['invoice', 'verified', 'orca'],
      ['report', 'verified', 'orca'],
    ]);

    // Its edits merged; nothing outside its paths did, and the settings file its code wrote never reached a commit.
    const merged = git(repo, 'ls-tree', '-r', '--name-only', json.head).split('\n');
    for (const file of ['src/extra.ts', 'src/own.ts', '.claude/settings.json']) expect(merged).not.toContain(file);

    // Every request passed the stand-in's checks; Codex told its model its own patch was refused.
    expect(server.requests.filter((request) => request.rejection !== undefined).map((request) => request.rejection)).toEqual([]);
    expect(server.pending).toBe(0);
    const patchOutput = server.requests.at(-1)!.body.input.find((item: Body) => item.type === 'custom_tool_call_output');
    expect(String(patchOutput?.output)).toContain('patch rejected');

    const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry);
    const cart = events.filter((entry) => entry.source === 'agent' && entry.task_id === 'cart').map((entry) => entry.event as Body);
    expect(cart).toContainEqual(expect.objectContaining({ type: 'permission', tool: 'Write', decision: 'deny', by: 'owned-paths' }));
    expect(cart.some((event) => event.type === 'notice' && /put back \.claude\/settings\.json/.test(event.message))).toBe(true);
  });
});
