import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { AgentStart } from '../../workers/agents/agentStart.js';
import { tempDir } from '../support/tempDir.js';

/**
 * An external agent started ahead of its session (issue 34): it answers `initialize` before any
 * session exists; what it and its MCP client ask meanwhile waits for the session, and is answered
 * by the session's client and tools once bound; closed before any session ran, nothing of it is left.
 */

/** A minimal ACP agent: it answers initialize, and at session/new streams one message before answering. */
const AGENT = (sdk: string) => `
import * as acp from ${JSON.stringify(sdk)};
import { Readable, Writable } from 'node:stream';
const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
new acp.AgentSideConnection((conn) => ({
  initialize: async () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }),
  newSession: async () => {
    await conn.sessionUpdate({ sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'early' } } });
    return { sessionId: 's1' };
  },
  authenticate: async () => ({}),
  prompt: async () => ({ stopReason: 'end_turn' }),
  cancel: async () => {},
}), stream);
`;

/** Running processes whose command line names `text` (the agent's script). */
function running(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text);
      } catch {
        return false; // Gone since the listing.
      }
    })
    .map(Number);
}

/** The same agent, writing a counter into its worktree every 5 ms from its start (whole: a read never sees it half-written). */
const TICKING = (sdk: string) =>
  `import { renameSync, writeFileSync } from 'node:fs';\nlet n = 0;\n` +
  `setInterval(() => { writeFileSync('tick.tmp', String(++n)); renameSync('tick.tmp', 'tick.txt'); }, 5);\n${AGENT(sdk)}`;

let script = '';

function started(agentSource = AGENT): AgentStart {
  const worktree = tempDir('orca-agentstart-wt-');
  script = path.join(worktree, 'agent.mjs');
  writeFileSync(script, agentSource(path.join(packageRoot(), 'node_modules', '@agentclientprotocol', 'sdk', 'dist', 'acp.js')));
  return new AgentStart({
    agent: { ...claudeCode, native: undefined, command: [process.execPath, script] },
    worktree,
    sessionDir: tempDir('orca-agentstart-session-'),
    readable: [],
    sandboxed: true,
    jobEnv: {},
    env: { ...process.env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    userHome: tempDir('orca-agentstart-home-'),
  });
}

/** An MCP tools/list request, as the agent's MCP client sends it. */
function listTools(mcp: { url: string; headers: Array<{ name: string; value: string }> }): Promise<Response> {
  return fetch(mcp.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...Object.fromEntries(mcp.headers.map((header) => [header.name, header.value])),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

describe('an agent started ahead of its session', () => {
  it('is initialized with no session; its requests wait for the session’s client and tools, then are answered by them', async () => {
    const start = started();
    try {
      const { mcp } = await start.initialized;
      let streamed!: (text: string) => void;
      const update = new Promise<string>((resolve) => {
        streamed = resolve;
      });
      let answered = false;
      const sessionId = await start.openSession({ cwd: '/', mcpServers: [] });
      expect(sessionId).toBe('s1');
      const listed = listTools(mcp).then(async (response) => {
        answered = true;
        return response.text();
      });
      // Nothing answers them yet: the session is not bound (the next request is proof the server is up).
      expect((await fetch(mcp.url, { method: 'POST' })).status).toBe(401);
      expect(answered).toBe(false);
      const client = {
        sessionUpdate: async (params: acp.SessionNotification) => {
          if (params.update.sessionUpdate === 'agent_message_chunk' && params.update.content.type === 'text')
            streamed(params.update.content.text);
        },
        requestPermission: async () => ({ outcome: { outcome: 'cancelled' as const } }),
      };
      start.bind({
        client,
        tools: {
          tools: [{ name: 'Report', description: 'the report', inputSchema: { type: 'object' } }],
          call: async () => ({ content: '', isError: false }),
        },
      });
      expect(await listed).toContain('"name":"Report"');
      // Streamed before session/new was answered, it reached the session's client once bound.
      expect(await update).toBe('early');
    } finally {
      await start.close();
    }
  });

  it('closed before any session ran, leaves no process and no MCP server', async () => {
    const start = started();
    const { mcp } = await start.initialized;
    expect(running(script).length).toBeGreaterThan(0);
    await start.close();
    // Read from /proc, not by signal 0: the leader, the test's own child, may stay a zombie until Node reaps it.
    expect(running(script)).toEqual([]);
    await expect(fetch(mcp.url, { method: 'POST' })).rejects.toThrow();
    // A second close (the session's and the job's) is the same one.
    await start.close();
  });

  it('held, writes nothing until released; closed while held, is gone and writes nothing more', async () => {
    const start = started(TICKING);
    const tick = path.join(path.dirname(script), 'tick.txt');
    const ticks = () => Number(readFileSync(tick, 'utf8'));
    try {
      await start.initialized;
      for (let i = 0; i < 500 && !existsSync(tick); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const held = await start.hold();
      if (!held) throw new Error('no cgroup on this host: the agent cannot be held (docs/security.md#processes)');
      const atHold = ticks();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(ticks()).toBe(atHold);
      await held.release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(ticks()).toBeGreaterThan(atHold);
      await start.hold();
      const atClose = ticks();
      await start.close();
      expect(running(script)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ticks()).toBe(atClose);
    } finally {
      await start.close();
    }
  });

  it('closed while it is still starting, stops its start and leaves no process', async () => {
    const start = started();
    await start.close();
    await expect(start.initialized).rejects.toThrow(/closed/);
    expect(running(script)).toEqual([]);
  });
});
