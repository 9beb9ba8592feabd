import { publishAbort } from '../shared/infra/queue/runAbort.js';
import { BoardSource } from './board/boardSource.js';
import { UserError } from './repoCheck.js';
import { coordinatorAlive } from './run/coordinatorPulse.js';
import { endOrphanedRun } from './run/orphanedRun.js';

/** Whether a run's board state says it goes on: a coordinator run until its `run_end`, an agent run until its agent ends. */
function goesOn(state: string): boolean {
  return state === 'running' || state === 'starting';
}

/**
 * `orca abort RUN`: published for the run's coordinator and workers wherever they are. A run
 * Redis does not know, or one that has ended, is the user's error (exit 2): an abort nobody will
 * read would otherwise stay in the aborted set for ever.
 */
export async function abortCommand(run: string): Promise<number> {
  const source = await BoardSource.open({ run });
  try {
    const { run: state, tasks } = await source.board(await source.runId(run));
    if (!goesOn(state.state)) throw new UserError(`run ${run} has already ended (${state.state}): there is nothing to abort.`);
    await publishAbort(source.redis, source.keys, run, 'orca abort');
    process.stdout.write(`orca: abort of run ${run} published\n`);
    // An `orca agent` says it is alive the same way: one that is gone leaves its run to be ended here.
    if (startedByCommand(state.kind, tasks) && !(await coordinatorAlive(source.redis, source.keys, run))) {
      const reason = `orca abort (its ${state.kind === 'run' ? 'coordinator' : 'orca agent command'} was not running)`;
      const removed = await endOrphanedRun(source.redis, source.keys, { runId: run, reason, usage: state.usage, costUsd: state.cost_usd });
      process.stdout.write(
        `orca: run ${run} had no ${state.kind === 'run' ? 'coordinator' : 'orca agent command'}: ended ABORTED here, ${removed} job(s) no worker held removed (orca clean takes what it left)\n`,
      );
    }
    return 0;
  } finally {
    source.close();
  }
}

/**
 * Whether an orca command stands behind the run, saying it is alive while it lasts: a run's
 * coordinator, or the `orca agent` that recorded its task queued. Jobs another client queued
 * itself (a script on the queue, a test) have none: their client waits for their results, and
 * their workers end them on the abort.
 */
function startedByCommand(kind: string, tasks: ReadonlyArray<{ queued_at?: number }>): boolean {
  return kind === 'run' || tasks.some((task) => task.queued_at !== undefined);
}

/**
 * `orca approve RUN` / `orca reject RUN`: only a run that waits for approval (started with
 * --approve, its plan made) can take one; any other run is the user's error (exit 2).
 */
export async function approvalCommand(run: string, approved: boolean): Promise<number> {
  const verb = approved ? 'approve' : 'reject';
  const source = await BoardSource.open({ run });
  try {
    const { run: state } = await source.board(await source.runId(run));
    if (!goesOn(state.state)) throw new UserError(`run ${run} has already ended (${state.state}): there is no plan to ${verb}.`);
    if (state.phase !== 'awaiting_approval')
      throw new UserError(
        `run ${run} is not waiting for approval (it is ${state.phase ?? 'starting'}): only a run started with --approve, its plan made, can be ${verb}d.`,
      );
    const { appendRunEvent } = await import('../shared/infra/board/runEvents.js');
    await appendRunEvent(source.redis, source.keys, {
      run_id: run,
      source: 'run',
      event: { type: 'approval', at: Date.now(), approved, by: `orca ${verb}` },
    });
    process.stdout.write(`orca: run ${run} ${approved ? 'approved' : 'rejected'}\n`);
    return 0;
  } finally {
    source.close();
  }
}
