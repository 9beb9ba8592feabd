import { loadShellParser } from '../shared/policy/permissions/shell/shellParser.js';

/**
 * Loads, once the worker takes jobs and while none is running, what its first job would
 * otherwise load on its way: the shell parser, which the first Bash call's permission check
 * needs (40–55 ms of a worker's CPU; in a run's first wave every worker's first Bash call falls
 * at the same moment, on the busiest cores). A job already running loads it itself.
 */
export function warmWhileIdle(worker: { readonly activeJobs: number }): void {
  setTimeout(() => {
    if (worker.activeJobs === 0) loadShellParser();
  }, 0).unref();
}
