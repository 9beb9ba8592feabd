import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiServer, geminiReply } from '../support/geminiServer.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { npmInstallForFile } from '../support/npmInstall.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { transcriptsOf } from '../support/transcripts.js';

/**
 * `orca agent --agent gemini`: the real Gemini CLI (`gemini --acp`, GEMINI_CLI_VERSION from npm,
 * on the workers' PATH) as a Worker, against the strict Gemini API stand-in, in the sandbox. Its
 * own file tools and shell are excluded by the settings orca writes in its home; orca's Read,
 * Write, Edit and Bash are offered over MCP (`mcp_orca_*`).
 */

/** The Gemini CLI the tests run, installed from npm for this file (support/npmInstall.ts says why not a devDependency). */
const GEMINI_CLI_VERSION = '0.61.0';
const installed = npmInstallForFile(`@google/gemini-cli@${GEMINI_CLI_VERSION}`, SLOW_TEST_MS);

let server: GeminiServer;

beforeEach(async () => {
  server = new GeminiServer();
  await server.start();
});

afterEach(async () => {
  await server.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

function apiEnv(): Record<string, string> {
  return {
    GOOGLE_GEMINI_BASE_URL: server.url,
    GEMINI_API_KEY: 'fake-gemini-key',
    PATH: `${installed.bin()}${path.delimiter}${process.env.PATH}`,
  };
}

function declared(body: Body): string[] {
  return body.tools.flatMap((tool: Body) => (tool.functionDeclarations ?? []).map((declaration: Body) => declaration.name));
}

describe('Gemini CLI as an orca agent over ACP', { timeout: SLOW_TEST_MS }, () => {
  it('writes and checks through orca’s tools, reports, and its commit holds only its change', async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({ 'src/greet.js': "export const greet = () => 'hello';\n" });
    const check = "node -e \"import('./src/greet.js').then((m) => process.exit(m.greet() === 'hi' ? 0 : 1))\"";
    server.enqueue(
      geminiReply.orca('Read', { file_path: 'src/greet.js' }),
      geminiReply.orca('Write', { file_path: 'src/greet.js', content: "export const greet = () => 'hi';\n" }),
      geminiReply.orca('Bash', { command: check }),
      geminiReply.orca('Report', { summary: 'greet says hi.', unresolved: [], claimed_checks: [{ command: check, exit_code: 0 }] }),
      // Its Report does not end its turn (the preset's reportEndsTurn: docs/agents.md): its model is asked once more.
      geminiReply.text('Done.'),
    );
    const run = await env.cli(['agent', '--role', 'worker', '--agent', 'gemini', 'Make greet() say hi.', '--repo', dir, '--json'], {
      env: apiEnv(),
      deadlineMs: 240_000,
    });
    const said = JSON.stringify(server.requests.map((request) => [request.path, request.rejection]));
    expect(run.code, `${run.stderr}\n${run.stdout}\n${said}`).toBe(0);
    const out = JSON.parse(run.stdout) as Body;
    // Its tokens as it reports them (its prompt answer's _meta.quota): the stand-in's 1,200 in and 40 out for each of its 5 requests.
    expect(out).toMatchObject({ status: 'completed', agent: 'gemini', sandbox: 'bwrap', usage_reported: true });
    expect(out.usage).toMatchObject({ input_tokens: 6_000, output_tokens: 200 });
    expect(git(dir, 'diff', '--name-only', `${out.commit}~1`, out.commit)).toBe('src/greet.js');
    expect(git(dir, 'show', `${out.commit}:src/greet.js`).trim()).toBe("export const greet = () => 'hi';");

    // Every request passed the stand-in's checks, streamed, at the preset's model (no router model asked first), with the key.
    expect(server.requests.map((request) => [request.path, request.rejection])).toEqual(
      server.requests.map(() => ['/v1beta/models/gemini-2.5-pro:streamGenerateContent', undefined]),
    );
    expect(server.requests[0]!.headers['x-goog-api-key']).toBe('fake-gemini-key');
    // orca's tools declared; none of its own that read or write files or run commands.
    const tools = declared(server.requests[0]!.body);
    expect(tools).toEqual(expect.arrayContaining(['mcp_orca_Read', 'mcp_orca_Write', 'mcp_orca_Edit', 'mcp_orca_Bash', 'mcp_orca_Report']));
    for (const own of ['read_file', 'write_file', 'replace', 'run_shell_command', 'web_fetch', 'invoke_agent'])
      expect(tools).not.toContain(own);
    // orca's role instructions open the first prompt.
    expect(JSON.stringify(server.requests[0]!.body.contents)).toContain('You are an agent of orca');
    expect(server.pending).toBe(0);

    // The transcript shows its calls, as orca ran them.
    const calls = transcriptsOf(env.home)
      .filter((line) => line.type === 'tool_call')
      .map((line) => line.name);
    expect(calls).toEqual(['Read', 'Write', 'Bash', 'Report']);
  });

  it('answers a Report that claims a check never run with a further prompt in the same session, which its model is sent and its API accepts', async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({ 'src/greet.js': "export const greet = () => 'hello';\n" });
    const check = 'node -e "process.exit(0)"';
    const report = { summary: 'greet says hi.', unresolved: [], claimed_checks: [{ command: check, exit_code: 0 }] };
    server.enqueue(
      geminiReply.orca('Write', { file_path: 'src/greet.js', content: "export const greet = () => 'hi';\n" }),
      // A claim of a check it never ran: refused, and the refusal is its next prompt.
      geminiReply.orca('Report', report),
      geminiReply.text('I will run it.'),
      geminiReply.orca('Bash', { command: check }),
      geminiReply.orca('Report', report),
      geminiReply.text('Done.'),
    );
    const run = await env.cli(['agent', '--role', 'worker', '--agent', 'gemini', 'Make greet() say hi.', '--repo', dir, '--json'], {
      env: apiEnv(),
      deadlineMs: 240_000,
    });
    const said = JSON.stringify(server.requests.map((request) => [request.path, request.rejection]));
    expect(run.code, `${run.stderr}\n${run.stdout}\n${said}`).toBe(0);
    // Each turn's tokens counted once: two prompts, six requests in all (a turn's figure is that turn's, not the session's so far).
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'completed',
      agent: 'gemini',
      usage: { input_tokens: 7_200, output_tokens: 240 },
    });
    // Every request, the one after the refusal included, is one the API accepts: the refused Report's call has its answer before orca's prompt.
    expect(server.requests.filter((request) => request.rejection !== undefined).map((request) => request.rejection)).toEqual([]);
    expect(server.pending).toBe(0);
    const further = server.requests.find((request) =>
      JSON.stringify(request.body.contents.at(-1)).includes('your report was not accepted'),
    );
    expect(further, 'the further prompt reached its model').toBeDefined();
    expect(JSON.stringify(further!.body.contents.at(-1))).toContain('never run: no such command in its own tool log');
  });
});
