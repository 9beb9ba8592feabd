import { describe, expect, it } from 'vitest';
import { git, makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { processesMatching } from '../support/processTable.js';
import { transcriptsOf } from '../support/transcripts.js';

/**
 * An ACP agent that misbehaves around its turn's end, through the whole `orca agent` path (its
 * process in bwrap, orca's tools over MCP through its proxy): it starts a long command over MCP
 * without waiting for it, reports, and once its turn is over writes a file. orca ends its turn at
 * the Report (session/cancel), stops the command it left running with every process, and refuses
 * the write: neither lands, and nothing of the job is left running (workers/agents/turnCalls.ts).
 */

const MARKER = `orca-turn-end-${process.pid}`;

/** The agent: ACP over stdio as newline-delimited JSON-RPC, MCP over HTTP through its proxy. */
const ROGUE = `
import http from 'node:http';
const proxy = new URL(process.env.HTTP_PROXY);
let mcp;
let prompt;
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
const answerPrompt = (stopReason) => {
  if (prompt === undefined) return;
  send({ id: prompt, result: { stopReason } });
  prompt = undefined;
};
let calls = 0;
const call = (name, args) => new Promise((resolve, reject) => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++calls, method: 'tools/call', params: { name, arguments: args } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: new URL(mcp.url).host };
  for (const header of mcp.headers) headers[header.name] = header.value;
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'POST', path: mcp.url, headers }, (res) => {
    let text = '';
    res.on('data', (chunk) => (text += chunk));
    res.on('end', () => resolve(text));
  });
  req.once('error', reject);
  req.end(body);
});
async function turn() {
  // Started, not waited for: it would write late.txt long after the turn, were it left running.
  void call('Bash', { command: 'sleep 20 # ${MARKER}\\necho late > late.txt' }).catch(() => undefined);
  // Time for it to be running before the Report ends the turn.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await call('Report', { summary: 'done', unresolved: [], claimed_checks: [] });
  answerPrompt('end_turn');
  // The turn is over: a write now must not land.
  await call('Write', { file_path: 'after.txt', content: 'written after the turn\\n' }).catch(() => undefined);
}
let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\\n')) >= 0) {
    const message = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    if (message.method === 'initialize') send({ id: message.id, result: { protocolVersion: 1, agentCapabilities: {} } });
    else if (message.method === 'session/new') {
      mcp = message.params.mcpServers.find((server) => server.name === 'orca');
      send({ id: message.id, result: { sessionId: 's1' } });
    } else if (message.method === 'session/prompt') {
      prompt = message.id;
      void turn();
    } else if (message.method === 'session/cancel') answerPrompt('cancelled');
    else if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: 'not here' } });
  }
});
`;

describe('an ACP agent’s turn end', { timeout: SLOW_TEST_MS }, () => {
  it('stops the command it left running and refuses a write after it: neither lands, nothing is left running', async () => {
    const env = await OrcaTestEnv.open();
    // Its model API is never called: it answers its prompt itself.
    const agent = { command: ['node', 'rogue.mjs'], replaces: ['Bash', 'Write'], apiHosts: ['api.example.invalid'] };
    const orcaJson = { agents: { rogue: agent } };
    const dir = makeRepo({ 'rogue.mjs': ROGUE, 'orca.json': `${JSON.stringify(orcaJson, null, 2)}\n`, 'README.md': '# t\n' });
    const run = await env.cli(['agent', '--role', 'worker', '--agent', 'rogue', 'Do the task.', '--repo', dir, '--json'], {
      env: { ANTHROPIC_API_KEY: undefined },
      deadlineMs: 120_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    const out = JSON.parse(run.stdout) as { status: string; agent: string; commit?: string; branch?: string };
    expect(out).toMatchObject({ status: 'completed', agent: 'rogue' });
    // Nothing of either reached the branch: no commit at all (nothing owned changed), or one without them.
    const files = out.commit ? git(dir, 'show', '--name-only', '--format=', out.commit).split('\n') : [];
    expect(files).not.toContain('after.txt');
    expect(files).not.toContain('late.txt');
    // The command it left running was stopped when its turn ended, before the Report was judged.
    const events = transcriptsOf(env.home);
    const bash = events.findIndex((line) => line.type === 'tool_result' && line.name === 'Bash');
    expect(String(events[bash]?.preview)).toContain("Command was aborted (the rogue agent's turn has ended)");
    expect(bash).toBeLessThan(events.findIndex((line) => line.type === 'end'));
    // And nothing of it is left running, long before its 20 s were up.
    expect(processesMatching(MARKER)).toEqual([]);
  });
});
