import path from 'node:path';
import { commonGitDir } from '../../shared/core/git/repoLock.js';
import { PortLeaser, portLeaseOwner } from '../../shared/infra/ports/portLease.js';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { checkLauncher } from '../../shared/infra/verify/checks/checkSandbox.js';
import { type CheckEvidence, CheckSpecSchema } from '../../shared/infra/verify/evidence/evidence.js';
import { checkRunEvent } from '../../shared/infra/verify/evidence/evidenceEvents.js';
import { treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { failedGatesText } from '../../shared/infra/verify/gates/gate.js';
import { gateMergedTree } from '../../shared/infra/verify/gates/integrationGates.js';
import { prepareIntegrationWorktree } from '../merge/integrationSetup.js';
import { refGuardedCheck } from './refGuardedCheck.js';
import type { RunContext } from './runContext.js';

/** What the integration checks made of the merged tree after one merge: whether it holds, and why not. */
export type TreeVerdict = { ok: true; detail: string } | { ok: false; detail: string };

/** The runs whose start line on the checks' sandbox was said (once a run). */
const said = new WeakSet<RunContext>();

/**
 * The integration checks on the merged tree as it is after a merge (`label` names the logs'
 * folder): every check must exit 0, and the gates that judge the merged tree alone (zero_tests,
 * stale, target) must pass. Gates that need the Verification agent's confirmation wait for it.
 */
export async function checkMergedTree(ctx: RunContext, label: string): Promise<TreeVerdict> {
  const linkedDirs = await prepareIntegrationWorktree(ctx);
  const { recorder, services, integration } = ctx;
  const lease = await new PortLeaser(services.redis, services.keys).lease(2, portLeaseOwner(recorder.runId, 'integration'));
  try {
    const evidence = await runIntegrationChecks(ctx, label, lease.ports, linkedDirs);
    const current = await treeSnapshot(integration.dir);
    const gates = await gateMergedTree(evidence, current, { worktree: integration.dir, leasedPorts: lease.ports });
    const problems = [...failedChecks(evidence).map(failureText), ...(failedGatesText(gates) ? [failedGatesText(gates)] : [])];
    if (problems.length > 0) return { ok: false, detail: `the integration checks failed on the merged tree: ${problems.join('; ')}` };
    return { ok: true, detail: `the integration checks passed on the merged tree (${evidence.map(countsText).join('; ')})` };
  } finally {
    await lease.release();
  }
}

/**
 * The host runs the integration checks itself on the merged tree, each recorded with its evidence.
 * The merged code, tests included, is agent-written: it runs in the sandbox an agent's Bash gets.
 */
export async function runIntegrationChecks(
  ctx: RunContext,
  round: number | string,
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
  if (launcher && !said.has(ctx)) {
    said.add(ctx);
    ctx.say(
      launcher.sandbox !== 'none'
        ? `integration checks run in the ${launcher.sandbox} sandbox (network: ${ctx.checkNetwork}), without orca's credentials`
        : `integration checks run unsandboxed (${launcher.problem}), without orca's credentials`,
    );
  }
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
    ctx.say(`integration check \`${one.command}\`: ${outcomeText(one)}, ${countsText(one)}`);
  }
  return evidence;
}

/** The checks that did not exit 0. */
export function failedChecks(evidence: readonly CheckEvidence[]): CheckEvidence[] {
  return evidence.filter((one) => one.outcome !== 'exited' || one.exit_code !== 0);
}

/** `` `npm test` timed out after 600 s (its output: LOG) ``: how a failed check failed, as the reason says it. */
export function failureText(one: CheckEvidence): string {
  return `\`${one.command}\` ${outcomeText(one)} (its output: ${one.log})`;
}

/** How a check ended, in words: `exit 1`, `timed out after 600 s and was stopped with its process group`, … */
export function outcomeText(one: CheckEvidence): string {
  const seconds = Math.round(one.duration_ms / 1000);
  switch (one.outcome) {
    case 'exited':
      return `exit ${one.exit_code}`;
    case 'timed_out':
      return `timed out after ${seconds} s and was stopped with its whole process group`;
    case 'killed':
      return `killed by ${one.signal ?? 'a signal'} after ${seconds} s`;
    case 'tampered':
      return `exit ${one.exit_code}, but it changed refs it may not: ${(one.tampered ?? []).join('; ')}`;
    default:
      return one.outcome.replace('_', ' ');
  }
}

function countsText(one: CheckEvidence): string {
  return one.counts.known ? `${one.counts.executed} test(s) executed` : 'tests not counted';
}
