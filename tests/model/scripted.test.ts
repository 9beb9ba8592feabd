import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message, ToolUseBlock } from '../../shared/core/model/message.js';
import type { ModelEvent, ModelRequest, ToolSpec } from '../../shared/core/model/model.js';
import { ModelError } from '../../shared/core/model/modelError.js';
import { type ScriptedAgentIdentity, ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript, type Script } from '../../shared/core/model/scriptFile.js';
import { estimateRequestTokens, estimateTokens } from '../../shared/core/model/tokenEstimate.js';
import { totalInputTokens } from '../../shared/core/model/usage.js';

afterEach(() => {
  vi.useRealTimers();
});

function script(value: object): Script {
  return parseScript(value, 'test script');
}

const WORKER: ScriptedAgentIdentity = { role: 'worker', task: 't1', prompt: 'Fix the bug.' };

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: [{ text: 'You are a worker.', cache: true }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Fix the bug.' }] }],
    tools: [],
    maxTokens: 1000,
    ...overrides,
  };
}

async function collect(model: ScriptedModel, req: ModelRequest = request(), signal = new AbortController().signal): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of model.stream(req, signal)) events.push(event);
  return events;
}

function textOf(events: ModelEvent[]): string {
  return events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');
}

function toolUses(events: ModelEvent[]): ToolUseBlock[] {
  return events.flatMap((event) => (event.type === 'block' && event.block.type === 'tool_use' ? [event.block] : []));
}

function end(events: ModelEvent[]): Extract<ModelEvent, { type: 'message_end' }> {
  const last = events.at(-1);
  if (last?.type !== 'message_end') throw new Error(`the stream did not end with message_end: ${JSON.stringify(last)}`);
  expect(events.filter((event) => event.type === 'message_end')).toHaveLength(1);
  return last;
}

describe('ScriptedModel: choosing the agent script', () => {
  const precedence = script({
    agents: [
      { when: { role: 'worker' }, turns: [{ text: 'role only' }] },
      { when: { role: 'worker', task: 't1' }, turns: [{ text: 'role and task' }] },
      { when: { role: 'worker', prompt_includes: 'auth' }, turns: [{ text: 'role and prompt' }] },
      { when: { role: 'worker', task: 't1', prompt_includes: 'auth' }, turns: [{ text: 'all three' }] },
      { when: { role: 'worker', task: 't2' }, turns: [{ text: 'task t2, first of a tie' }] },
      { when: { role: 'worker', prompt_includes: 'login' }, turns: [{ text: 'login, second of a tie' }] },
      { when: { role: 'explore' }, turns: [{ text: 'explorer' }] },
    ],
  });
  const chosen = (identity: ScriptedAgentIdentity) => new ScriptedModel(precedence, identity).agent.turns[0]!.text;

  it('matches the role alone when nothing narrower fits', () => {
    expect(chosen({ role: 'worker', prompt: 'Tidy up.' })).toBe('role only');
    expect(chosen({ role: 'worker', task: 't9', prompt: 'Tidy up.' })).toBe('role only');
    expect(chosen({ role: 'explore', task: 't1', prompt: 'auth' })).toBe('explorer');
  });

  it('prefers role and task, or role and prompt, to the role alone', () => {
    expect(chosen({ role: 'worker', task: 't1', prompt: 'Tidy up.' })).toBe('role and task');
    expect(chosen({ role: 'worker', prompt: 'Fix the auth flow.' })).toBe('role and prompt');
  });

  it('prefers a match on all three', () => {
    expect(chosen({ role: 'worker', task: 't1', prompt: 'Fix the auth flow.' })).toBe('all three');
  });

  it('breaks a tie by order in the file', () => {
    expect(chosen({ role: 'worker', task: 't2', prompt: 'Fix the login page.' })).toBe('task t2, first of a tie');
    const swapped = script({
      agents: [
        { when: { role: 'worker', prompt_includes: 'login' }, turns: [{ text: 'prompt first' }] },
        { when: { role: 'worker', task: 't2' }, turns: [{ text: 'task second' }] },
      ],
    });
    expect(new ScriptedModel(swapped, { role: 'worker', task: 't2', prompt: 'the login page' }).agent.turns[0]!.text).toBe('prompt first');
  });

  it('fails at construction, naming the role and the task, when no agent matches', () => {
    const only = script({ agents: [{ when: { role: 'worker', task: 't1' }, turns: [{ text: 'x' }] }] });
    const attempt = () => new ScriptedModel(only, { role: 'worker', task: 't9', prompt: 'p' });
    expect(attempt).toThrow(ModelError);
    expect(attempt).toThrow(
      'test script has no agent for role "worker" with task "t9": add an agent whose "when" matches it (the script has: role "worker", task "t1")',
    );
    try {
      new ScriptedModel(only, { role: 'verification', prompt: 'p' });
      expect.unreachable('construction should have failed');
    } catch (error) {
      expect(error).toBeInstanceOf(ModelError);
      expect((error as ModelError).kind).toBe('script');
      expect((error as ModelError).message).toContain('role "verification" with no task');
    }
  });

  it('is labelled as no LLM and costs nothing', () => {
    const model = new ScriptedModel(precedence, WORKER);
    expect(model.id).toBe('scripted');
    expect(model.scripted).toBe(true);
    expect(
      model.cost({ input_tokens: 1e6, output_tokens: 1e6, cache_read_tokens: 1e6, cache_creation_tokens: 1e6, thinking_tokens: 0 }),
    ).toBe(0);
  });
});

describe('ScriptedModel: playing turns', () => {
  const threeTurns = script({
    agents: [
      {
        when: { role: 'worker', task: 't1' },
        turns: [
          { text: 'Reading the file that holds the bug first.', tools: [{ name: 'Read', input: { file_path: 'src/a.ts' } }] },
          {
            tools: [
              { name: 'Edit', input: { file_path: 'src/a.ts', old_string: 'x', new_string: 'y' } },
              { name: 'Bash', input: { command: 'npm test' } },
            ],
          },
          { text: 'All done.' },
        ],
      },
      {
        when: { role: 'worker' },
        turns: [
          { tools: [{ name: 'Read', input: { file_path: 'src/a.ts' } }] },
          {
            tools: [
              { name: 'Edit', input: {} },
              { name: 'Bash', input: {} },
            ],
          },
        ],
      },
    ],
  });

  it('plays the turns in order: text in a few deltas, then each tool_use, then message_end', async () => {
    const model = new ScriptedModel(threeTurns, WORKER);

    const first = await collect(model);
    const deltas = first.filter((event) => event.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(textOf(first)).toBe('Reading the file that holds the bug first.');
    expect(first.findIndex((event) => event.type === 'block' && event.block.type === 'tool_use')).toBeGreaterThan(
      first.findLastIndex((event) => event.type === 'text_delta'),
    );
    expect(toolUses(first).map(({ name, input }) => ({ name, input }))).toEqual([{ name: 'Read', input: { file_path: 'src/a.ts' } }]);
    expect(end(first).stopReason).toBe('tool_use');

    const second = await collect(model);
    expect(textOf(second)).toBe('');
    expect(toolUses(second).map((use) => use.name)).toEqual(['Edit', 'Bash']);
    expect(end(second).stopReason).toBe('tool_use');

    const third = await collect(model);
    expect(textOf(third)).toBe('All done.');
    expect(toolUses(third)).toEqual([]);
    expect(end(third).stopReason).toBe('end_turn');
  });

  it('ends like a model that stopped without Report once the script runs out', async () => {
    const model = new ScriptedModel(threeTurns, WORKER);
    for (let turn = 0; turn < 3; turn += 1) await collect(model);
    for (let extra = 0; extra < 2; extra += 1) {
      const events = await collect(model);
      expect(toolUses(events)).toEqual([]);
      expect(end(events).stopReason).toBe('end_turn');
      expect(textOf(events)).toContain('The script for worker/t1 (test script) ran out after 3 turns');
    }
  });

  it('gives tool_use ids that are stable across models and distinct within a session', async () => {
    const ids = async (identity: ScriptedAgentIdentity) => {
      const model = new ScriptedModel(threeTurns, identity);
      const all: string[] = [];
      for (let turn = 0; turn < 2; turn += 1) all.push(...toolUses(await collect(model)).map((use) => use.id));
      return all;
    };
    const once = await ids(WORKER);
    expect(once).toHaveLength(3);
    for (const id of once) expect(id).toMatch(/^toolu_[0-9a-f]{24}$/);
    expect(new Set(once).size).toBe(3);
    expect(await ids(WORKER)).toEqual(once);
    const otherTask = await ids({ role: 'worker', task: 't2', prompt: 'Fix the bug.' });
    expect(otherTask).toHaveLength(3);
    expect(otherTask.filter((id) => once.includes(id))).toEqual([]);
  });

  it('hands out copies of tool inputs, so a caller changing one does not change the script', async () => {
    const model = new ScriptedModel(threeTurns, WORKER);
    const [use] = toolUses(await collect(model));
    (use!.input as { file_path: string }).file_path = 'changed';
    expect(threeTurns.agents[0]!.turns[0]!.tools![0]!.input).toEqual({ file_path: 'src/a.ts' });
  });
});

describe('ScriptedModel: latency', () => {
  const slow = script({
    latency_ms: 1000,
    agents: [
      {
        when: { role: 'worker' },
        turns: [{ text: 'file-wide latency' }, { text: 'own latency', latency_ms: 250 }, { text: 'no latency', latency_ms: 0 }],
      },
    ],
  });

  /** Starts one call and reports whether its first event has arrived yet. */
  function start(model: ScriptedModel, signal = new AbortController().signal) {
    const state: { settled: boolean; value?: IteratorResult<ModelEvent>; error?: unknown } = { settled: false };
    const done = model
      .stream(request(), signal)
      [Symbol.asyncIterator]()
      .next()
      .then(
        (value) => Object.assign(state, { settled: true, value }),
        (error: unknown) => Object.assign(state, { settled: true, error }),
      );
    return { state, done };
  }

  it('sleeps the file-wide latency, or the turn’s own, before returning the turn', async () => {
    vi.useFakeTimers();
    const model = new ScriptedModel(slow, { role: 'worker', prompt: 'p' });

    const first = start(model);
    await vi.advanceTimersByTimeAsync(999);
    expect(first.state.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(first.state.value?.value).toEqual({ type: 'text_delta', text: expect.any(String) });

    const second = start(model);
    await vi.advanceTimersByTimeAsync(249);
    expect(second.state.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(second.state.settled).toBe(true);

    const third = start(model);
    await vi.advanceTimersByTimeAsync(0);
    expect(third.state.settled).toBe(true);
  });

  it('throws an aborted ModelError as soon as the signal aborts, and leaves the turn unplayed', async () => {
    vi.useFakeTimers();
    const model = new ScriptedModel(slow, { role: 'worker', prompt: 'p' });
    const controller = new AbortController();
    const call = start(model, controller.signal);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await call.done;
    expect(call.state.error).toBeInstanceOf(ModelError);
    expect((call.state.error as ModelError).kind).toBe('aborted');

    const again = start(model);
    await vi.advanceTimersByTimeAsync(1000);
    await again.done;
    const delta = again.state.value?.value as Extract<ModelEvent, { type: 'text_delta' }>;
    expect(delta.type).toBe('text_delta');
    expect('file-wide latency'.startsWith(delta.text)).toBe(true);
  });

  it('aborts a real ten-minute latency (the test would time out otherwise)', async () => {
    const model = new ScriptedModel(script({ latency_ms: 600_000, agents: [{ when: { role: 'worker' }, turns: [{ text: 'x' }] }] }), {
      role: 'worker',
      prompt: 'p',
    });
    const controller = new AbortController();
    const pending = collect(model, request(), controller.signal);
    setImmediate(() => controller.abort());
    await expect(pending).rejects.toMatchObject({ name: 'ModelError', kind: 'aborted' });
  });

  it('refuses at once when the signal is already aborted', async () => {
    const model = new ScriptedModel(slow, { role: 'worker', prompt: 'p' });
    await expect(collect(model, request(), AbortSignal.abort())).rejects.toMatchObject({ kind: 'aborted' });
  });
});

describe('ScriptedModel: usage', () => {
  const tool: ToolSpec = {
    name: 'Read',
    description: 'Reads a file.',
    input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
  };
  const system = 'S'.repeat(400);
  const many = (count: number) =>
    script({ agents: [{ when: { role: 'worker' }, turns: Array.from({ length: count }, () => ({ text: 'ok' })) }] });
  const user = (text: string, cache = false): Message => ({
    role: 'user',
    content: [cache ? { type: 'text', text, cache_control: { type: 'ephemeral' } } : { type: 'text', text }],
  });

  it('estimates about four characters per token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    const req = request({ tools: [tool], system: [{ text: system }], messages: [user('x'.repeat(40))] });
    expect(estimateRequestTokens(req)).toBe(estimateTokens(JSON.stringify(tool)) + 100 + 10);
  });

  it('estimates output from the turn’s text and tool inputs', async () => {
    const model = new ScriptedModel(
      script({
        agents: [
          { when: { role: 'worker' }, turns: [{ text: 'x'.repeat(40), tools: [{ name: 'Bash', input: { command: 'npm test' } }] }] },
        ],
      }),
      { role: 'worker', prompt: 'p' },
    );
    const { usage } = end(await collect(model));
    expect(usage.output_tokens).toBe(10 + estimateTokens('Bash{"command":"npm test"}'));
  });

  it('writes the cacheable prefix on the first call and reads it on the next', async () => {
    const model = new ScriptedModel(many(3), { role: 'worker', prompt: 'p' });
    const req = request({ tools: [tool], cacheTools: true, system: [{ text: system, cache: true }], messages: [user('y'.repeat(80))] });
    const toolTokens = estimateTokens(JSON.stringify(tool));

    const first = end(await collect(model, req)).usage;
    expect(first).toMatchObject({ cache_read_tokens: 0, cache_creation_tokens: toolTokens + 100, input_tokens: 20 });
    expect(totalInputTokens(first)).toBe(estimateRequestTokens(req));

    const second = end(await collect(model, req)).usage;
    expect(second).toMatchObject({ cache_read_tokens: toolTokens + 100, cache_creation_tokens: 0, input_tokens: 20 });
  });

  it('starts over when the system prompt changes, keeping only a cached tool list', async () => {
    const noTools = new ScriptedModel(many(2), { role: 'worker', prompt: 'p' });
    await collect(noTools, request({ system: [{ text: system, cache: true }] }));
    const changed = end(await collect(noTools, request({ system: [{ text: `${system}!`, cache: true }] }))).usage;
    expect(changed.cache_read_tokens).toBe(0);
    expect(changed.cache_creation_tokens).toBe(estimateTokens(`${system}!`));

    const withTools = new ScriptedModel(many(2), { role: 'worker', prompt: 'p' });
    await collect(withTools, request({ tools: [tool], cacheTools: true, system: [{ text: system, cache: true }] }));
    const after = end(
      await collect(withTools, request({ tools: [tool], cacheTools: true, system: [{ text: `${system}!`, cache: true }] })),
    ).usage;
    expect(after.cache_read_tokens).toBe(estimateTokens(JSON.stringify(tool)));
    expect(after.cache_creation_tokens).toBe(estimateTokens(`${system}!`));
  });

  it('reads a growing conversation up to the breakpoint an earlier call cached', async () => {
    const model = new ScriptedModel(many(2), { role: 'worker', prompt: 'p' });
    const systemBlocks = [{ text: system, cache: true }];
    await collect(model, request({ system: systemBlocks, messages: [user('a'.repeat(40), true)] }));
    const grown: Message[] = [
      user('a'.repeat(40)),
      { role: 'assistant', content: [{ type: 'text', text: 'b'.repeat(40) }] },
      user('c'.repeat(40), true),
      user('d'.repeat(40)),
    ];
    const usage = end(await collect(model, request({ system: systemBlocks, messages: grown }))).usage;
    expect(usage).toMatchObject({ cache_read_tokens: 100 + 10, cache_creation_tokens: 20, input_tokens: 10 });
  });

  it('reads only what an earlier call cached at a breakpoint, not the uncached tail it sent after it', async () => {
    const model = new ScriptedModel(many(2), { role: 'worker', prompt: 'p' });
    const systemBlocks = [{ text: system, cache: true }];
    await collect(model, request({ system: systemBlocks, messages: [user('a'.repeat(40))] }));
    const usage = end(
      await collect(model, request({ system: systemBlocks, messages: [user('a'.repeat(40)), user('b'.repeat(40), true)] })),
    ).usage;
    expect(usage).toMatchObject({ cache_read_tokens: 100, cache_creation_tokens: 20, input_tokens: 0 });
  });

  it('caches nothing when nothing is marked', async () => {
    const model = new ScriptedModel(many(2), { role: 'worker', prompt: 'p' });
    const req = request({ tools: [tool], system: [{ text: system }] });
    await collect(model, req);
    const usage = end(await collect(model, req)).usage;
    expect(usage.cache_read_tokens + usage.cache_creation_tokens).toBe(0);
    expect(usage.input_tokens).toBe(estimateRequestTokens(req));
  });
});
