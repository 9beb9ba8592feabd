import type { RunStatus } from '../../shared/core/events/runEvent.js';
import { runGit } from '../../shared/core/git/git.js';

export interface PushRequest {
  repo: string;
  /** A remote's name or URL (a local bare repository's path included). */
  remote: string;
  /** The branch to create or update on the remote; default the integration branch's own name. */
  branch?: string;
  /** Push a PARTIAL run too (`--push-partial`). */
  partial: boolean;
}

export type PushOutcome =
  | { pushed: true; remote: string; branch: string; commit: string }
  | { pushed: false; remote: string; branch: string; reason: string };

/**
 * `orca run --push`: the integration branch's head pushed to the remote when the run is PASS
 * (PARTIAL too with `--push-partial`). Never forced: a branch the remote already has moves only
 * forward. Refused or failed, the outcome says why.
 */
export async function pushIntegration(
  request: PushRequest,
  run: { status: RunStatus; head: string; integration_branch: string; base: string },
): Promise<PushOutcome> {
  const branch = request.branch ?? run.integration_branch;
  const refused = (reason: string): PushOutcome => ({ pushed: false, remote: request.remote, branch, reason });
  if (!(run.status === 'PASS' || (run.status === 'PARTIAL' && request.partial))) {
    const rule = run.status === 'PARTIAL' ? 'pass --push-partial to push a PARTIAL run' : '--push pushes a PASS run only';
    return refused(`the run is ${run.status}: nothing was pushed (${rule})`);
  }
  if (run.head === run.base) return refused('the integration branch is still at the base: there is nothing to push');
  const pushed = await runGit(request.repo, ['push', '--quiet', '--porcelain', request.remote, `${run.head}:refs/heads/${branch}`]);
  if (pushed.code !== 0)
    return refused(`git push to ${request.remote} failed: ${(pushed.stderr || pushed.stdout).trim().replace(/\s*\n\s*/g, '; ')}`);
  return { pushed: true, remote: request.remote, branch, commit: run.head };
}
