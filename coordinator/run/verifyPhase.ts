import { type VerificationOutput, VerificationOutputSchema } from '../../roles/outputs.js';
import type { RunStatus } from '../../shared/core/events/runEvent.js';
import { PortLeaser, portLeaseOwner } from '../../shared/infra/ports/portLease.js';
import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';
import { loadCommitView, repoPath } from '../../shared/infra/verify/evidence/commitView.js';
import type { AssertionConfirmation, AssertionFlag, CheckEvidence } from '../../shared/infra/verify/evidence/evidence.js';
import { type CheckedProblem, checkProblem } from '../../shared/infra/verify/evidence/problemCheck.js';
import { treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { auditTestChanges } from '../../shared/infra/verify/gates/assertions.js';
import { awaitsConfirmation } from '../../shared/infra/verify/gates/gate.js';
import { gateNamed } from '../../shared/infra/verify/gates/gateList.js';
import { gateRunEvents } from '../../shared/infra/verify/gates/gateRunEvents.js';
import { gateIntegration } from '../../shared/infra/verify/gates/integrationGates.js';
import { runMayPass } from '../../shared/infra/verify/gates/runPass.js';
import { bulletList, fillBrief } from '../briefs/briefTemplate.js';
import { prepareIntegrationWorktree } from '../merge/integrationSetup.js';
import type { Landing } from '../merge/landing.js';
import { mergeRefusal } from '../merge/mergeCheck.js';
import { failedChecks, failureText, runIntegrationChecks } from './integrationChecks.js';
import type { RunContext } from './runContext.js';
import type { CheckRecordOut, GateRecord } from './runResult.js';

/** Inline diffs up to this size go into the Verification agent's prompt; larger ones it reads itself. */
const INLINE_DIFF_CHARS = 30_000;
/** Fix rounds after a FAIL before the run ends FAIL. */
const FIX_ROUNDS = 1;

export interface VerifyOutcome {
  /** The verdict on the work left on the integration branch: FAIL took it all back to the base. */
  status: RunStatus;
  detail: string;
  gates: GateRecord[];
  verification: { verdict: 'PASS' | 'FAIL' | 'PARTIAL'; checks: CheckRecordOut[]; problems: CheckedProblem[] } | null;
}

interface Round {
  status: 'PASS' | 'FAIL' | 'PARTIAL';
  detail: string;
  gates: GateRecord[];
  evidence: CheckEvidence[];
  /** What the fix round is told: failed checks, then the agent's problems. */
  problems: string[];
  /** The agent's problems, checked against the merged tree. */
  reported: CheckedProblem[];
  /** Changes to the tests the Verification agent did not confirm: the work that made them is taken off. */
  unconfirmed: AssertionFlag[];
}

/**
 * Integration verification of the merged tree. First the host runs the checks itself (with the
 * evidence: tree, exit code, test counts, log) and holds them to the gates; then the Verification
 * agent, given the task, the raw diff and the checks (never a worker's summary), tries to break
 * it, and confirms or rejects each flagged change to the tests. PASS needs every gate passed,
 * passing integration evidence newer than the last merge, and the agent's PASS. After a FAIL, one
 * bounded fix round (a worker given the problems), then everything again.
 *
 * What stays on the integration branch is verified work only (landing.ts): a final FAIL takes every
 * merge back off, to the base; a flagged change to the tests left unconfirmed takes off the work
 * that made it (and the work that depends on it), and the rest stays.
 */
export async function verifyPhase(ctx: RunContext, landing: Landing): Promise<VerifyOutcome> {
  await ctx.recorder.record({ type: 'run_phase', phase: 'verifying' });
  let round = await verifyOnce(ctx, 1);
  for (let fix = 1; fix <= FIX_ROUNDS && round.status === 'FAIL' && !ctx.signal.aborted; fix += 1) {
    if (!(await fixRound(ctx, landing, fix, round.problems))) break;
    round = await verifyOnce(ctx, fix + 1);
  }
  const detail = await keepVerified(ctx, landing, round);
  return {
    status: round.status,
    detail,
    gates: round.gates,
    verification: {
      verdict: round.status,
      checks: round.evidence.map((one) => ({
        command: one.command,
        exit_code: one.exit_code,
        tests_executed: one.counts.known ? one.counts.executed : null,
      })),
      problems: round.reported,
    },
  };
}

/** Leaves only verified work on the integration branch after the last round; returns the round's detail, with what was taken off. */
async function keepVerified(ctx: RunContext, landing: Landing, round: Round): Promise<string> {
  if (ctx.signal.aborted) return round.detail;
  if (round.status === 'FAIL') {
    await landing.takeBack(`the final verification failed: ${round.detail}`);
    return round.detail;
  }
  if (round.unconfirmed.length === 0) return round.detail;
  const concerned = workConcerned(ctx, landing, round.unconfirmed);
  const why = (taskId: string) => {
    const own = round.unconfirmed.filter((flag) => concerned.get(taskId)?.includes(flag.file));
    return own.length > 0
      ? `the Verification agent did not confirm its change to the tests (${own.map((flag) => `[${flag.id}] ${flag.file}: ${flag.kind.replace(/_/g, ' ')}`).join('; ')})`
      : 'it depends on work taken off for an unconfirmed change to the tests';
  };
  await landing.takeOff(new Set(concerned.keys()), why);
  return `${round.detail}; taken off for changes to the tests the Verification agent did not confirm: ${[...concerned.keys()].join(', ')}`;
}

/**
 * The work an unconfirmed flag concerns: each landed task whose merge changed the flagged file,
 * and every plan subtask that depends on one of those (its work was built on it). Returns each
 * task with the flagged files it changed (none for a dependant).
 */
function workConcerned(ctx: RunContext, landing: Landing, flags: readonly AssertionFlag[]): Map<string, string[]> {
  const concerned = new Map<string, string[]>();
  for (const landed of landing.landed) {
    const files = flags.map((flag) => flag.file).filter((file) => landed.files.includes(file));
    if (files.length > 0) concerned.set(landed.taskId, files);
  }
  const subtasks = ctx.recorder.state.run.plan?.subtasks ?? [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const subtask of subtasks) {
      if (concerned.has(subtask.id) || !subtask.depends_on.some((dep) => concerned.has(dep))) continue;
      concerned.set(subtask.id, []);
      grew = true;
    }
  }
  return concerned;
}

async function verifyOnce(ctx: RunContext, round: number): Promise<Round> {
  const { recorder, integration, services } = ctx;
  const head = await integration.head();
  // Made ready once, before its first checks: the merges are in by then.
  const linkedDirs = await prepareIntegrationWorktree(ctx);
  const lease = await new PortLeaser(services.redis, services.keys).lease(2, portLeaseOwner(recorder.runId, 'integration'));
  try {
    const evidence = await runIntegrationChecks(ctx, round, lease.ports, linkedDirs);
    // Audited once: the Verification agent is shown these flags, and the gates judge the same ones.
    const audit = { repo: integration.dir, base: ctx.base, head };
    const flags = await auditTestChanges(audit);

    const result = await ctx.jobs.run({
      taskId: `_verify-${round}`,
      title: 'verify the merged result',
      role: ctx.role('verification'),
      prompt: verificationPrompt(ctx, head, await integration.diffFrom(ctx.base), flags),
      base: head,
      checks: ctx.checks,
    });
    const report = result.status === 'completed' ? VerificationOutputSchema.parse(result.report) : undefined;
    const reported = report ? await checkProblems(ctx, head, report.problems, result.worktree) : [];
    if (report) await recorder.record({ type: 'problems', round, problems: reported });

    const gated = await gateIntegration({
      evidence,
      worktree: integration.dir,
      leasedPorts: lease.ports,
      audit,
      flags,
      confirmations: report?.confirmations ?? [],
      verification: report
        ? { claims: report.checks.map(({ command, exit_code }) => ({ command, exit_code })), commands: result.commands }
        : undefined,
    });
    for (const event of gateRunEvents(gated.gates)) await recorder.record(event);
    const pass = runMayPass({
      evidence,
      lastMergeAt: recorder.state.run.last_merge_at,
      currentTree: await treeSnapshot(integration.dir),
      // A gate only the Verification agent's confirmation lifts is judged on the work it concerns instead.
      gates: gated.gates.filter((gate) => !awaitsConfirmation(gateNamed(gate.name))),
    });
    return judge({ result, report, reported, evidence, gates: gated.gates, flags, pass });
  } finally {
    await lease.release();
  }
}

/**
 * The Verification agent's problems checked against the merged tree's objects: a file it names
 * that the tree lacks (deleted, an absolute path elsewhere), or a line past its end, is kept
 * unverified with the reason, never dropped.
 */
async function checkProblems(
  ctx: RunContext,
  head: string,
  problems: VerificationOutput['problems'],
  worktree: string | undefined,
): Promise<CheckedProblem[]> {
  const roots = [...(worktree ? [worktree] : []), ctx.integration.dir, ctx.repo];
  const wanted = problems.map((problem) => repoPath(problem.file, roots)).flatMap((where) => ('path' in where ? [where.path] : []));
  const view = await loadCommitView(ctx.repo, head, wanted);
  return problems.map((problem) => checkProblem(problem, view, roots));
}

function judge(input: {
  result: AgentJobResult;
  report: VerificationOutput | undefined;
  reported: CheckedProblem[];
  evidence: CheckEvidence[];
  gates: GateRecord[];
  flags: AssertionFlag[];
  pass: { ok: boolean; reason: string };
}): Round {
  const { report, reported, evidence, gates, pass } = input;
  const failed = failedChecks(evidence);
  const problems = failed.map((one) => `${failureText(one)} on the merged tree`);
  problems.push(
    ...reported.map(
      (p) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.what}${p.verified ? '' : ` (not confirmed on the merged tree: ${p.reason})`}`,
    ),
  );
  const unconfirmed = unconfirmedFlags(input.flags, report?.confirmations ?? []);
  const base = { gates, evidence, problems, reported, unconfirmed: [] as AssertionFlag[] };
  if (!report)
    return {
      ...base,
      status: 'FAIL',
      detail: `the Verification agent did not report: ${input.result.end_reason} (${input.result.detail})`,
    };
  const unverified = reported.filter((problem) => !problem.verified).length;
  const note = unverified > 0 ? `; ${unverified} reported problem(s) could not be confirmed on the merged tree` : '';
  if (failed.length > 0)
    return { ...base, status: 'FAIL', detail: `integration checks failed: ${failed.map(failureText).join('; ')}${note}` };
  if (report.verdict === 'FAIL') return { ...base, status: 'FAIL', detail: `verification FAIL: ${problems.join('; ')}${note}` };
  // `pass` leaves out the gates only the agent's confirmation lifts: those fail the work they concern (keepVerified).
  if (!pass.ok) return { ...base, status: 'FAIL', detail: `not a pass: ${pass.reason}${note}` };
  const kept = { ...base, unconfirmed };
  if (report.verdict === 'PARTIAL') return { ...kept, status: 'PARTIAL', detail: `verification PARTIAL${note}` };
  return { ...kept, status: 'PASS', detail: `${pass.reason}; verification PASS${note}` };
}

/** The flags the Verification agent did not confirm, by id. */
function unconfirmedFlags(flags: readonly AssertionFlag[], confirmations: readonly AssertionConfirmation[]): AssertionFlag[] {
  const confirmed = new Set(confirmations.map((one) => one.flag));
  return flags.filter((flag) => !confirmed.has(flag.id));
}

function verificationPrompt(ctx: RunContext, head: string, diff: string, flags: AssertionFlag[]): string {
  const flagText =
    flags.length === 0
      ? 'The host found no weakened or removed tests in the diff.'
      : [
          'The host flagged these changes to tests. For each one you judge right, add {flag, reason} to `confirmations`; leave out any you do not, and report it as a problem:',
          ...flags.map((flag) => `- flag ${flag.id} (${flag.kind}) in ${flag.file}: ${flag.detail}\n\`\`\`diff\n${flag.hunk}\n\`\`\``),
        ].join('\n');
  return fillBrief('verification-brief', {
    task: ctx.task,
    base: ctx.base,
    head,
    diff:
      diff.length === 0
        ? 'The diff is empty: nothing was changed.'
        : diff.length <= INLINE_DIFF_CHARS
          ? `\`\`\`diff\n${diff}\`\`\``
          : `(The diff is ${diff.length} characters: read it with git.)`,
    checks: ctx.checks.length > 0 ? ctx.checks.join(', ') : '(none named: find and run the tests)',
    flags: flagText,
  });
}

/** The paths a fix round owns: every path the plan's subtasks owned (unset when there was no plan). */
function fixPaths(ctx: RunContext): string[] | undefined {
  const subtasks = ctx.recorder.state.run.plan?.subtasks;
  return subtasks ? [...new Set(subtasks.flatMap((subtask) => subtask.paths))] : undefined;
}

async function fixRound(ctx: RunContext, landing: Landing, round: number, problems: string[]): Promise<boolean> {
  const taskId = `_fix-${round}`;
  const result = await ctx.jobs.run({
    taskId,
    title: 'fix what verification found',
    role: ctx.role('worker'),
    prompt: fillBrief('fix-brief', {
      task: ctx.task,
      problems: bulletList(problems),
      checks: ctx.checks.length > 0 ? ctx.checks.join(', ') : '(the relevant tests)',
      paths: fixPaths(ctx) ? bulletList(fixPaths(ctx)!) : '- every path (but guarded ones: .git, .claude, .env*, shell start-up files)',
    }),
    base: await ctx.integration.head(),
    checks: ctx.checks,
    // A fix round redoes the run's work: it owns what the plan's subtasks owned.
    ownedPaths: fixPaths(ctx),
  });
  if (result.status !== 'completed' || !result.branch) return false;
  // The commit the worker reported is what is checked and merged, never whatever its branch points at by then.
  const tip = result.commit ?? result.branch;
  const refused = await mergeRefusal(ctx.integration.repo, result.base, tip, fixPaths(ctx));
  if (refused) {
    await ctx.recorder.record({ type: 'merge', task_id: taskId, outcome: 'refused', files: [], detail: refused });
    ctx.say(`fix round ${round}: its branch was ${refused}`);
    return false;
  }
  const merged = await ctx.integration.merge(tip, `Merge fix round ${round}\n\norca run ${ctx.recorder.runId}`);
  if (merged.kind === 'conflict') return false;
  if (merged.kind === 'nothing') {
    await ctx.recorder.record({ type: 'merge', task_id: taskId, outcome: 'nothing', commit: merged.commit, files: [] });
    return true;
  }
  // Like a task's merge, a fix counts only once the integration checks pass on it.
  await landing.land({ taskId, branch: result.branch, commit: tip, checkedAlone: true, resolved: false }, merged);
  return true;
}
