import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AcpAgent } from '../../shared/core/agents/agentBackend.js';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { launchAgentProcess } from '../../workers/agents/agentSandbox.js';
import { hostReaches } from '../support/hostReaches.js';
import { tempDir } from '../support/tempDir.js';

/**
 * An external agent's process and the network (issue 34): a program started as the agent is
 * started, in its sandbox, that tries every way out it can. Only its model API's host:port and
 * orca's MCP server's port get through, and only through the proxy.
 */

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback HTTP server that answers every request with its own name. */
async function named(name: string): Promise<string> {
  const server = createServer((_req, res) => res.end(name));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/** What the "agent" runs: each way out, tried; one JSON line of what each came to. */
const PROBE = `
import http from 'node:http';
import net from 'node:net';
const [model, mcp, other] = process.argv.slice(2);
const proxy = new URL(process.env.HTTPS_PROXY);
const direct = (host, port) => new Promise((resolve) => {
  const socket = net.connect(port, host);
  socket.setTimeout(3000, () => { socket.destroy(); resolve('timeout'); });
  socket.once('connect', () => { socket.destroy(); resolve('connected'); });
  socket.once('error', (error) => resolve(error.code));
});
const viaProxy = (url) => new Promise((resolve) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, path: url, headers: { host: new URL(url).host } }, (res) => {
    let body = '';
    res.on('data', (chunk) => (body += chunk));
    res.on('end', () => resolve(res.statusCode === 200 ? body : res.statusCode));
  });
  req.once('error', (error) => resolve(error.code));
  req.end();
});
const connectVia = (target) => new Promise((resolve) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target });
  req.once('connect', (res, socket) => { socket.destroy(); resolve(res.statusCode); });
  req.once('response', (res) => resolve(res.statusCode));
  req.once('error', (error) => resolve(error.code));
  req.end();
});
const port = (url) => Number(new URL(url).port);
const out = {
  noProxy: process.env.NO_PROXY,
  directModel: await direct('127.0.0.1', port(model)),
  directMcp: await direct('127.0.0.1', port(mcp)),
  directRedis: await direct('127.0.0.1', 6379),
  directOutside: await direct('1.1.1.1', 443),
  model: await viaProxy(model + '/v1/messages'),
  mcp: await viaProxy(mcp + '/mcp'),
  other: await viaProxy(other + '/'),
  redis: await connectVia('127.0.0.1:6379'),
  redisByName: await connectVia('localhost:6379'),
  domain: await connectVia('example.com:443'),
  modelPortOtherHost: await viaProxy('http://localhost:' + port(model) + '/'),
};
process.stdout.write(JSON.stringify(out) + '\\n');
`;

async function probe(agent: AcpAgent, env: NodeJS.ProcessEnv, urls: { model: string; mcp: string; other: string }) {
  const worktree = tempDir('orca-acpnet-wt-');
  const sessionDir = tempDir('orca-acpnet-session-');
  writeFileSync(path.join(worktree, 'probe.mjs'), PROBE);
  const agentProcess = await launchAgentProcess({
    agent: { ...agent, command: [process.execPath, path.join(worktree, 'probe.mjs'), urls.model, urls.mcp, urls.other] },
    worktree,
    sessionDir,
    readable: [],
    sandboxed: true,
    jobEnv: {},
    mcpUrl: `${urls.mcp}/mcp`,
    env,
    userHome: tempDir('orca-acpnet-home-'),
  });
  let stdout = '';
  agentProcess.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exit = await agentProcess.group.exited;
  await agentProcess.close();
  expect(exit, agentProcess.stderrTail()).toEqual({ code: 0, signal: null });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('an external agent’s network', () => {
  it('reaches its model API and orca’s MCP server through its proxy, and nothing else', async () => {
    expect(await hostReaches(6379)).toBe(true);
    const urls = { model: await named('model'), mcp: await named('mcp'), other: await named('other') };
    const result = await probe(claudeCode, { ...process.env, ANTHROPIC_BASE_URL: urls.model }, urls);
    expect(result).toEqual({
      // Loopback is not direct: inside, 127.0.0.1 holds only the proxy's relay.
      noProxy: '',
      directModel: 'ECONNREFUSED',
      directMcp: 'ECONNREFUSED',
      directRedis: 'ECONNREFUSED',
      directOutside: 'ENETUNREACH',
      model: 'model',
      mcp: 'mcp',
      other: 403,
      redis: 403,
      redisByName: 403,
      domain: 403,
      // The rule names the base URL's host as written: the same port by another name is another host.
      modelPortOtherHost: 403,
    });
  });

  it('with no base URL set, reaches only its preset’s API hosts', async () => {
    const urls = { model: await named('model'), mcp: await named('mcp'), other: await named('other') };
    const env = { ...process.env };
    delete env.ANTHROPIC_BASE_URL;
    const result = await probe(claudeCode, env, urls);
    expect(result).toMatchObject({ model: 403, mcp: 'mcp', other: 403, redis: 403, domain: 403 });
  });
});
