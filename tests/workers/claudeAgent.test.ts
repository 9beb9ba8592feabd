import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, makeRepo } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { transcriptFiles, transcriptLines } from '../support/transcripts.js';

/**
 * A whole `orca agent` (CLI, Redis queue, a real worker process, the real SDK) against the strict
 * stand-in answering as Claude Sonnet 5.5 does: thinking on every turn, signed and bound to the
 * conversation, so any turn sent back without its thinking, or with it changed, is refused.
 */

let server: MessagesServer;

beforeEach(async () => {
  server = new MessagesServer();
  await server.start();
});

afterEach(async () => {
  await server.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

const REPORT = {
  findings: [{ fact: 'total() adds the prices without the tax', evidence: 'src/cart.ts:2' }],
  files: ['src/cart.ts', 'src/tax.ts'],
  questions: [],
};

function repo(env: OrcaTestEnv): string {
  const dir = makeRepo({
    'src/cart.ts': 'export function total(prices: number[]): number {\n  return prices.reduce((sum, price) => sum + price, 0);\n}\n',
    'src/tax.ts': 'export const TAX = 0.2;\n',
  });
  expect(env.root).toBeTruthy();
  return dir;
}

function apiEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key', ORCA_MODEL: 'claude-sonnet-5-5', ...extra };
}

function transcriptOf(env: OrcaTestEnv): Array<Record<string, unknown>> {
  const files = transcriptFiles(env.home);
  expect(files).toHaveLength(1);
  return transcriptLines(files[0]!);
}

async function runStreamTypes(env: OrcaTestEnv, runId: string): Promise<string[]> {
  const entries = await env.redis.xrange(env.keys.events(runId), '-', '+');
  return entries.map(([, fields]) => {
    const data = JSON.parse(fields[fields.indexOf('e') + 1]!) as { event?: { type?: string } };
    return data.event?.type ?? '?';
  });
}

describe('orca agent with a model that thinks', { timeout: SLOW_TEST_MS }, () => {
  it('completes an explore agent over three turns, each request carrying every earlier turn’s signed thinking', async () => {
    const env = await OrcaTestEnv.open();
    const dir = repo(env);
    server.enqueue(
      reply.thinkingToolUse(
        'The cart total lives in src/cart.ts; read it.',
        'Read',
        { file_path: 'src/cart.ts' },
        { usage: { output_tokens: 90, thinking_tokens: 60 } },
      ),
      reply.thinkingToolUse(
        'Tax is separate; check src/tax.ts.',
        'Read',
        { file_path: 'src/tax.ts' },
        { usage: { output_tokens: 80, thinking_tokens: 50 } },
      ),
      reply.thinkingToolUse('total() never applies TAX. Report.', 'Report', REPORT, { usage: { output_tokens: 120, thinking_tokens: 40 } }),
    );
    const run = await env.cli(['agent', '--role', 'explore', 'Why is the total missing tax?', '--repo', dir, '--json'], { env: apiEnv() });

    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { status: string; report: unknown; usage: Record<string, number> };
    expect(out.status).toBe('completed');
    expect(out.report).toEqual(REPORT);
    expect(out.usage).toMatchObject({ output_tokens: 290, thinking_tokens: 150 });

    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((request) => request.rejection)).toEqual([undefined, undefined, undefined]);
    expect(server.requests.map((request) => request.dropped)).toEqual([[], [], []]);
    for (const request of server.requests) {
      expect(request.body.model).toBe('claude-sonnet-5-5');
      expect(request.body.thinking).toMatchObject({ type: 'adaptive', display: 'summarized' });
    }
    // Request k holds the k answers before it, each whole: its thinking first, signature intact.
    for (const [k, request] of server.requests.entries()) {
      const turns = request.body.messages.filter((message: Body) => message.role === 'assistant');
      expect(turns).toHaveLength(k);
      turns.forEach((turn: Body, earlier: number) => {
        const answer = server.requests[earlier]!.answer!.blocks;
        expect(turn.content).toEqual(answer);
        expect(turn.content[0]).toMatchObject({ type: 'thinking', signature: answer[0].signature });
      });
    }

    // The thinking is in the agent's transcript, and not in the run's stream the rest of orca reads.
    const transcript = transcriptOf(env);
    expect(transcript.filter((line) => line.type === 'thinking').map((line) => line.text)).toEqual([
      'The cart total lives in src/cart.ts; read it.',
      'Tax is separate; check src/tax.ts.',
      'total() never applies TAX. Report.',
    ]);
    const runId = /^orca: run (\S+)$/m.exec(run.stderr)![1]!;
    const types = await runStreamTypes(env, runId);
    expect(types).toContain('tool_call');
    expect(types).not.toContain('thinking');
  });

  it('tells the model of a tool call whose input is broken JSON, and completes', async () => {
    const env = await OrcaTestEnv.open();
    const dir = repo(env);
    server.enqueue(
      reply.thinkingToolUse('Read the cart.', 'Read', null, { id: 'toolu_broken', rawJson: '{"file_path": "src/cart.ts" "limit": 5}' }),
      reply.thinkingToolUse('My input was broken; again.', 'Read', { file_path: 'src/cart.ts' }),
      reply.thinkingToolUse('Enough.', 'Report', REPORT),
    );
    const run = await env.cli(['agent', '--role', 'explore', 'Why is the total missing tax?', '--repo', dir, '--json'], { env: apiEnv() });

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', report: REPORT });
    expect(server.requests.map((request) => request.rejection)).toEqual([undefined, undefined, undefined]);
    const next = server.requests[1]!.body.messages;
    const result = next.at(-1).content[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_broken', is_error: true });
    expect(result.content).toMatch(
      /^Read was not run: the input is not valid JSON \(.+\); the input began: \{"file_path": "src\/cart\.ts" "limit": 5\}/,
    );
  });

  it('sends an alias as its full id, with --effort, and takes a custom role’s own thinking and effort', async () => {
    const env = await OrcaTestEnv.open();
    const dir = repo(env);
    server.enqueue(reply.thinkingToolUse('Report at once.', 'Report', REPORT));
    const run = await env.cli(['agent', '--role', 'explore', 'Look.', '--repo', dir, '--model', 'opus', '--effort', 'low', '--json'], {
      env: apiEnv({ ORCA_MODEL: '' }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0]!.body).toMatchObject({ model: 'claude-opus-5-5', output_config: { effort: 'low' } });

    // Roles come from the base commit (docs/claude-code-files.md): the file is committed.
    commitFiles(
      dir,
      {
        '.claude/agents/auditor.md':
          '---\nname: auditor\ndescription: Audits.\ntools: Read, Grep\nmodel: claude-haiku-4-5\nthinking: enabled:4000\neffort: high\npermissionMode: plan\n---\nAudit the code.\n',
      },
      'an auditor role',
    );
    server.enqueue(reply.thinkingToolUse('Audit done.', 'Report', REPORT));
    const custom = await env.cli(['agent', '--role', 'auditor', 'Audit.', '--repo', dir, '--allow-dirty', '--effort', 'max', '--json'], {
      env: apiEnv(),
    });
    // haiku-4-5 takes no effort level: the role's own setting is refused before any run starts, in one line.
    expect(custom.code).toBe(2);
    expect(custom.stderr.trim()).toBe("orca: claude-haiku-4-5 does not take an effort level: leave --effort (or the role's effort) unset");
    expect(server.requests).toHaveLength(1);

    commitFiles(
      dir,
      {
        '.claude/agents/auditor.md':
          '---\nname: auditor\ndescription: Audits.\ntools: Read, Grep\nmodel: claude-sonnet-4-6\nthinking: enabled:4000\neffort: high\npermissionMode: plan\n---\nAudit the code.\n',
      },
      'the auditor on sonnet',
    );
    const again = await env.cli(['agent', '--role', 'auditor', 'Audit.', '--repo', dir, '--allow-dirty', '--effort', 'max', '--json'], {
      env: apiEnv(),
    });
    expect(again.code, again.stderr).toBe(0);
    const sent = server.requests[1]!;
    expect(sent.rejection).toBeUndefined();
    expect(sent.body).toMatchObject({
      model: 'claude-sonnet-4-6',
      thinking: { type: 'enabled', budget_tokens: 4000 },
      output_config: { effort: 'high' },
    });
    expect(sent.body.max_tokens).toBe(16_000 + 4000);
  });

  it('refuses a thinking setting the model does not take, in one line and before any run starts', async () => {
    const env = await OrcaTestEnv.open();
    const dir = repo(env);
    const budget = await env.cli(['agent', '--role', 'explore', 'Look.', '--repo', dir, '--thinking', 'enabled:5000'], { env: apiEnv() });
    expect(budget.code).toBe(2);
    expect(budget.stderr.trim()).toBe(
      'orca: claude-sonnet-5-5 does not take a thinking budget: use --thinking adaptive, and --effort for how much it thinks',
    );
    const off = await env.cli(['run', 'Fix it.', '--repo', dir, '--model', 'opus', '--thinking', 'off'], { env: apiEnv() });
    expect(off.code).toBe(2);
    expect(off.stderr.trim()).toBe(
      'orca: claude-opus-5-5 always thinks: --thinking off is not accepted; a lower --effort makes it think less',
    );
    const bad = await env.cli(['agent', '--role', 'explore', 'Look.', '--repo', dir, '--thinking', 'sometimes'], { env: apiEnv() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"sometimes" is not a thinking setting: use adaptive, enabled:<budget>');
    const effort = await env.cli(['agent', '--role', 'explore', 'Look.', '--repo', dir, '--effort', 'extreme'], { env: apiEnv() });
    expect(effort.code).toBe(2);
    expect(effort.stderr).toContain('expected one of low, medium, high, xhigh, max');
    expect(server.requests).toHaveLength(0);
  });
});
