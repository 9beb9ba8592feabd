import path from 'node:path';
import { type VerificationOutput, VerificationOutputSchema } from '../../roles/outputs.js';
import type { RunStatus } from '../../shared/core/events/runEvent.js';
import { commonGitDir } from '../../shared/core/git/repoLock.js';
import { PortLeaser, portLeaseOwner } from '../../shared/infra/ports/portLease.js';
import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { checkLauncher } from '../../shared/infra/verify/checks/checkSandbox.js';
import { loadCommitView, repoPath } from '../../shared/infra/verify/evidence/commitView.js';
import { type AssertionFlag, type CheckEvidence, CheckSpecSchema } from '../../shared/infra/verify/evidence/evidence.js';
import { checkRunEvent } from '../../shared/infra/verify/evidence/evidenceEvents.js';
import { type CheckedProblem, checkProblem } from '../../shared/infra/verify/evidence/problemCheck.js';
import { treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { auditTestChanges } from '../../shared/infra/verify/gates/assertions.js';
import { gateRunEvents } from '../../shared/infra/verify/gates/gateRunEvents.js';
import { gateIntegration } from '../../shared/infra/verify/gates/integrationGates.js';
import { runMayPass } from '../../shared/infra/verify/gates/runPass.js';
import { bulletList, fillBrief } from '../briefs/briefTemplate.js';
import { prepareIntegrationWorktree } from '../merge/integrationSetup.js';
import { mergeRefusal } from '../merge/mergeCheck.js';
import { refGuardedCheck } from './refGuardedCheck.js';
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
}

/**
 * Integration verification of the merged tree. First the host runs the checks itself (with the
 * evidence: tree, exit code, test counts, log) and holds them to the gates; then the Verification
 * agent, given the task, the raw diff and the checks (never a worker's summary), tries to break
 * it, and confirms or rejects each flagged change to the tests. PASS needs every gate passed,
 * passing integration evidence newer than the last merge, and the agent's PASS. After a FAIL, one
 * bounded fix round (a worker given the problems), then everything again.
 */
export async function verifyPhase(ctx: RunContext): Promise<VerifyOutcome> {
  await ctx.recorder.record({ type: 'run_phase', phase: 'verifying' });
  let round = await verifyOnce(ctx, 1);
  for (let fix = 1; fix <= FIX_ROUNDS && round.status === 'FAIL' && !ctx.signal.aborted; fix += 1) {
    if (!(await fixRound(ctx, fix, round.problems))) break;
    round = await verifyOnce(ctx, fix + 1);
  }
  return {
    status: round.status,
    detail: round.detail,
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
      gates: gated.gates,
    });
    return judge({ result, report, reported, evidence, gates: gated.gates, pass });
  } finally {
    await lease.release();
  }
}

/**
 * The host runs the integration checks itself on the merged tree, each recorded with its evidence.
 * The merged code, tests included, is agent-written: it runs in the sandbox an agent's Bash gets.
 */
async function runIntegrationChecks(
  ctx: RunContext,
  round: number,
  ports: readonly number[],
  linkedDirs: readonly string[],
): Promise<CheckEvidence[]> {
  const { recorder, integration } = ctx;
  const logDir = ctx.services.home.integrationCheckLogs(recorder.runId, round);
  const launcher =
    ctx.checks.length > 0
      ? checkLauncher({
          worktree: integration.dir,
          tempDir: path.join(logDir, 'tmp'),
          mode: ctx.sandbox,
          network: ctx.checkNetwork,
          domains: ctx.checkRules.domains,
          sockets: ctx.checkRules.sockets,
          checkout: ctx.repo,
          // The linked folders too: their links may lead under the host's /tmp, which the private /tmp hides.
          readable: [ctx.repo, await commonGitDir(ctx.repo), ...linkedDirs],
        })
      : undefined;
  if (launcher && round === 1)
    ctx.say(
      launcher.sandbox !== 'none'
        ? `integration checks run in the ${launcher.sandbox} sandbox (network: ${ctx.checkNetwork}), without orca's credentials`
        : `integration checks run unsandboxed (${launcher.problem}), without orca's credentials`,
    );
  const evidence: CheckEvidence[] = [];
  for (const command of ctx.checks) {
    if (ctx.signal.aborted) break;
    const one = await refGuardedCheck(ctx.repo, () =>
      runCheck(CheckSpecSchema.parse(command), {
        cwd: integration.dir,
        logDir,
        env: { PORT: String(ports[0]), ORCA_PORTS: ports.join(',') },
        signal: ctx.signal,
        launcher,
      }),
    );
    evidence.push(one);
    await recorder.record(checkRunEvent(one, undefined, launcher?.sandbox ?? 'none'));
    ctx.say(
      `integration check \`${one.command}\`: exit ${one.exit_code ?? one.outcome}, ${one.counts.known ? `${one.counts.executed} test(s) executed` : 'tests not counted'}${one.outcome === 'tampered' ? `; ${checkFailure(one)}` : ''}`,
    );
  }
  return evidence;
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
  pass: { ok: boolean; reason: string };
}): Round {
  const { report, reported, evidence, gates, pass } = input;
  const failedChecks = evidence.filter((one) => one.outcome !== 'exited' || one.exit_code !== 0);
  const problems = failedChecks.map(
    (one) => `\`${one.command}\` failed on the merged tree (${checkFailure(one)}); its output is in ${one.log}`,
  );
  problems.push(
    ...reported.map(
      (p) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.what}${p.verified ? '' : ` (not confirmed on the merged tree: ${p.reason})`}`,
    ),
  );
  const base = { gates, evidence, problems, reported };
  if (!report)
    return {
      ...base,
      status: 'FAIL',
      detail: `the Verification agent did not report: ${input.result.end_reason} (${input.result.detail})`,
    };
  const unconfirmed = reported.filter((problem) => !problem.verified).length;
  const note = unconfirmed > 0 ? `; ${unconfirmed} reported problem(s) could not be confirmed on the merged tree` : '';
  if (failedChecks.length > 0)
    return { ...base, status: 'FAIL', detail: `integration checks failed: ${failedChecks.map(failedCheckName).join(', ')}${note}` };
  if (report.verdict === 'FAIL') return { ...base, status: 'FAIL', detail: `verification FAIL: ${problems.join('; ')}${note}` };
  if (!pass.ok) return { ...base, status: 'PARTIAL', detail: `not a pass: ${pass.reason}${note}` };
  if (report.verdict === 'PARTIAL') return { ...base, status: 'PARTIAL', detail: `verification PARTIAL${note}` };
  return { ...base, status: 'PASS', detail: `${pass.reason}; verification PASS${note}` };
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

async function fixRound(ctx: RunContext, round: number, problems: string[]): Promise<boolean> {
  const result = await ctx.jobs.run({
    taskId: `_fix-${round}`,
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
    await ctx.recorder.record({ type: 'merge', task_id: `_fix-${round}`, outcome: 'refused', files: [], detail: refused });
    ctx.say(`fix round ${round}: its branch was ${refused}`);
    return false;
  }
  const merged = await ctx.integration.merge(tip, `Merge fix round ${round}\n\norca run ${ctx.recorder.runId}`);
  if (merged.kind === 'conflict') return false;
  await ctx.recorder.record({
    type: 'merge',
    task_id: `_fix-${round}`,
    outcome: merged.kind === 'merged' ? 'merged' : 'nothing',
    commit: merged.commit,
    files: merged.kind === 'merged' ? merged.files : [],
  });
  return true;
}

/** A failed check in the run's detail: its command, and what it changed when that is why. */
function failedCheckName(one: CheckEvidence): string {
  return one.outcome === 'tampered' ? `${one.command} (${checkFailure(one)})` : one.command;
}

/** How a failed integration check failed, in a few words. */
function checkFailure(one: CheckEvidence): string {
  if (one.outcome === 'tampered') return `it changed refs it may not: ${(one.tampered ?? []).join('; ')}`;
  return one.outcome === 'exited' ? `exit ${one.exit_code}` : one.outcome;
}
