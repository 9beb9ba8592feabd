import { beforeAll, describe, expect, it } from 'vitest';
import type { CompactionConfigInput } from '../../shared/context/compaction/compactionConfig.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { estimateRequestTokens } from '../../shared/core/model/tokenEstimate.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { bash, messagesText, REPORT_TURN, read, runScripted, type ScriptedRun } from './scriptedSession.js';
import { expectValidConversation } from './viewChecks.js';

const CHECK = 'node --test check.test.mjs';
const BIG = Array.from({ length: 200 }, (_, index) => `line ${index + 1}: ${'lorem ipsum '.repeat(3)}`).join('\n');

/** Material for every level: a partial read later read whole, a check that fails then passes, bulky output. */
const TURNS: ScriptTurn[] = [
  read('big.txt', { offset: 1, limit: 50 }),
  read('big.txt'),
  bash(CHECK),
  bash('echo ok > state.txt'),
  bash(CHECK),
  ...Array.from({ length: 7 }, (_, index) => bash(`head -c 3000 /dev/zero | tr '\\0' ${String.fromCharCode(97 + index)}`)),
  REPORT_TURN,
];
/** The model call at which each level is made to fire (0-based: the 10th call, turn 10). */
const AT = 9;
const USABLE = 1_000_000;
const OFF = { snipAt: 2, microcompactAt: 2, collapseAt: 2, autocompact: false } as const;

function repo(): string {
  return makeRepo({
    'big.txt': `${BIG}\n`,
    'check.test.mjs':
      "import { test } from 'node:test';\nimport { existsSync } from 'node:fs';\ntest('state', () => { if (!existsSync('state.txt')) throw new Error('state.txt is missing'); });\n",
  });
}

async function run(compaction: CompactionConfigInput): Promise<ScriptedRun> {
  return runScripted({
    root: repo(),
    turns: TURNS,
    context: createContextAssembler({
      homeDir: tempDir('orca-home-'),
      compaction: { contextWindow: USABLE, reservedOutputTokens: 0, minSavings: 0, ...compaction },
    }),
  });
}

function compactionsByTurn(events: AgentEvent[]): Array<{ turn: number; event: Extract<AgentEvent, { type: 'compaction' }> }> {
  let turn = 0;
  const out: Array<{ turn: number; event: Extract<AgentEvent, { type: 'compaction' }> }> = [];
  for (const event of events) {
    if (event.type === 'turn_start') turn = event.turn;
    if (event.type === 'compaction') out.push({ turn, event });
  }
  return out;
}

describe('compaction thresholds', () => {
  let sizes: number[] = [];
  let baseline: ScriptedRun;

  beforeAll(async () => {
    baseline = await run(OFF);
    sizes = baseline.model.requests.map((request) => estimateRequestTokens(request));
  });

  it('runs nothing when every level is off, and the request only grows', () => {
    expect(baseline.result.reason).toBe('report');
    expect(baseline.events.some((event) => event.type === 'compaction')).toBe(false);
    for (let index = 1; index < sizes.length; index += 1) expect(sizes[index]!).toBeGreaterThan(sizes[index - 1]!);
  });

  const threshold = () => (sizes[AT - 1]! + sizes[AT]!) / 2;
  const cases: Array<{
    level: 'snip' | 'microcompact' | 'collapse' | 'autocompact';
    config: () => CompactionConfigInput;
    check: (run: ScriptedRun) => void;
  }> = [
    {
      level: 'snip',
      config: () => ({ ...OFF, snipAt: threshold() / USABLE }),
      check: ({ model, session }) => {
        const partial = session.messages[1]!.content[0]!;
        expect(partial.type).toBe('tool_use');
        const sent = model.requests[AT]!;
        expect(JSON.stringify(sent.messages)).not.toContain((partial as { id: string }).id);
        expect(messagesText(sent)).toContain('line 200:');
      },
    },
    {
      level: 'microcompact',
      config: () => ({ ...OFF, microcompactAt: threshold() / USABLE }),
      check: ({ model }) => {
        const text = messagesText(model.requests[AT]!);
        expect(text.match(/\[Old result cleared from the context to save space/g)).toHaveLength(AT - 1 - 5);
        expect(text).toContain('[Old result cleared from the context to save space: Bash `node --test check.test.mjs` → exit code 1.');
      },
    },
    {
      level: 'collapse',
      config: () => ({ ...OFF, collapseAt: threshold() / USABLE }),
      check: ({ model, session }) => {
        const text = messagesText(model.requests[AT]!);
        expect(text).toContain('Finished: `node --test check.test.mjs` failed at turn 3 and passed at turn 5.');
        expect(text).not.toContain('state.txt is missing');
        // The stored transcript keeps everything.
        expect(JSON.stringify(session.messages)).toContain('state.txt is missing');
      },
    },
    {
      level: 'autocompact',
      config: () => ({ ...OFF, autocompact: true, autocompactBufferTokens: Math.ceil(USABLE - threshold()) }),
      check: ({ model }) => {
        const first = model.requests[AT]!.messages[0]!;
        expect(first.content.some((block) => block.type === 'text' && block.text.includes('# Hand-off summary'))).toBe(true);
      },
    },
  ];

  for (const { level, config, check } of cases) {
    it(`fires ${level} at its threshold and not before`, async () => {
      const limit = threshold();
      expect(sizes[AT - 1]!).toBeLessThan(limit);
      const result = await run(config());
      expect(result.result.reason).toBe('report');
      const fired = compactionsByTurn(result.events);
      // Nothing before the call whose request reaches the threshold; then this level, there.
      expect(fired.filter(({ turn }) => turn <= AT)).toEqual([]);
      const first = fired[0];
      expect(first?.turn).toBe(AT + 1);
      expect(first?.event.level).toBe(level);
      expect(first!.event.tokens_before).toBeGreaterThanOrEqual(limit);
      expect(first!.event.tokens_after).toBeLessThan(first!.event.tokens_before);
      // The requests before it are the baseline's (give or take the test runner's timings in
      // its output); the one at it is smaller.
      for (let index = 0; index < AT; index += 1)
        expect(Math.abs(estimateRequestTokens(result.model.requests[index]!) - sizes[index]!)).toBeLessThan(10);
      expect(estimateRequestTokens(result.model.requests[AT]!)).toBeLessThan(sizes[AT]!);
      for (const request of result.model.requests) expectValidConversation(request.messages);
      check(result);
    });
  }

  it('keeps the view stable between decisions, so the cache hits again after a level fired', async () => {
    // A saving of at least 1,000 tokens is needed to rewrite the view: it fires once, at AT.
    const result = await run({ ...OFF, microcompactAt: threshold() / USABLE, minSavings: 1_000 / USABLE });
    const fired = compactionsByTurn(result.events);
    expect(fired.map(({ turn, event }) => [turn, event.level])).toEqual([[AT + 1, 'microcompact']]);
    const after = result.model.requests.slice(AT);
    expect(after.length).toBeGreaterThan(2);
    for (let index = 1; index < after.length; index += 1) {
      const previous = after[index - 1]!.messages;
      const kept = (messages: typeof previous) =>
        JSON.stringify(messages.slice(0, previous.length - 1).map((message) => message.content.map(strip)));
      expect(kept(after[index]!.messages)).toBe(kept(previous));
    }
    const usages = result.events.flatMap((event) => (event.type === 'usage' ? [event.usage] : []));
    for (const usage of usages.slice(AT + 1)) {
      expect(usage.cache_read_tokens / (usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens)).toBeGreaterThan(0.8);
    }
  });
});

function strip(block: object): object {
  const { cache_control: _ignored, ...rest } = block as { cache_control?: unknown };
  return rest;
}
