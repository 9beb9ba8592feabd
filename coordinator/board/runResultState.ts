import { existsSync } from 'node:fs';
import { gitAt } from '../../shared/core/git/git.js';
import { mergedInto } from '../../shared/core/git/reachability.js';
import type { RunBoard } from '../../shared/infra/board/readBoard.js';

/**
 * Where an ended run's result stands in its repository now, as git says (not Redis): the board
 * and `orca status` show it, so a result nobody merged yet is seen.
 * - `not_merged`: the integration branch holds commits no other branch (nor a remote-tracking ref) has;
 * - `merged`: another branch or a remote-tracking ref holds its tip (`merged_into` names them);
 * - `no_changes`: the branch is still at the run's base;
 * - `removed`: the branch is gone (merged and cleaned, or removed with `orca clean --results`);
 * - `unknown`: the repository is not on this host.
 */
export interface RunResultState {
  branch: string;
  state: 'not_merged' | 'merged' | 'no_changes' | 'removed' | 'unknown';
  head?: string;
  merged_into: string[];
}

export type BoardWithResult = RunBoard & { result?: RunResultState };

/** The board with its run's result, for an `orca run` run that has ended. */
export async function withResultState(board: RunBoard): Promise<BoardWithResult> {
  const { run } = board;
  if (run.kind !== 'run' || !run.integration_branch || !run.repo || !run.status || run.status === 'running') return board;
  return { ...board, result: await resultState(run.repo, run.integration_branch, run.base) };
}

async function resultState(repo: string, branch: string, base: string | undefined): Promise<RunResultState> {
  if (!existsSync(repo)) return { branch, state: 'unknown', merged_into: [] };
  const head = (await gitAt(repo).raw(['for-each-ref', '--format=%(objectname)', `refs/heads/${branch}`])).trim();
  if (!head) return { branch, state: 'removed', merged_into: [] };
  if (head === base) return { branch, state: 'no_changes', head, merged_into: [] };
  const holders = await mergedInto(repo, head);
  return { branch, state: holders.length > 0 ? 'merged' : 'not_merged', head, merged_into: holders };
}
