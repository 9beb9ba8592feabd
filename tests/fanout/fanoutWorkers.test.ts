import { afterEach, describe, expect, it } from 'vitest';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { waitersOnGates } from '../support/fanoutWaiters.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { type Behaviour, MessagesServer, type RecordedRequest, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { scriptedJob, testRunId } from '../support/scriptedJobs.js';

/**
 * The fan-out hold end to end: explore jobs of one run in real worker processes, the real SDK
 * against the stand-in with its prompt cache, the gate in real Redis. Orders come from the
 * stand-in's one sequence of arrivals and response starts, never from clocks.
 */

let server: MessagesServer;

afterEach(async () => {
  await server.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

const REPORT = { findings: [], files: [], questions: [] };

/** The stand-in answers every request with a Report; the first to arrive gets `first` instead. */
async function standIn(first: (report: Behaviour) => Behaviour): Promise<void> {
  let answered = 0;
  server = new MessagesServer({
    cache: true,
    answer: () => {
      const report = reply.toolUse('Report', REPORT);
      answered += 1;
      return answered === 1 ? first(report) : report;
    },
  });
  await server.start();
}

/** An explore job on the real model path: what the coordinator queues for each question. */
function exploreJob(runId: string, taskId: string, repo: string, base: string) {
  const job = scriptedJob({ runId, taskId, repo, base, roleName: 'explore', turns: [] });
  return { ...job, prompt: `Question ${taskId}: where is the total computed?`, model: { id: 'claude-sonnet-4-6' } };
}

function apiEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key', ...extra };
}

/** Each agent's first request: the one whose conversation is the task prompt alone. */
function firstRequests(): RecordedRequest[] {
  return server.requests
    .filter((request) => (request.body as Body).messages.filter((m: Body) => m.role === 'assistant').length === 0)
    .sort((a, b) => a.receivedSeq - b.receivedSeq);
}

async function setUp(env: OrcaTestEnv, workerEnv: Record<string, string>): Promise<{ repo: string; base: string }> {
  const repo = makeRepo({ 'src/cart.ts': 'export const total = (p: number[]) => p.reduce((s, x) => s + x, 0);\n' });
  const base = git(repo, 'rev-parse', 'HEAD');
  await Promise.all([env.startWorker({ concurrency: 2, env: workerEnv }), env.startWorker({ concurrency: 2, env: workerEnv })]);
  return { repo, base };
}

describe('the fan-out hold across worker processes', { timeout: SLOW_TEST_MS }, () => {
  it('sends one explore agent’s first request first, the others only after its response started, and they read its cache', async () => {
    // The first answer is slow to start: without the hold the others would be sent before it did.
    await standIn((report) => ({ ...report, startDelayMs: 1_000 }));
    const env = await OrcaTestEnv.open();
    const { repo, base } = await setUp(env, apiEnv({ ORCA_FANOUT_HOLD_MS: '120000' }));
    const runId = testRunId('fanout');
    const tasks = ['q1', 'q2', 'q3', 'q4'];
    for (const task of tasks) await env.queue.add(exploreJob(runId, task, repo, base));
    const results = await Promise.all(tasks.map((task) => env.result(agentJobId(runId, task, 1))));
    expect(results.map((result) => [result.task_id, result.status])).toEqual(tasks.map((task) => [task, 'completed']));

    const [leader, ...followers] = firstRequests();
    expect(followers).toHaveLength(3);
    for (const follower of followers) expect(follower.receivedSeq).toBeGreaterThan(leader!.startedSeq!);
    // The leader wrote the static prefix (tools, system prompt) and its own question; each follower
    // read that prefix whole and wrote only its own question.
    const prefix = followers[0]!.cache!.cache_read_input_tokens;
    expect(prefix).toBeGreaterThan(0);
    expect(leader!.cache!.cache_creation_input_tokens).toBeGreaterThan(prefix);
    for (const follower of followers) {
      expect(follower.cache!.cache_read_input_tokens).toBe(prefix);
      // The questions differ only in their task id, of one length.
      expect(follower.cache!.cache_creation_input_tokens).toBe(leader!.cache!.cache_creation_input_tokens - prefix);
    }
    const writes = firstRequests().reduce((sum, request) => sum + request.cache!.cache_creation_input_tokens, 0);
    expect(writes).toBeLessThan(2 * prefix);
  });

  it('releases held first requests at once when the run is aborted: none of them reaches the API', async () => {
    // The leader's response never starts; the others would wait two minutes for it.
    await standIn((report) => ({ ...report, stallAfter: 0 }));
    const env = await OrcaTestEnv.open();
    const { repo, base } = await setUp(env, apiEnv({ ORCA_FANOUT_HOLD_MS: '120000' }));
    const runId = testRunId('fanout-abort');
    const tasks = ['q1', 'q2', 'q3'];
    for (const task of tasks) await env.queue.add(exploreJob(runId, task, repo, base));
    await expect.poll(() => server.requests.length, { timeout: 120_000 }).toBe(1);
    // Both others are blocked on the gate's started list before the abort.
    await expect.poll(() => waitersOnGates(env.redis), { timeout: 120_000 }).toBeGreaterThanOrEqual(2);

    const abort = await env.cli(['abort', runId]);
    expect(abort.code, abort.stderr).toBe(0);
    const results = await Promise.all(tasks.map((task) => env.result(agentJobId(runId, task, 1))));
    expect(results.map((result) => result.status)).toEqual(['aborted', 'aborted', 'aborted']);
    expect(server.requests).toHaveLength(1);
  });
});
