import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeRunRepo } from '../../bench/runScript.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { runSession } from '../../shared/core/loop/query.js';
import { AgentSession } from '../../shared/core/loop/session.js';
import { AnthropicModel } from '../../shared/core/model/anthropic.js';
import { readTool } from '../../shared/tools/read.js';
import { writeTool } from '../../shared/tools/write.js';
import { git } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { tempDir } from '../support/tempDir.js';

/**
 * Faults of the Messages API, from the local Messages server: an agent session over the real SDK
 * rides out 429 (with retry-after), 529, 500, a stream cut halfway and a stalled stream, and
 * fails in one clear line once they outlast the retry limit. A turn that broke off never reaches
 * the conversation and none of its tool calls run, even those that had arrived whole.
 */

let server: MessagesServer;

beforeEach(async () => {
  server = new MessagesServer();
  await server.start();
});

afterEach(async () => {
  await server.close();
});

/** Events of a tool_use-only answer: message_start, block start, ping, one delta, block stop, … */
const AFTER_TOOL_BLOCK = 5;
/** Waits the SDK is told to make: short, so retries do not slow the tests. */
const FAST_RETRY = { 'retry-after-ms': '10' };

function session(workspace: string, options: { maxRetries: number }): { session: AgentSession; events: AgentEvent[] } {
  const model = new AnthropicModel({
    apiKey: 'sk-test-key',
    baseURL: server.url,
    model: 'claude-sonnet-4-6',
    maxRetries: options.maxRetries,
    idleTimeoutMs: 300,
  });
  const events: AgentEvent[] = [];
  return {
    session: new AgentSession({
      role: 'worker',
      model,
      systemPrompt: 'You are a careful engineer.',
      tools: [readTool, writeTool],
      outputSchema: z.object({ summary: z.string() }),
      workspaceRoot: workspace,
      sessionDir: path.join(tempDir('orca-session-'), 'session'),
      mode: 'full-access',
    }),
    events,
  };
}

describe('Messages API faults in an agent session', () => {
  it('retries 429, 529, 500, a cut stream and a stalled one, and applies only the answer that arrived whole', async () => {
    const workspace = tempDir('orca-ws-');
    server.enqueue(
      // One SDK call: a 429 that says when to come back, a 529, then a stream cut right after a
      // complete Write block (the model's own retry starts a fresh SDK call).
      reply.error(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', { 'retry-after': '1' }),
      reply.error(529, 'overloaded_error', 'Overloaded', FAST_RETRY),
      reply.toolUse('Write', { file_path: 'cut.txt', content: 'from a broken answer\n' }, { cutAfter: AFTER_TOOL_BLOCK }),
      // The next SDK call: a 500, then a stream that goes silent after its Write block.
      reply.error(500, 'api_error', 'Internal server error', FAST_RETRY),
      reply.toolUse('Write', { file_path: 'stalled.txt', content: 'from a stalled answer\n' }, { stallAfter: AFTER_TOOL_BLOCK }),
      // Whole at last.
      reply.toolUse('Write', { file_path: 'whole.txt', content: 'from the whole answer\n' }),
      reply.toolUse('Report', { summary: 'wrote whole.txt' }),
    );
    const { session: agent, events } = session(workspace, { maxRetries: 2 });
    const result = await runSession(agent, 'Write a file.', (event) => events.push(event));

    expect(result).toMatchObject({ reason: 'report', report: { summary: 'wrote whole.txt' }, turns: 2 });
    expect(server.requests).toHaveLength(7);
    expect(server.pending).toBe(0);
    expect(await server.requests[2]!.settled).toBe('cut');
    expect(await server.requests[4]!.settled).toBe('client_closed');
    // The broken answers' Writes never ran; the whole one did.
    expect(existsSync(path.join(workspace, 'cut.txt'))).toBe(false);
    expect(existsSync(path.join(workspace, 'stalled.txt'))).toBe(false);
    expect(readFileSync(path.join(workspace, 'whole.txt'), 'utf8')).toBe('from the whole answer\n');
    expect(agent.ledger.all().map((entry) => [entry.name, (entry.input as { file_path?: string }).file_path])).toEqual([
      ['Write', 'whole.txt'],
      ['Report', undefined],
    ]);
    // The conversation holds each turn once, as it finally arrived.
    const assistant = agent.messages.filter((message) => message.role === 'assistant');
    expect(assistant).toHaveLength(2);
    expect(JSON.stringify(assistant[0])).not.toMatch(/cut\.txt|stalled\.txt/);
    const retries = events
      .filter((event) => event.type === 'notice' && event.level === 'warn')
      .map((event) => (event as { message: string }).message);
    expect(retries).toEqual([
      expect.stringMatching(/^model call retried \(attempt 1\): the response stream broke off/),
      'model call retried (attempt 2): the response stream went silent for 300 ms',
    ]);
  });

  it('ends the session with one clear line once the faults outlast the retry limit, the turn unapplied', async () => {
    const workspace = tempDir('orca-ws-');
    server.enqueue(
      reply.toolUse('Write', { file_path: 'a.txt', content: 'a\n' }, { cutAfter: AFTER_TOOL_BLOCK }),
      reply.error(529, 'overloaded_error', 'Overloaded', FAST_RETRY),
      reply.error(529, 'overloaded_error', 'Overloaded', FAST_RETRY),
    );
    const { session: agent, events } = session(workspace, { maxRetries: 1 });
    const result = await runSession(agent, 'Write a file.', (event) => events.push(event));

    expect(result.reason).toBe('error');
    expect(result.detail).toBe('model call failed: the API is overloaded (529 overloaded_error: Overloaded) after 1 retry');
    expect(result.detail).not.toContain('\n');
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'error', detail: result.detail });
    expect(server.requests).toHaveLength(3);
    expect(existsSync(path.join(workspace, 'a.txt'))).toBe(false);
    expect(agent.ledger.all()).toEqual([]);
    expect(agent.messages.map((message) => message.role)).toEqual(['user']);
  });
});

describe('Messages API faults through a real worker process', () => {
  const apiEnv = () => ({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key', ORCA_MODEL: 'claude-sonnet-4-6' });

  function repoIn(env: OrcaTestEnv): { repo: string; base: string } {
    const repo = path.join(env.dir('repo'), 'project');
    mkdirSync(repo, { recursive: true });
    return { repo, base: makeRunRepo(repo) };
  }

  it('orca agent completes after a 529 and a stream cut halfway; only the whole answer is committed', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, base } = repoIn(env);
    server.enqueue(
      reply.error(529, 'overloaded_error', 'Overloaded', FAST_RETRY),
      reply.toolUse('Write', { file_path: 'cut.txt', content: 'from a broken answer\n' }, { cutAfter: AFTER_TOOL_BLOCK }),
      reply.toolUse('Write', { file_path: 'whole.txt', content: 'from the whole answer\n' }),
      reply.toolUse('Report', { summary: 'wrote whole.txt', unresolved: [], claimed_checks: [] }),
    );
    const run = await env.cli(['agent', '--role', 'worker', 'Write whole.txt.', '--repo', repo, '--json'], { env: apiEnv() });
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { status: string; branch: string; commit: string };
    expect(json.status).toBe('completed');
    expect(server.requests).toHaveLength(4);
    expect(git(repo, 'ls-tree', '-r', '--name-only', json.commit).split('\n').sort()).toEqual(['README.md', 'check.sh', 'whole.txt']);
    expect(git(repo, 'rev-list', '--count', `${base}..${json.branch}`)).toBe('1');
  });

  it('orca agent fails in one clear line when the API keeps failing, nothing committed', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, base } = repoIn(env);
    // The worker's client retries 4 times: five 500s in a row outlast it.
    for (let i = 0; i < 5; i += 1) server.enqueue(reply.error(500, 'api_error', 'Internal server error', FAST_RETRY));
    const run = await env.cli(['agent', '--role', 'worker', 'Write whole.txt.', '--repo', repo], { env: apiEnv() });
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(5);
    expect(run.stdout.split('\n')[0]).toBe(
      'worker failed: error (model call failed: the API failed (500 api_error: Internal server error) after 4 retries)',
    );
    // The failed agent's worktree is kept for inspection, its branch still at the base.
    const runId = /^orca: run (\S+)$/m.exec(run.stderr)![1]!;
    expect(git(repo, 'rev-parse', `orca/${runId}/worker`)).toBe(base);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});
