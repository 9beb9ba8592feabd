import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepo, writeFiles } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { MANY_TOOLS_SERVER, transcriptLines } from './mcpSupport.js';

/**
 * Deferred loading against the strict Messages stand-in (a stand-in, not Anthropic's API: the
 * client-side ToolSearch is used): a server with 120 tools, whose schemas would take more than
 * 10% of the window, is offered through ToolSearch, and a tool it loads is sent from then on,
 * after the static tools, with the cached prefix unchanged.
 */

let api: MessagesServer;

beforeEach(async () => {
  api = new MessagesServer();
  await api.start();
});

afterEach(async () => {
  await api.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

const REPORT = {
  findings: [{ fact: 'total() adds the prices without the tax', evidence: 'src/cart.ts:2' }],
  files: ['src/cart.ts'],
  questions: [],
};

describe('deferred MCP tools', { timeout: SLOW_TEST_MS }, () => {
  it('sends only the core tools and ToolSearch, then the tools ToolSearch loads, the static prefix byte for byte the same', async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({
      'src/cart.ts': 'export function total(prices: number[]): number {\n  return prices.reduce((sum, price) => sum + price, 0);\n}\n',
    });
    // A user's own server needs no approval.
    writeFiles(path.join(env.root, 'user-home'), {
      '.claude.json': JSON.stringify({ mcpServers: { many: { command: process.execPath, args: [MANY_TOOLS_SERVER] } } }),
    });
    api.enqueue(
      reply.thinkingToolUse('Find the tool.', 'ToolSearch', { query: 'select:mcp__many__tool_007' }),
      reply.thinkingToolUse('Call it.', 'mcp__many__tool_007', { id: 'A-7' }),
      reply.thinkingToolUse('Refund tools?', 'ToolSearch', { query: 'refund record', max_results: 2 }),
      reply.thinkingToolUse('Report.', 'Report', REPORT),
    );
    const env_ = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-key', ORCA_MODEL: 'claude-sonnet-5-5' };
    const run = await env.cli(['agent', '--role', 'explore', '--mcp', 'many', 'Look up record A-7.', '--repo', dir, '--json'], {
      env: env_,
    });

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed' });
    expect(api.requests.map((request) => request.rejection)).toEqual([undefined, undefined, undefined, undefined]);
    const [first, second, third, fourth] = api.requests.map((request) => request.body as Body);
    const names = (body: Body) => body.tools.map((tool: Body) => tool.name) as string[];

    expect(names(first)).toEqual(['Read', 'Glob', 'Grep', 'LSP', 'Bash', 'Skill', 'ToolSearch', 'Report']);
    expect(first.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    // The tool ToolSearch loaded comes after the static tools, which are sent exactly as before.
    expect(names(second)).toEqual([...names(first), 'mcp__many__tool_007']);
    expect(second.tools.slice(0, first.tools.length)).toEqual(first.tools);
    const loaded = second.tools.at(-1);
    expect(loaded.cache_control).toBeUndefined();
    expect(loaded.input_schema).toMatchObject({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] });
    expect(JSON.stringify(second.system[0])).toBe(JSON.stringify(first.system[0]));
    expect(JSON.stringify(second.system)).toBe(JSON.stringify(first.system));

    const selectResult = second.messages.at(-1).content[0];
    expect(selectResult.content).toContain('- mcp__many__tool_007: Looks up the calendar record number 7');
    expect(third.messages.at(-1).content[0].content).toContain('\ntool_007 calendar A-7\n');

    // Keywords: the refund tools, best first, two at most; still after the static tools.
    const added = names(fourth).slice(names(second).length);
    expect(added).toHaveLength(2);
    expect(added.every((name) => /^mcp__many__tool_\d\d4$/.test(name))).toBe(true);
    expect(JSON.stringify(fourth.system)).toBe(JSON.stringify(first.system));
    expect(fourth.tools.slice(0, first.tools.length)).toEqual(first.tools);

    const notices = transcriptLines(env.home)
      .filter((line) => line.type === 'notice')
      .map((line) => String(line.message));
    expect(notices).toContainEqual(
      expect.stringMatching(
        /^MCP servers: many \(121 tools\); the 121 MCP tools' schemas take about \d+ tokens, more than 10% of the 200000-token window: deferred, found with ToolSearch$/,
      ),
    );
  });
});
