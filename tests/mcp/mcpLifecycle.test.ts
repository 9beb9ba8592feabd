import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../shared/core/boundary/toolError.js';
import { groupAlive } from '../../shared/core/runtime/processGroup.js';
import type { McpServerEntry } from '../../shared/tools/mcp/mcpConfig.js';
import { McpPool } from '../../shared/tools/mcp/mcpPool.js';
import { McpServers } from '../../shared/tools/mcp/mcpServers.js';
import { makeRepo, writeFiles } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { pidWrittenTo, processesMatching } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';
import { MANY_TOOLS_SERVER } from './mcpSupport.js';

/** A server's process group id, through its first tool's connection. */
function pgidOf(servers: McpServers): number {
  const pgid = servers.running[0]?.lease.connection.pgid;
  if (pgid === undefined) throw new Error(`no stdio server is running: ${servers.problems.join('; ')}`);
  return pgid;
}

function fixture(extra: Record<string, string> = {}): McpServerEntry {
  return {
    name: 'fixture',
    scope: 'user',
    source: 'test',
    config: { command: process.execPath, args: [MANY_TOOLS_SERVER], env: { MCP_FIXTURE_TOOLS: '3', ...extra } },
  };
}

describe('MCP server lifecycle in one process', () => {
  it('shares a running server between agents with the same definition and stops it with the last', async () => {
    const pool = new McpPool();
    const cwd = tempDir();
    const selection = { start: [fixture()], refused: [] };
    const first = await McpServers.start({ selection, cwd, env: process.env, pool });
    const second = await McpServers.start({ selection, cwd, env: process.env, pool });
    const pgid = pgidOf(first);
    expect(pgidOf(second)).toBe(pgid);
    expect(pool.size).toBe(1);

    // Another working folder is another server: a stdio server runs in its agent's worktree.
    const elsewhere = await McpServers.start({ selection, cwd: tempDir(), env: process.env, pool });
    expect(pgidOf(elsewhere)).not.toBe(pgid);
    await elsewhere.close();

    await first.close();
    expect(groupAlive(pgid)).toBe(true);
    await second.close();
    expect(groupAlive(pgid)).toBe(false);
    expect(pool.size).toBe(0);
  });

  it('gives a call an error naming the server when its process is killed mid-call, and starts it afresh for the next agent', async () => {
    const pool = new McpPool();
    const dir = tempDir();
    const pidFile = path.join(dir, 'hang.pid');
    const selection = { start: [fixture({ MCP_FIXTURE_PIDFILE: pidFile })], refused: [] };
    const servers = await McpServers.start({ selection, cwd: dir, env: process.env, pool });
    const hang = servers.tools().find((tool) => tool.name === 'mcp__fixture__hang')!;
    const ctx = makeToolContext({ root: dir });
    const call = hang.call({}, ctx);
    const pid = await pidWrittenTo(pidFile);
    process.kill(pid, 'SIGKILL');
    const error = await call.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(
      /^MCP server "fixture" failed on hang: the server stopped during the call \(its process killed by SIGKILL\)/,
    );
    // Its other tools say so too, and the agent goes on.
    const other = servers.tools().find((tool) => tool.name === 'mcp__fixture__tool_001')!;
    await expect(other.call({ id: 'x' }, ctx)).rejects.toThrow(
      /^MCP server "fixture" failed on tool_001: the server is not running: its process killed by SIGKILL/,
    );
    await servers.close();

    const next = await McpServers.start({ selection, cwd: dir, env: process.env, pool });
    expect(pgidOf(next)).not.toBe(pid);
    const output = await next
      .tools()
      .find((tool) => tool.name === 'mcp__fixture__tool_001')!
      .call({ id: 'x' }, ctx);
    expect(output.content).toBe('tool_001 customer x');
    const pgid = pgidOf(next);
    await next.close();
    expect(groupAlive(pgid)).toBe(false);
  });

  it('stops a call when the agent is aborted, and nothing of the server is left once the agent closes', async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'hang.pid');
    const servers = await McpServers.start({
      selection: { start: [fixture({ MCP_FIXTURE_PIDFILE: pidFile })], refused: [] },
      cwd: dir,
      env: process.env,
      pool: new McpPool(),
    });
    const controller = new AbortController();
    const ctx = makeToolContext({ root: dir, signal: controller.signal });
    const call = servers
      .tools()
      .find((tool) => tool.name === 'mcp__fixture__hang')!
      .call({}, ctx);
    while (!existsSync(pidFile)) await sleep(20);
    controller.abort();
    await expect(call).rejects.toThrow('mcp__fixture__hang was aborted.');
    const pgid = pgidOf(servers);
    await servers.close();
    expect(groupAlive(pgid)).toBe(false);
  });

  it('reports a server that cannot start in one line and starts the others', async () => {
    const servers = await McpServers.start({
      selection: {
        start: [{ name: 'missing', scope: 'user', source: 'test', config: { command: '/no/such/server', args: [], env: {} } }, fixture()],
        refused: [],
      },
      cwd: tempDir(),
      env: process.env,
      pool: new McpPool(),
    });
    expect(servers.problems).toHaveLength(1);
    expect(servers.problems[0]).toMatch(/^MCP server "missing" is not available: it could not start: .*ENOENT; its tools are unavailable$/);
    expect(servers.running.map((server) => server.name)).toEqual(['fixture']);
    expect(servers.promptSection()).toMatch(/- missing: it could not start: .*ENOENT; its tools are unavailable/);
    await servers.close();
  });
});

describe('an MCP server killed mid-call in a worker', { timeout: SLOW_TEST_MS }, () => {
  let api: MessagesServer;

  beforeEach(async () => {
    api = new MessagesServer();
    await api.start();
  });

  afterEach(async () => {
    await api.close();
  });

  it('gives the agent an error naming the server; the next session starts it again; none outlives its agent', async () => {
    const env = await OrcaTestEnv.open();
    const pidFile = path.join(env.root, 'hang.pid');
    const dir = makeRepo({ 'src/cart.ts': 'export const total = 0;\n' });
    writeFiles(path.join(env.root, 'user-home'), {
      '.claude.json': JSON.stringify({
        mcpServers: {
          fixture: { command: process.execPath, args: [MANY_TOOLS_SERVER], env: { MCP_FIXTURE_TOOLS: '3', MCP_FIXTURE_PIDFILE: pidFile } },
        },
      }),
    });
    const apiEnv = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-key', ORCA_MODEL: 'claude-sonnet-5-5' };
    const worker = await env.startWorker({ env: apiEnv });
    const report = { findings: [], files: [], questions: [] };
    api.enqueue(
      reply.thinkingToolUse('Wait on it.', 'mcp__fixture__hang', {}),
      reply.thinkingToolUse('It died.', 'Report', report),
      reply.thinkingToolUse('Again.', 'mcp__fixture__tool_002', { id: 'B-2' }),
      reply.thinkingToolUse('Done.', 'Report', report),
    );
    const args = ['agent', '--role', 'explore', '--mcp', 'fixture', 'Use the fixture.', '--repo', dir, '--json', '--no-local-workers'];
    const firstRun = env.cli(args, { env: apiEnv });
    const killed = await pidWrittenTo(pidFile);
    process.kill(killed, 'SIGKILL');
    const first = await firstRun;
    expect(first.code, first.stderr).toBe(0);
    const died = api.requests[1]!.body.messages.at(-1).content[0];
    expect(died.is_error).toBe(true);
    expect(died.content).toMatch(
      /^MCP server "fixture" failed on hang: the server stopped during the call \(its process killed by SIGKILL\)/,
    );
    expect(processesMatching(MANY_TOOLS_SERVER)).toEqual([]);

    const second = await env.cli(args, { env: apiEnv });
    expect(second.code, second.stderr).toBe(0);
    expect(api.requests[3]!.body.messages.at(-1).content[0].content).toContain('\ntool_002 shipment B-2\n');
    expect(api.requests.map((request) => request.rejection)).toEqual([undefined, undefined, undefined, undefined]);
    // The worker lives on; no server does.
    expect(worker.child.exitCode).toBeNull();
    expect(processesMatching(MANY_TOOLS_SERVER)).toEqual([]);
  });
  it('stops the servers of an agent whose run is aborted mid-call; the worker goes on', async () => {
    const env = await OrcaTestEnv.open();
    const pidFile = path.join(env.root, 'hang.pid');
    const dir = makeRepo({ 'src/cart.ts': 'export const total = 0;\n' });
    writeFiles(path.join(env.root, 'user-home'), {
      '.claude.json': JSON.stringify({
        mcpServers: {
          fixture: { command: process.execPath, args: [MANY_TOOLS_SERVER], env: { MCP_FIXTURE_TOOLS: '3', MCP_FIXTURE_PIDFILE: pidFile } },
        },
      }),
    });
    const apiEnv = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-key', ORCA_MODEL: 'claude-sonnet-5-5' };
    const worker = await env.startWorker({ env: apiEnv });
    api.enqueue(reply.thinkingToolUse('Wait on it.', 'mcp__fixture__hang', {}));
    const running = env.cli(
      ['agent', '--role', 'explore', '--mcp', 'fixture', 'Use the fixture.', '--repo', dir, '--json', '--no-local-workers'],
      {
        env: apiEnv,
      },
    );
    while (!existsSync(pidFile)) await sleep(20);
    expect(processesMatching(MANY_TOOLS_SERVER)).toHaveLength(1);
    const runId = readdirSync(path.join(env.home, 'runs'))[0]!.replace(/\.json$/, '');
    const abort = await env.cli(['abort', runId]);
    expect(abort.code, abort.stderr).toBe(0);
    const run = await running;
    expect(run.code).toBe(130);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'aborted' });
    expect(processesMatching(MANY_TOOLS_SERVER)).toEqual([]);
    expect(worker.child.exitCode).toBeNull();
  });
});
