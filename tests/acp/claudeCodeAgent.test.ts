import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeRepo } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { transcriptsOf } from '../support/transcripts.js';

/**
 * `orca agent --agent claude-code`: the real Claude Code (Zed's ACP adapter over the Claude Agent
 * SDK, pinned as a devDependency) as a Worker, against the strict Messages stand-in, in the
 * sandbox. Its writes and commands are orca's tools over MCP; its Report is judged by orca.
 */

let server: MessagesServer;

beforeEach(async () => {
  // Claude Code's side requests (a title, a summary) offer no tools: they get a plain text.
  server = new MessagesServer({
    answer: (body) => {
      const tools = (body as { tools?: unknown[] } | undefined)?.tools;
      return !tools || tools.length === 0 ? reply.text('ok') : undefined;
    },
  });
  await server.start();
});

afterEach(async () => {
  await server.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

/**
 * No ANTHROPIC_API_KEY: orca's own loop does not run in an ACP-only job, so orca needs no key;
 * Claude Code gets its own (ANTHROPIC_AUTH_TOKEN, one of its preset's variables).
 */
function apiEnv(): NodeJS.ProcessEnv {
  return { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: 'sk-agent-own-token' };
}

/** The requests that carried the task's tools (not Claude Code's side requests). */
function taskRequests(): Body[] {
  return server.requests.filter((request) => (request.body?.tools ?? []).length > 0).map((request) => request.body);
}

describe('Claude Code as an orca agent over ACP', { timeout: SLOW_TEST_MS }, () => {
  it('writes and checks through orca’s tools, reports, and its commit holds only its change', async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({ 'src/greet.js': "export const greet = () => 'hello';\n" });
    const check = "node -e \"import('./src/greet.js').then((m) => process.exit(m.greet() === 'hi' ? 0 : 1))\"";
    server.enqueue(
      reply.toolUse('mcp__orca__Read', { file_path: 'src/greet.js' }),
      reply.toolUse('mcp__orca__Write', { file_path: 'src/greet.js', content: "export const greet = () => 'hi';\n" }),
      reply.toolUse('mcp__orca__Bash', { command: check }),
      reply.toolUse('mcp__orca__Report', { summary: 'greet says hi.', unresolved: [], claimed_checks: [{ command: check, exit_code: 0 }] }),
    );
    const run = await env.cli(['agent', '--role', 'worker', '--agent', 'claude-code', 'Make greet() say hi.', '--repo', dir, '--json'], {
      env: apiEnv(),
      deadlineMs: 240_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    const out = JSON.parse(run.stdout) as Body;
    expect(out).toMatchObject({ status: 'completed', agent: 'claude-code', usage_reported: true, sandbox: 'bwrap' });
    expect(git(dir, 'diff', '--name-only', `${out.commit}~1`, out.commit)).toBe('src/greet.js');
    expect(git(dir, 'show', `${out.commit}:src/greet.js`).trim()).toBe("export const greet = () => 'hi';");

    // Its accepted Report ended its turn: no model request after it (Claude Code's closing words, a
    // request of the whole conversation), the last one the Bash call's answer.
    expect(taskRequests()).toHaveLength(4);
    expect(JSON.stringify(taskRequests()[3].messages.at(-1))).not.toContain('Report');
    expect(server.pending).toBe(0);
    // Every request Claude Code sent passed the stand-in's checks, and offered orca's tools, not its own writers.
    expect(server.requests.map((request) => request.rejection)).toEqual(server.requests.map(() => undefined));
    // Each carried the agent's own token, and no key of orca's.
    expect(server.requests.map((request) => [request.headers.authorization, request.headers['x-api-key']])).toEqual(
      server.requests.map(() => ['Bearer sk-agent-own-token', undefined]),
    );
    const tools = taskRequests()[0].tools.map((tool: Body) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['mcp__orca__Report', 'mcp__orca__Write', 'mcp__orca__Bash', 'Grep']));
    expect(tools).not.toEqual(expect.arrayContaining(['Write']));
    expect(tools).not.toContain('Bash');
    // orca's role instructions are in Claude Code's system prompt.
    expect(JSON.stringify(taskRequests()[0].system)).toContain('You are an agent of orca');

    // The transcript shows Claude Code's calls, as orca ran them.
    const calls = transcriptsOf(env.home)
      .filter((line) => line.type === 'tool_call')
      .map((line) => line.name);
    expect(calls).toEqual(['Read', 'Write', 'Bash', 'Report']);
    expect(transcriptsOf(env.home).find((line) => line.type === 'session_start')).toMatchObject({ model: 'claude-code (ACP)' });
  });
});
