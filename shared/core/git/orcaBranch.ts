import { isSlug } from './slug.js';

/**
 * The names orca gives things in a repository, made and read back here only: a task's branch
 * `orca/<run>/<task>`, a coordinator run's result `orca/<run>/integration`, and the ref a failed
 * or aborted agent's uncommitted changes are saved under, `refs/orca/wip/<run>/<task>` (a ref
 * outside refs/heads, so it never shows in `git branch`). A run shared over git (`--share`) names
 * its commits on the shared remote under `refs/orca/<run>/`: each task's pushed branch as
 * `refs/orca/<run>/<task>`, and the integration head, which every job's base is at some moment
 * (the run's base first), as `refs/orca/<run>/integration`.
 */

/** Where orca's branches live, under refs/heads. */
export const ORCA_BRANCHES = 'refs/heads/orca/';

/** Where saved work in progress lives. */
export const WIP_REFS = 'refs/orca/wip/';

/** The task id of a coordinator run's integration branch: no plan subtask may take it. */
export const INTEGRATION_TASK = 'integration';

export function orcaBranch(runId: string, taskId: string): string {
  return `orca/${runId}/${taskId}`;
}

export function integrationBranch(runId: string): string {
  return orcaBranch(runId, INTEGRATION_TASK);
}

/** The run and task of an orca branch (`orca/<run>/<task>`, with or without `refs/heads/`); undefined for any other name. */
export function parseOrcaBranch(name: string): { runId: string; taskId: string } | undefined {
  return parseParts(name.startsWith('refs/heads/') ? name.slice('refs/heads/'.length) : name, 'orca/');
}

/** Every orca branch of one run, as a for-each-ref pattern. */
export function runBranches(runId: string): string {
  return `${ORCA_BRANCHES}${runId}/`;
}

export function wipRef(runId: string, taskId: string): string {
  return `${WIP_REFS}${runId}/${taskId}`;
}

/** The run and task of a work-in-progress ref; undefined for any other ref. */
export function parseWipRef(ref: string): { runId: string; taskId: string } | undefined {
  return parseParts(ref, WIP_REFS);
}

/** Every work-in-progress ref of one run, as a for-each-ref pattern. */
export function runWipRefs(runId: string): string {
  return `${WIP_REFS}${runId}/`;
}

function parseParts(name: string, prefix: string): { runId: string; taskId: string } | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const parts = name.slice(prefix.length).split('/');
  if (parts.length !== 2) return undefined;
  const [runId, taskId] = parts as [string, string];
  return isSlug(runId) && isSlug(taskId) ? { runId, taskId } : undefined;
}

/** A run's name for one of its commits on a shared remote: `refs/orca/<run>/<name>` (a task id, or `integration`). */
export function sharedRef(runId: string, name: string): string {
  return `refs/orca/${runId}/${name}`;
}

/** Every ref of one run on a shared remote, as a refspec pattern's source (`refs/orca/<run>/*`). */
export function sharedRunRefs(runId: string): string {
  return `refs/orca/${runId}/*`;
}
