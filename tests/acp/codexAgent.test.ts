import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { git, makeRepo } from '../support/gitRepo.js';
import { npmInstall } from '../support/npmInstall.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { ResponsesServer, responsesReply } from '../support/responsesServer.js';

/**
 * `orca agent --agent codex`: the real Codex (Zed's `codex-acp`, CODEX_ACP_VERSION from npm, on
 * the workers' PATH) as a Worker, against the strict Responses stand-in, in the sandbox. Its own
 * shell is off and its patches are refused; orca's Read, Write, Edit and Bash are offered over
 * MCP (its namespace `mcp__orca`), so its writes meet orca's rules and its checks are evidence.
 */

/** The Codex adapter the tests run, installed from npm for this file (support/npmInstall.ts says why not a devDependency). */
const CODEX_ACP_VERSION = '0.16.0';
let codexRoot: string;
let codexBin: string;

beforeAll(async () => {
  codexRoot = mkdtempSync(path.join(os.tmpdir(), 'orca-codex-'));
  codexBin = await npmInstall(codexRoot, `@zed-industries/codex-acp@${CODEX_ACP_VERSION}`);
}, SLOW_TEST_MS);

afterAll(() => {
  rmSync(codexRoot, { recursive: true, force: true });
});

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
    PATH: `${codexBin}${path.delimiter}${process.env.PATH}`,
  };
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
    expect(out).toMatchObject({ status: 'completed', agent: 'codex', sandbox: 'bwrap' });
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
    const calls = transcriptOf(env)
      .filter((line) => line.type === 'tool_call')
      .map((line) => line.name);
    expect(calls).toEqual(['Read', 'Write', 'Bash', 'Report']);
  });
});
