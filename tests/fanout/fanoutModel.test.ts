import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicModel } from '../../shared/core/model/anthropic.js';
import type { Model, ModelEvent, ModelRequest } from '../../shared/core/model/model.js';
import { ModelError } from '../../shared/core/model/modelError.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript } from '../../shared/core/model/scriptFile.js';
import type { Usage } from '../../shared/core/model/usage.js';
import { FanoutGate, fanoutHoldMs } from '../../shared/infra/fanout/fanoutGate.js';
import { FanoutModel, staticPrefixHash } from '../../shared/infra/fanout/fanoutModel.js';
import { waitersOnGates } from '../support/fanoutWaiters.js';
import { MessagesServer, type RecordedRequest, reply } from '../support/messagesServer.js';
import { testRedis } from '../support/redis.js';

/**
 * The fan-out hold with real Redis and the real SDK against the stand-in with its prompt cache:
 * each agent has its own gate and connection, as agents in separate worker processes do. Orders
 * are read from the stand-in's one sequence of arrivals and response starts, never from clocks.
 */

let server: MessagesServer;

beforeEach(async () => {
  server = new MessagesServer({ cache: true });
  await server.start();
});

/** Each agent's own connection, as each worker process has. */
const connections: Redis[] = [];

afterEach(async () => {
  await server.close();
  for (const connection of connections.splice(0)) connection.disconnect();
});

function connection(redis: Redis): Redis {
  const own = redis.duplicate();
  connections.push(own);
  return own;
}

/** Long enough that only the leader's start, its failure or an abort can end a wait within the test. */
const NEVER_MS = 120_000;

const SYSTEM = 'You explore a repository and report what you found. '.repeat(30);

function request(question: string): ModelRequest {
  return {
    system: [{ text: SYSTEM, cache: true }, { text: `Working directory: /tmp/view-${question.length}` }],
    messages: [{ role: 'user', content: [{ type: 'text', text: question }] }],
    tools: [
      { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
    ],
    cacheTools: true,
    maxTokens: 1024,
  };
}

function agents(count: number, holdMs: number, runId = 'run-1'): FanoutModel[] {
  const { redis, keys } = testRedis();
  return Array.from({ length: count }, () => {
    const inner = new AnthropicModel({ apiKey: 'sk-test-key', baseURL: server.url, model: 'claude-sonnet-4-6', maxRetries: 0 });
    return new FanoutModel(inner, new FanoutGate({ redis: connection(redis), keys, runId, holdMs }), 'explore');
  });
}

async function usageOf(stream: AsyncIterable<ModelEvent>): Promise<Usage> {
  let usage: Usage | undefined;
  for await (const event of stream) if (event.type === 'message_end') usage = event.usage;
  if (!usage) throw new Error('no message_end');
  return usage;
}

function byArrival(): RecordedRequest[] {
  return [...server.requests].sort((a, b) => a.receivedSeq - b.receivedSeq);
}

describe('the fan-out hold', () => {
  it('sends one request first and the others only after its response started, and they read its cache', async () => {
    // The first answer takes a while to start: without the hold, the others would arrive before it.
    server.enqueue(reply.text('first', { startDelayMs: 400 }), ...Array.from({ length: 4 }, () => reply.text('next')));
    const models = agents(5, NEVER_MS);
    const usages = await Promise.all(
      models.map((model, index) => usageOf(model.stream(request(`question ${index}`), new AbortController().signal))),
    );

    const [leader, ...followers] = byArrival();
    expect(leader!.startedSeq).toBeDefined();
    for (const follower of followers) expect(follower.receivedSeq).toBeGreaterThan(leader!.startedSeq!);
    const prefix = leader!.cache!.cache_creation_input_tokens;
    expect(prefix).toBeGreaterThan(0);
    expect(usages.reduce((sum, usage) => sum + usage.cache_creation_tokens, 0)).toBe(prefix);
    expect(followers.map((follower) => follower.cache!.cache_read_input_tokens)).toEqual(followers.map(() => prefix));
  });

  it('lets the others go after the bound when the leader’s response never starts', async () => {
    server.enqueue(reply.text('held', { stallAfter: 0 }), reply.text('a'), reply.text('b'));
    const [leader, ...followers] = agents(3, 300);
    const leading = new AbortController();
    const led = usageOf(leader!.stream(request('q0'), leading.signal)).catch((error: unknown) => error);
    await expect.poll(() => server.requests.length).toBe(1);
    const usages = await Promise.all(
      followers.map((model, index) => usageOf(model.stream(request(`q${index + 1}`), new AbortController().signal))),
    );
    leading.abort();
    expect(await led).toBeInstanceOf(ModelError);

    expect(server.requests[0]!.startedSeq).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    // The leader wrote nothing readable: the first follower to arrive wrote the prefix itself.
    const [, first] = byArrival();
    expect(first!.cache!.cache_creation_input_tokens).toBe(server.requests[0]!.cache!.cache_creation_input_tokens);
    expect(usages).toHaveLength(2);
  });

  it('releases held requests at once when the run is aborted, and sends none of them', async () => {
    server.enqueue(reply.text('held', { stallAfter: 0 }));
    const [leader, ...followers] = agents(3, NEVER_MS);
    const run = new AbortController();
    const led = usageOf(leader!.stream(request('q0'), run.signal)).catch((error: unknown) => error);
    await expect.poll(() => server.requests.length).toBe(1);
    const held = followers.map((model, index) =>
      usageOf(model.stream(request(`q${index + 1}`), run.signal)).catch((error: unknown) => error),
    );
    // Both are waiting on the started list (a blocking command each) before the abort.
    await expect.poll(() => waitersOnGates(testRedis().redis)).toBeGreaterThanOrEqual(2);
    run.abort(new Error('the run was aborted'));

    const outcomes = await Promise.all(held);
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(ModelError);
      expect((outcome as ModelError).kind).toBe('aborted');
      expect((outcome as ModelError).message).toMatch(/waited for the fan-out leader/);
    }
    await led;
    expect(server.requests).toHaveLength(1);
  });

  it('lets the others go at once when the leader’s call fails before its response started', async () => {
    server.enqueue(reply.error(400, 'invalid_request_error', 'messages: bad'), reply.text('a'), reply.text('b'));
    const [leader, ...followers] = agents(3, NEVER_MS);
    const led = usageOf(leader!.stream(request('q0'), new AbortController().signal)).catch((error: unknown) => error);
    await expect.poll(() => server.requests.length).toBe(1);
    const usages = await Promise.all(
      followers.map((model, index) => usageOf(model.stream(request(`q${index + 1}`), new AbortController().signal))),
    );
    expect(await led).toBeInstanceOf(ModelError);
    expect(server.requests).toHaveLength(3);
    expect(usages).toHaveLength(2);
  });

  it('never holds agents of another role or with another prefix', async () => {
    // The leader's answer stalls: anything held behind it would wait for the whole test.
    server.enqueue(reply.text('held', { stallAfter: 0 }), reply.text('other role'), reply.text('other prefix'));
    const { redis, keys } = testRedis();
    const make = (role: string) =>
      new FanoutModel(
        new AnthropicModel({ apiKey: 'sk-test-key', baseURL: server.url, model: 'claude-sonnet-4-6', maxRetries: 0 }),
        new FanoutGate({ redis, keys, runId: 'run-1', holdMs: NEVER_MS }),
        role,
      );
    const leading = new AbortController();
    const led = usageOf(make('explore').stream(request('q0'), leading.signal)).catch((error: unknown) => error);
    await expect.poll(() => server.requests.length).toBe(1);
    await usageOf(make('worker').stream(request('q1'), new AbortController().signal));
    const otherPrefix = { ...request('q2'), system: [{ text: 'Another prompt.', cache: true }] };
    await usageOf(make('explore').stream(otherPrefix, new AbortController().signal));
    leading.abort();
    await led;
    expect(server.requests).toHaveLength(3);
  });

  it('passes the Scripted model through the gate: followers go once its call started', async () => {
    const script = parseScript({ latency_ms: 0, agents: [{ when: { role: 'explore' }, turns: [{ text: 'found it' }] }] }, 'test script');
    const { redis, keys } = testRedis();
    const order: string[] = [];
    const scripted = (name: string): Model => {
      const inner = new ScriptedModel(script, { role: 'explore', prompt: name });
      return {
        id: inner.id,
        scripted: true,
        cost: (usage) => inner.cost(usage),
        async *stream(req, signal) {
          order.push(`${name} sent`);
          // The way to the model takes a while: without the hold, the second would be sent before the first started.
          await new Promise((resolve) => setTimeout(resolve, 200));
          const onResponseStart = () => {
            order.push(`${name} started`);
            req.onResponseStart?.();
          };
          yield* inner.stream({ ...req, onResponseStart }, signal);
        },
      };
    };
    // One connection: the leader's claim reaches Redis first.
    const gate = () => new FanoutGate({ redis, keys, runId: 'run-s', holdMs: NEVER_MS });
    const leader = new FanoutModel(scripted('a'), gate(), 'explore');
    const follower = new FanoutModel(scripted('b'), gate(), 'explore');
    // The leader claims the gate first; the follower's call then waits on it.
    const first = usageOf(leader.stream(request('q'), new AbortController().signal));
    const second = usageOf(follower.stream(request('q'), new AbortController().signal));
    await Promise.all([first, second]);
    expect(order.indexOf('b sent')).toBeGreaterThan(order.indexOf('a started'));
  });

  it('keys the prefix on the model, the tools and the system prompt up to its breakpoint', () => {
    const base = request('a');
    expect(staticPrefixHash('m', base)).toBe(staticPrefixHash('m', request('a much longer question')));
    expect(staticPrefixHash('m', base)).not.toBe(staticPrefixHash('n', base));
    expect(staticPrefixHash('m', base)).not.toBe(staticPrefixHash('m', { ...base, tools: [] }));
    expect(staticPrefixHash('m', { ...base, system: [{ text: 'x' }], cacheTools: false })).toBeUndefined();
  });

  it('reads its bound from ORCA_FANOUT_HOLD_MS: 3 s unset, 0 for off, an error naming the variable otherwise', () => {
    expect(fanoutHoldMs({})).toBe(3_000);
    expect(fanoutHoldMs({ ORCA_FANOUT_HOLD_MS: '0' })).toBe(0);
    expect(fanoutHoldMs({ ORCA_FANOUT_HOLD_MS: '1500' })).toBe(1_500);
    expect(() => fanoutHoldMs({ ORCA_FANOUT_HOLD_MS: '3s' })).toThrow(/ORCA_FANOUT_HOLD_MS is "3s".*milliseconds/);
  });
});
