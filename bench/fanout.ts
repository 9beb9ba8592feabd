import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { PromptCache } from '../tests/support/messagesCache.js';
import { MessagesServer, type RecordedRequest, reply } from '../tests/support/messagesServer.js';
import { BenchEnv } from './benchEnv.js';
import { makeRunRepo, scriptedAgentJob } from './runScript.js';
import { median, round } from './stats.js';

/**
 * Cache-aware fan-out: `agents` explore jobs of one run queued together, in real worker processes
 * with a slot each, on the real Anthropic client against the local Messages stand-in with its
 * prompt cache (a prefix is readable once a response that wrote it has started). The figure is the
 * cache-write tokens of the agents' first requests as a multiple of one agent's static prefix
 * (tools and system prompt up to its breakpoint); beside it the same run with the hold off
 * (`ORCA_FANOUT_HOLD_MS=0`), where every agent writes the prefix itself. Each answer starts after
 * `startDelayMs` (a model's time to first token), which is what the followers wait for.
 */
export const FANOUT_CACHE_WRITES_TARGET = 1.5;

export interface FanoutRun {
  /** Cache-write tokens of the agents' first requests, summed. */
  cache_write_tokens: number;
  /** As a multiple of the static prefix. */
  writes_per_prefix: number;
  /** First job queued → the last agent's first response started, ms. */
  wave_ms: number;
  /** How many first requests read the prefix from the cache. */
  readers: number;
}

export interface FanoutResult {
  fanout_cache_writes: number;
  hold_off_cache_writes: number;
  static_prefix_tokens: number;
  agents: number;
  start_delay_ms: number;
  hold: FanoutRun[];
  off: FanoutRun[];
  /** Medians of the runs' wave times, hold on and off. */
  wave_ms: { hold: number; off: number };
}

const REPORT = { findings: [], files: [], questions: [] };

export async function fanoutBenchmark(
  options: { agents?: number; repetitions?: number; startDelayMs?: number } = {},
): Promise<FanoutResult> {
  const agents = options.agents ?? 8;
  const repetitions = options.repetitions ?? 3;
  const startDelayMs = options.startDelayMs ?? 500;
  const hold: FanoutRun[] = [];
  const off: FanoutRun[] = [];
  let prefix = 0;
  // Alternating, so a slow spell of the machine falls on both.
  for (let i = 0; i < repetitions; i += 1) {
    const on = await fanoutRun({ agents, startDelayMs, holdOff: false });
    const without = await fanoutRun({ agents, startDelayMs, holdOff: true });
    prefix = on.prefix;
    if (without.prefix !== on.prefix)
      throw new Error(`fanout: the static prefix differs between runs (${on.prefix} and ${without.prefix} tokens)`);
    hold.push(on.run);
    off.push(without.run);
  }
  return {
    fanout_cache_writes: round(median(hold.map((run) => run.writes_per_prefix)), 2),
    hold_off_cache_writes: round(median(off.map((run) => run.writes_per_prefix)), 2),
    static_prefix_tokens: prefix,
    agents,
    start_delay_ms: startDelayMs,
    hold,
    off,
    wave_ms: { hold: round(median(hold.map((run) => run.wave_ms))), off: round(median(off.map((run) => run.wave_ms))) },
  };
}

async function fanoutRun(options: { agents: number; startDelayMs: number; holdOff: boolean }): Promise<{ run: FanoutRun; prefix: number }> {
  const server = new MessagesServer({ cache: true, answer: () => reply.toolUse('Report', REPORT, { startDelayMs: options.startDelayMs }) });
  await server.start();
  try {
    return await BenchEnv.with(async (env) => {
      const repo = env.dir('repo');
      const base = makeRunRepo(repo, { 'src/cart.ts': 'export const total = (p: number[]) => p.reduce((s, x) => s + x, 0);\n' });
      const workerEnv = {
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: 'sk-bench-key',
        ORCA_LSP: 'off',
        ...(options.holdOff ? { ORCA_FANOUT_HOLD_MS: '0' } : {}),
      };
      // A slot for every agent: they all start together, as a run's explore questions do.
      const perWorker = Math.ceil(options.agents / 2);
      await Promise.all([
        env.startWorker({ concurrency: perWorker, env: workerEnv }),
        env.startWorker({ concurrency: perWorker, env: workerEnv }),
      ]);
      const runId = `fanout-${env.prefix.slice(-8)}`;
      const tasks = Array.from({ length: options.agents }, (_, i) => `q${String(i).padStart(2, '0')}`);
      const queuedAt = Date.now();
      await Promise.all(
        tasks.map((task) => {
          const job = scriptedAgentJob({ runId, taskId: task, repo, base, roleName: 'explore', turns: [] });
          return env.queue.add({ ...job, prompt: `Question ${task}: where is the total computed?`, model: { id: 'claude-sonnet-4-6' } });
        }),
      );
      for (const task of tasks) {
        const result = await env.result(agentJobId(runId, task, 1));
        if (result.status !== 'completed') throw new Error(`fanout job ${task} ended ${result.status}: ${result.detail}`);
      }
      const first = firstRequests(server.requests);
      if (first.length !== options.agents) throw new Error(`fanout: ${first.length} first requests for ${options.agents} agents`);
      const prefix = staticPrefixTokens(first[0]!);
      const writes = first.reduce((sum, request) => sum + request.cache!.cache_creation_input_tokens, 0);
      return {
        prefix,
        run: {
          cache_write_tokens: writes,
          writes_per_prefix: round(writes / prefix, 2),
          wave_ms: Math.max(...first.map((request) => request.startedAt!)) - queuedAt,
          readers: first.filter((request) => request.cache!.cache_read_input_tokens > 0).length,
        },
      };
    });
  } finally {
    await server.close();
  }
}

/** Each agent's first request: no assistant turn in it yet. */
function firstRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((request) => !request.body.messages.some((message: { role: string }) => message.role === 'assistant'));
}

/** What the stand-in would write for the request's tools and system prompt alone: its static prefix. */
function staticPrefixTokens(request: RecordedRequest): number {
  const { tools, system } = request.body;
  return new PromptCache().lookup({ tools, system, messages: [] }).usage.cache_creation_input_tokens;
}
