import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { agentJobId, parseJobResult } from '../../shared/infra/queue/agentQueue.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const SCRIPT = path.join(packageRoot(), 'coordinator', 'demo', 'single-agent-script.json');
const Sha = z.string().regex(/^[0-9a-f]{40}$/);

/** `orca agent --json`, as docs/json.md gives it. */
const AgentJsonSchema = z.strictObject({
  run_id: z.string().min(1),
  task_id: z.string().min(1),
  role: z.literal('worker'),
  agent: z.literal('orca'),
  status: z.enum(['completed', 'failed', 'aborted']),
  end_reason: z.string().min(1),
  detail: z.string().min(1).optional(),
  branch: z.string(),
  commit: Sha,
  report: z.strictObject({
    summary: z.string().min(1),
    unresolved: z.array(z.string()),
    claimed_checks: z.array(z.object({ command: z.string(), exit_code: z.number().int() })),
  }),
  usage: z.strictObject({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
    cache_read_tokens: z.number().int().nonnegative(),
    cache_creation_tokens: z.number().int().nonnegative(),
    thinking_tokens: z.number().int().nonnegative(),
    cost_usd: z.number().nonnegative(),
  }),
  usage_reported: z.literal(true),
  // bwrap is installed where orca's tests run.
  sandbox: z.literal('bwrap'),
});

describe('orca agent through the CLI', { timeout: SLOW_TEST_MS }, () => {
  it('runs one scripted worker through the queue and a worker process, and leaves a commit on its branch', async () => {
    const orca = await OrcaTestEnv.open();
    const { dir: repo, base } = createSampleRepo(orca.dir('shop-lib'));
    const run = await orca.cli([
      'agent',
      '--role',
      'worker',
      'Use formatMoney from src/money.ts everywhere.',
      '--repo',
      repo,
      '--script',
      SCRIPT,
      '--json',
    ]);

    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = AgentJsonSchema.parse(JSON.parse(lines[0]!));
    expect(run.stderr.split('\n')[0]).toBe(`orca: run ${out.run_id}`);
    expect(out.status).toBe('completed');
    expect(out.branch).toBe(`orca/${out.run_id}/${out.task_id}`);

    // The commit is the branch's tip, sits on the base, and holds the scripted change.
    expect(git(repo, 'rev-parse', out.branch)).toBe(out.commit);
    expect(git(repo, 'rev-parse', `${out.commit}^`)).toBe(base);
    const changed = git(repo, 'diff', '--name-only', base, out.commit).split('\n').sort();
    expect(changed).toEqual([
      'src/cart.ts',
      'src/invoice.ts',
      'src/report.ts',
      'test/cart.test.ts',
      'test/invoice.test.ts',
      'test/report.test.ts',
    ]);
    const cart = git(repo, 'show', `${out.commit}:src/cart.ts`);
    expect(cart).toContain("import { formatMoney } from './money.js';");
    expect(cart).not.toContain('toDollars');

    // The agent's own check ran for real in its worktree (the linked dependencies reachable) and
    // passed: the worker's record of its commands, in the job's result on the queue.
    const job = await orca.queue.getJob(agentJobId(out.run_id, out.task_id, 1));
    expect(parseJobResult(job!.returnvalue, 'the agent job').commands.map(({ command, exit_code }) => ({ command, exit_code }))).toEqual([
      { command: 'npm test', exit_code: 0 },
    ]);

    // The worker processes it forked ended with it.
    expect(orca.processesOfThisEnv()).toEqual([]);

    // The user's checkout: same HEAD, nothing changed or added.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'show', 'HEAD:src/cart.ts')).toContain('toDollars');
  });
});
