import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeRepo } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

/**
 * `orca agent --agent opencode`: the real OpenCode (`opencode acp`, pinned as a devDependency)
 * as a Worker, against the strict Messages stand-in, in the sandbox. Its own read, edit and bash
 * are denied by the preset's settings; orca's are offered over MCP (`orca_Read` …), so its writes
 * meet orca's rules and its checks are evidence.
 */

let server: MessagesServer;

beforeEach(async () => {
  // OpenCode's title request offers no tools: it gets a plain text.
  server = new MessagesServer({
    answer: (body) => {
      const tools = (body as { tools?: unknown[] } | undefined)?.tools;
      return !tools || tools.length === 0 ? reply.text('A title') : undefined;
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
  return { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-fake-key' };
}

function transcriptOf(env: OrcaTestEnv): Array<Record<string, unknown>> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name === 'transcript.jsonl') files.push(path.join(dir, entry.name));
    }
  };
  walk(env.home);
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  );
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
    if (run.code !== 0) {
      console.log('DEBUG requests', JSON.stringify(server.requests.map((r) => [r.path, r.body?.model, r.rejection])));
      const { execSync } = await import('node:child_process');
      console.log(execSync(`find ${env.home} -path '*opencode/log*' -type f | head -3 | xargs -r tail -c 6000`).toString());
    }
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    const out = JSON.parse(run.stdout) as Body;
    expect(out).toMatchObject({ status: 'completed', agent: 'opencode', sandbox: 'bwrap' });
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
    const calls = transcriptOf(env)
      .filter((line) => line.type === 'tool_call')
      .map((line) => line.name);
    expect(calls).toEqual(['Read', 'Write', 'Bash', 'Report']);
    expect(transcriptOf(env).find((line) => line.type === 'session_start')).toMatchObject({ model: 'opencode (ACP)' });
  });
});
