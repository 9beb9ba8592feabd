import { existsSync } from 'node:fs';
import path from 'node:path';
import { VerificationOutputSchema, type VerificationOutput } from '../../roles/outputs.js';
import type { RunStatus } from '../../shared/events/runEvent.js';
import type { AgentJobResult } from '../../shared/queue/agentJob.js';
import { bulletList, fillPrompt } from '../prompts/promptTemplate.js';
import type { RunContext } from './runContext.js';
import type { CheckRecordOut, GateRecord } from './runResult.js';

/** Inline diffs up to this size go into the Verification agent's prompt; larger ones it reads itself. */
const INLINE_DIFF_CHARS = 30_000;
/** Fix rounds after a FAIL before the run ends FAIL. */
const FIX_ROUNDS = 1;

export interface VerifyOutcome {
  status: RunStatus;
  detail: string;
  gates: GateRecord[];
  verification: { verdict: 'PASS' | 'FAIL' | 'PARTIAL'; checks: CheckRecordOut[] } | null;
}

/**
 * Integration verification of the merged tree: the Verification agent, given the task, the raw
 * diff from base to the integration head and the checks (never a worker's summary), tries to
 * break it. After a FAIL, one bounded fix round (a worker given the problems), then again.
 */
export async function verifyPhase(ctx: RunContext): Promise<VerifyOutcome> {
  await ctx.recorder.record({ type: 'run_phase', phase: 'verifying' });
  let outcome = await verifyOnce(ctx, 1);
  for (let round = 1; round <= FIX_ROUNDS && outcome.verdict === 'FAIL' && !ctx.signal.aborted; round += 1) {
    const fixed = await fixRound(ctx, round, outcome.problems);
    if (!fixed) break;
    outcome = await verifyOnce(ctx, round + 1);
  }
  return {
    status: outcome.verdict,
    detail: outcome.detail,
    gates: outcome.gates,
    verification: { verdict: outcome.verdict, checks: outcome.checks },
  };
}

interface OnceOutcome {
  verdict: 'PASS' | 'FAIL' | 'PARTIAL';
  detail: string;
  gates: GateRecord[];
  checks: CheckRecordOut[];
  problems: VerificationOutput['problems'];
}

async function verifyOnce(ctx: RunContext, round: number): Promise<OnceOutcome> {
  const head = await ctx.integration.head();
  const diff = await ctx.integration.diffFrom(ctx.base);
  const result = await ctx.jobs.run({
    taskId: `_verify-${round}`,
    role: ctx.role('verification'),
    prompt: fillPrompt('verification', {
      task: ctx.task,
      base: ctx.base,
      head,
      diff: diff.length === 0 ? 'The diff is empty: nothing was changed.' : diff.length <= INLINE_DIFF_CHARS ? `\`\`\`diff\n${diff}\`\`\`` : `(The diff is ${diff.length} characters: read it with git.)`,
      checks: ctx.checks.length > 0 ? ctx.checks.join(', ') : '(none named: find and run the tests)',
    }),
    base: head,
    checks: ctx.checks,
  });
  if (result.status !== 'completed') {
    return { verdict: 'FAIL', detail: `the Verification agent did not report: ${result.end_reason} (${result.detail})`, gates: [], checks: [], problems: [] };
  }
  const report = VerificationOutputSchema.parse(result.report);
  const problems = report.problems.filter((problem) => existsSync(path.join(ctx.integration.dir, problem.file)));
  const invented = report.problems.length - problems.length;
  const checks = report.checks.map((check) => ({ command: check.command, exit_code: check.exit_code, tests_executed: null }));
  let verdict = report.verdict;
  let detail = `verification ${verdict}`;
  if (invented > 0) detail += `; ${invented} problem(s) named files that do not exist and were dropped`;
  if (verdict === 'FAIL') detail = `verification FAIL: ${report.problems.map((p) => `${p.file}${p.line ? `:${p.line}` : ''} ${p.what}`).join('; ')}`;
  if (verdict === 'PASS' && !ranOwnChecks(report, result)) {
    verdict = 'FAIL';
    detail = 'the Verification agent said PASS without running the checks it reported';
  }
  return { verdict, detail, gates: [], checks, problems };
}

/** Every check the Verification agent reports must be a command it ran, with the same exit code. */
function ranOwnChecks(report: VerificationOutput, result: AgentJobResult): boolean {
  return report.checks.every((check) => result.commands.some((run) => run.command.trim() === check.command.trim() && run.exit_code === check.exit_code));
}

async function fixRound(ctx: RunContext, round: number, problems: VerificationOutput['problems']): Promise<boolean> {
  const result = await ctx.jobs.run({
    taskId: `_fix-${round}`,
    role: ctx.role('worker'),
    prompt: fillPrompt('fix', {
      task: ctx.task,
      problems: bulletList(problems.map((p) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.what}`)),
      checks: ctx.checks.length > 0 ? ctx.checks.join(', ') : '(the relevant tests)',
    }),
    base: await ctx.integration.head(),
    checks: ctx.checks,
  });
  if (result.status !== 'completed' || !result.branch) return false;
  const merged = await ctx.integration.merge(result.branch, `Merge fix round ${round}\n\norca run ${ctx.recorder.runId}`);
  if (merged.kind === 'conflict') return false;
  await ctx.recorder.record({ type: 'merge', task_id: `_fix-${round}`, outcome: merged.kind === 'merged' ? 'merged' : 'nothing', commit: merged.commit, files: merged.kind === 'merged' ? merged.files : [] });
  return true;
}
