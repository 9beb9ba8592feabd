import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepo, writeFiles } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { processesMatching } from '../support/processTable.js';
import { EVERYTHING_SERVER, HttpEverything, transcriptLines } from './mcpSupport.js';

/**
 * `orca agent --mcp` end to end: the CLI, the queue, a real worker process, the real SDK against
 * the strict Messages stand-in, and real MCP servers from the npm registry
 * (@modelcontextprotocol/server-everything, over stdio and in its streamable HTTP mode).
 */

let api: MessagesServer;
let http: HttpEverything;

beforeEach(async () => {
  api = new MessagesServer();
  await api.start();
  http = await HttpEverything.start();
});

afterEach(async () => {
  await api.close();
  await http.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

const REPORT = {
  findings: [{ fact: 'total() adds the prices without the tax', evidence: 'src/cart.ts:2' }],
  files: ['src/cart.ts'],
  questions: [],
};

function apiEnv(): Record<string, string> {
  return { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-key', ORCA_MODEL: 'claude-sonnet-5-5' };
}

/** The last tool_result a request carries. */
function lastResult(body: Body): Body {
  return body.messages.at(-1).content.find((block: Body) => block.type === 'tool_result');
}

describe('MCP servers in an agent', { timeout: SLOW_TEST_MS }, () => {
  it('calls a stdio and an HTTP server through hooks and rules, leaves an unapproved one unstarted, and stops the servers with the agent', async () => {
    const env = await OrcaTestEnv.open();
    const marker = path.join(env.root, 'unapproved-started');
    const hookLog = path.join(env.root, 'pre-tool-use.jsonl');
    const psLog = path.join(env.root, 'servers-during-calls.txt');
    const dir = makeRepo({
      'src/cart.ts': 'export function total(prices: number[]): number {\n  return prices.reduce((sum, price) => sum + price, 0);\n}\n',
      '.mcp.json': JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
          web: { type: 'http', url: '${EVERYTHING_URL:-http://127.0.0.1:1/mcp}' },
          unapproved: { command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`] },
        },
      }),
      '.claude/settings.json': JSON.stringify({ permissions: { deny: ['mcp__everything__echo'] } }),
    });
    // The user's own settings approve two of the project's servers and log every MCP call.
    writeFiles(path.join(env.root, 'user-home', '.claude'), {
      'settings.json': JSON.stringify({
        enabledMcpjsonServers: ['everything', 'web'],
        hooks: {
          PreToolUse: [
            {
              matcher: 'mcp__.*',
              hooks: [
                {
                  type: 'command',
                  command: `cat >> ${hookLog}; echo >> ${hookLog}; ps -eo args | grep -c '[s]erver-everything/dist/index.js stdio' >> ${psLog}`,
                },
              ],
            },
          ],
        },
      }),
    });
    api.enqueue(
      reply.thinkingToolUse('Add over stdio.', 'mcp__everything__get-sum', { a: 2, b: 3 }),
      reply.thinkingToolUse('Echo over HTTP.', 'mcp__web__echo', { message: 'over http' }),
      reply.thinkingToolUse('Echo over stdio.', 'mcp__everything__echo', { message: 'refused' }),
      reply.thinkingToolUse('Report.', 'Report', REPORT),
    );
    const worker = await env.startWorker({ env: { ...apiEnv(), EVERYTHING_URL: http.url } });
    const run = await env.cli(
      ['agent', '--role', 'explore', '--mcp', 'everything,web,unapproved', 'Add 2 and 3.', '--repo', dir, '--json', '--no-local-workers'],
      { env: apiEnv() },
    );

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', report: REPORT });
    expect(api.requests.map((request) => request.rejection)).toEqual([undefined, undefined, undefined, undefined]);

    const first = api.requests[0]!.body;
    const names = first.tools.map((tool: Body) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['Read', 'mcp__everything__get-sum', 'mcp__web__echo', 'Report']));
    expect(names.filter((name: string) => name.startsWith('mcp__unapproved'))).toEqual([]);
    expect(first.tools.find((tool: Body) => tool.name === 'mcp__everything__get-sum').input_schema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    // The agent is told which servers run, with their instructions, and why the third does not.
    const dynamic = first.system[1].text as string;
    expect(dynamic).toContain('## everything');
    expect(dynamic).toMatch(/- unapproved: it is a project server the user has not approved: add "unapproved" to enabledMcpjsonServers/);
    expect(existsSync(marker)).toBe(false);

    // Outside data, marked as such like every tool's output from beyond the workspace.
    const sum = lastResult(api.requests[1]!.body);
    expect(sum.is_error).toBeUndefined();
    expect(sum.content).toContain('<untrusted-data source="mcp__everything__get-sum"');
    expect(sum.content).toContain('\nThe sum of 2 and 3 is 5.\n');
    expect(lastResult(api.requests[2]!.body).content).toContain('Echo: over http');
    const refused = lastResult(api.requests[3]!.body);
    expect(refused.is_error).toBe(true);
    expect(refused.content).toBe(
      'Permission to use mcp__everything__echo was denied: the rule mcp__everything__echo in .claude/settings.json denies `{"message":"refused"}`',
    );

    // The hook saw every MCP call, the refused one too (it runs before the permission decision).
    const seen = readFileSync(hookLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { tool_name: string; tool_input: unknown });
    expect(seen.map((call) => call.tool_name)).toEqual(['mcp__everything__get-sum', 'mcp__web__echo', 'mcp__everything__echo']);

    const transcript = transcriptLines(env.home);
    const results = transcript.filter((line) => line.type === 'tool_result' && String(line.name).startsWith('mcp__'));
    expect(results.map((line) => [line.name, line.is_error, line.preview])).toEqual([
      ['mcp__everything__get-sum', false, 'The sum of 2 and 3 is 5.'],
      ['mcp__web__echo', false, 'Echo: over http'],
      ['mcp__everything__echo', true, expect.stringContaining('the rule mcp__everything__echo in .claude/settings.json')],
    ]);
    expect(transcript.filter((line) => line.type === 'notice').map((line) => line.message)).toContainEqual(
      expect.stringMatching(/^MCP server "unapproved" is not available: it is a project server the user has not approved/),
    );

    // One stdio server ran during the calls; nothing of it is left once the agent ended, though its worker process lives on.
    expect(readFileSync(psLog, 'utf8').split('\n').filter(Boolean)).toEqual(['1', '1', '1']);
    expect(worker.child.exitCode).toBeNull();
    expect(processesMatching(`${EVERYTHING_SERVER} stdio`)).toEqual([]);
  });
  it("gives a custom role the servers of its mcpServers, and a built-in role's --mcp does not change them", async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({
      'src/cart.ts': 'export function total(prices: number[]): number {\n  return prices.reduce((sum, price) => sum + price, 0);\n}\n',
      '.claude/agents/adder.md': [
        '---',
        'name: adder',
        'description: Adds numbers.',
        'tools: Read',
        'permissionMode: plan',
        'mcpServers:',
        '  - sums:',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]`,
        '---',
        'Add the numbers you are given.',
      ].join('\n'),
    });
    writeFiles(path.join(env.root, 'user-home', '.claude'), { 'settings.json': JSON.stringify({ enabledMcpjsonServers: ['sums'] }) });
    api.enqueue(reply.thinkingToolUse('Add.', 'mcp__sums__get-sum', { a: 20, b: 22 }), reply.thinkingToolUse('Report.', 'Report', REPORT));
    const run = await env.cli(['agent', '--role', 'adder', '--mcp', 'web', 'Add 20 and 22.', '--repo', dir, '--json'], { env: apiEnv() });

    expect(run.code, run.stderr).toBe(0);
    const tools = api.requests[0]!.body.tools.map((tool: Body) => tool.name);
    expect(tools).toEqual(['Read', 'mcp__sums__echo', ...tools.slice(2)]);
    expect(tools.filter((name: string) => name.startsWith('mcp__web'))).toEqual([]);
    expect(lastResult(api.requests[1]!.body).content).toContain('\nThe sum of 20 and 22 is 42.\n');
    expect(processesMatching(`${EVERYTHING_SERVER} stdio`)).toEqual([]);
  });
  it('lets a Scripted-model agent call one tool of each transport, the results in its transcript', async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({
      'src/cart.ts': 'export function total(prices: number[]): number {\n  return prices.reduce((sum, price) => sum + price, 0);\n}\n',
    });
    writeFiles(path.join(env.root, 'user-home'), {
      '.claude.json': JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
          web: { type: 'http', url: http.url },
        },
      }),
    });
    const script = path.join(env.root, 'script.json');
    writeFileSync(
      script,
      JSON.stringify({
        agents: [
          {
            when: { role: 'explore' },
            turns: [
              { tools: [{ name: 'mcp__everything__get-sum', input: { a: 40, b: 2 } }] },
              { tools: [{ name: 'mcp__web__get-tiny-image', input: {} }] },
              { tools: [{ name: 'Report', input: REPORT }] },
            ],
          },
        ],
      }),
    );
    const run = await env.cli([
      'agent',
      '--role',
      'explore',
      '--mcp',
      'everything,web',
      'Add.',
      '--repo',
      dir,
      '--script',
      script,
      '--json',
    ]);

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed' });
    const results = transcriptLines(env.home).filter((line) => line.type === 'tool_result' && String(line.name).startsWith('mcp__'));
    expect(results.map((line) => [line.name, line.is_error, line.preview])).toEqual([
      ['mcp__everything__get-sum', false, 'The sum of 40 and 2 is 42.'],
      ['mcp__web__get-tiny-image', false, expect.stringContaining("Here's the image you requested:")],
    ]);
    expect(processesMatching(`${EVERYTHING_SERVER} stdio`)).toEqual([]);
  });
});
