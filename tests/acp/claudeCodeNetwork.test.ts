import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { hostReaches } from '../support/hostReaches.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { scriptedJob, testRunId } from '../support/scriptedJobs.js';

/**
 * Red team (issue 34): a real Claude Code agent whose command tries to reach orca's Redis, another
 * loopback port and a domain no rule names: each refused, while its model calls (the stand-in, on
 * loopback) and its Report (orca's MCP server, on loopback) go through. Its own process runs in a
 * network namespace other than the host's, reaching those two only through its proxy.
 */

let server: MessagesServer;
let other: Server;
let runId: string;
/** The network namespaces of the agent's node processes (the adapter, Claude Code, the proxy relay), seen mid-turn. */
let agentNetworks: string[] | undefined;
let workerPid = 0;
/** The worker's proxy socket folders, seen mid-turn. */
let egressMidTurn: string[] | undefined;

function egressDirs(): string[] {
  return readdirSync(os.tmpdir()).filter((name) => name.startsWith(`orca-egress-${workerPid}-`));
}

beforeEach(async () => {
  runId = testRunId('acp-net');
  agentNetworks = undefined;
  egressMidTurn = undefined;
  server = new MessagesServer({
    answer: (body) => {
      const tools = (body as { tools?: unknown[] } | undefined)?.tools;
      // Looked at while Claude Code waits on this answer: its processes are all up.
      agentNetworks ??= nodeProcessesOfRun(runId).map((pid) => readlinkSync(`/proc/${pid}/ns/net`));
      egressMidTurn ??= egressDirs();
      return !tools || tools.length === 0 ? reply.text('ok') : undefined;
    },
  });
  await server.start();
  other = createServer((_req, res) => res.end('other'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await server.close();
  await new Promise((resolve) => other.close(resolve));
});

/** Running node processes whose environment names the run (the agent gets ORCA_RUN_ID, as its commands do). */
function nodeProcessesOfRun(id: string): number[] {
  const needle = Buffer.from(`ORCA_RUN_ID=${id}\0`);
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/environ`).includes(needle) && readlinkSync(`/proc/${entry}/exe`) === process.execPath;
      } catch {
        return false; // Gone since the listing, or not ours to read.
      }
    })
    .map(Number);
}

/** The agent's command: each way out tried, what each came to written to net.json and printed. */
const PROBE = `
import { writeFileSync } from 'node:fs';
import net from 'node:net';
const direct = (host, port) => new Promise((resolve) => {
  const socket = net.connect(port, host);
  socket.setTimeout(5000, () => { socket.destroy(); resolve('timeout'); });
  socket.once('connect', () => { socket.destroy(); resolve('connected'); });
  socket.once('error', (error) => resolve(error.code));
});
const web = (url) => fetch(url).then((res) => 'status ' + res.status, (error) => error.cause?.code ?? error.message);
const out = {
  redis: await direct('127.0.0.1', 6379),
  otherPort: await direct('127.0.0.1', Number(process.argv[2])),
  domain: await web('http://example.com/'),
};
writeFileSync('net.json', JSON.stringify(out) + '\\n');
console.log('NET ' + JSON.stringify(out));
`;

describe('Claude Code’s network under orca', { timeout: SLOW_TEST_MS }, () => {
  it('refuses Redis, other loopback ports and unnamed domains; its model and its Report get through', async () => {
    expect(await hostReaches(6379)).toBe(true);
    const orca = await OrcaTestEnv.open();
    const repo = orca.dir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    const base = commitFiles(repo, { 'probe.mjs': PROBE }, 'initial');
    // No ANTHROPIC_API_KEY: the agent has its own token; orca's model is never called.
    const worker = await orca.startWorker({
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: 'sk-agent-own' },
    });
    workerPid = worker.pid;
    const otherPort = (other.address() as { port: number }).port;
    const command = `node probe.mjs ${otherPort}`;
    server.enqueue(
      reply.toolUse('mcp__orca__Bash', { command }),
      // Its accepted Report ends its turn: no closing request follows (docs/agents.md).
      reply.toolUse('mcp__orca__Report', { summary: 'probed the network', unresolved: [], claimed_checks: [{ command, exit_code: 0 }] }),
    );
    await orca.queue.add({ ...scriptedJob({ runId, taskId: 't1', repo, base, turns: [] }), agent: claudeCode });
    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result, result.detail).toMatchObject({ status: 'completed', agent: 'claude-code' });

    // What the command met, as Claude Code was told it and as it committed it.
    const probed = JSON.parse(git(repo, 'show', `${result.commit}:net.json`)) as Record<string, string>;
    expect(probed.redis).toMatch(/^E[A-Z]+$/);
    expect(probed.otherPort).toMatch(/^E[A-Z]+$/);
    expect(probed.domain).toMatch(/^E[A-Z_]+$/);
    const results = server.requests.flatMap((request) =>
      (request.body?.messages ?? []).flatMap((message: { content: unknown }) =>
        Array.isArray(message.content) ? message.content.filter((block: { type: string }) => block.type === 'tool_result') : [],
      ),
    );
    expect(JSON.stringify(results[0]?.content)).toContain(JSON.stringify(`NET ${JSON.stringify(probed)}`).slice(1, -1));

    // Its model calls went through (each carrying its own token), and its Report was accepted.
    expect(server.requests.map((request) => request.rejection)).toEqual(server.requests.map(() => undefined));
    expect(server.requests.every((request) => request.headers.authorization === 'Bearer sk-agent-own')).toBe(true);
    expect(result.report).toMatchObject({ summary: 'probed the network' });

    // The agent's own processes: none in the host's network namespace.
    expect(agentNetworks?.length).toBeGreaterThanOrEqual(2);
    expect(agentNetworks).not.toContain(readlinkSync('/proc/self/ns/net'));
    // Its proxy went with the session: no socket folder of the worker's is left (it runs no other proxy here).
    expect(egressMidTurn).toHaveLength(1);
    expect(egressDirs()).toEqual([]);
  });
});
