import type { CheckEvidence } from '../../shared/infra/verify/evidence/evidence.js';
import { RefGuard } from '../../shared/policy/permissions/refGuard.js';

/**
 * Runs one integration check with the repository's refs guarded. The check runs agent-written
 * tests; in the sandbox the shared git folder is read-only to it, but without one (`--sandbox off`,
 * a host with no sandbox) it could move the user's branches or tags. Every ref of the user's that
 * moved, appeared or went while it ran is put back by value, and the check's outcome becomes
 * `tampered`, naming each: a check that moves refs does not pass. orca's own refs are the
 * coordinator's: the integration branch is checked by compare-and-swap (IntegrationBranch), and
 * a task's branch is merged by the commit its worker reported, never by where it points.
 */
export async function refGuardedCheck(repo: string, run: () => Promise<CheckEvidence>): Promise<CheckEvidence> {
  const guard = await RefGuard.open(repo);
  const evidence = await run();
  const moved = await guard.restore();
  if (moved.length === 0) return evidence;
  const tampered = moved.map(
    (ref) => `${ref.path} ${describeMove(ref.was, ref.now)}${ref.restored ? ', put back' : ', and could not be put back'}`,
  );
  return { ...evidence, outcome: 'tampered', tampered };
}

function describeMove(was: string | undefined, now: string | undefined): string {
  if (was === undefined) return `was created at ${short(now)}`;
  if (now === undefined) return `was deleted (it was ${short(was)})`;
  return `moved from ${short(was)} to ${short(now)}`;
}

function short(commit: string | undefined): string {
  return commit ? commit.slice(0, 12) : 'nothing';
}
