import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESOLVE_ATTEMPTS } from '../../coordinator/merge/conflictResolution.js';
import { IntegrationBranch } from '../../coordinator/merge/integration.js';
import { Landing } from '../../coordinator/merge/landing.js';
import { finishOrder, type MergeOrder, type WaitingMerge } from '../../coordinator/merge/mergeOrder.js';
import { type ConflictResolver, MergeQueue } from '../../coordinator/merge/mergeQueue.js';
import type { TaskBranch } from '../../coordinator/merge/taskBranch.js';
import { RunRecorder } from '../../coordinator/run/runRecorder.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { testRedis } from '../support/redis.js';
import { tempDir } from '../support/tempDir.js';

const RUN = 'r';

/** A repository whose tasks each committed their files on a branch of their own, from the same base. */
async function mergeRoom(tasks: Record<string, { owns: string; writes: Record<string, string> }>) {
  const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
  const base = git(repo, 'rev-parse', 'HEAD');
  const branches: Record<string, TaskBranch> = {};
  for (const [id, { writes }] of Object.entries(tasks)) {
    // A task that changed no files left no branch.
    if (Object.keys(writes).length === 0) {
      branches[id] = { base };
      continue;
    }
    git(repo, 'checkout', '-q', '-b', `orca/${RUN}/${id}`, base);
    branches[id] = { base, branch: `orca/${RUN}/${id}`, commit: commitFiles(repo, writes, id) };
  }
  git(repo, 'checkout', '-q', 'main');
  const integration = new IntegrationBranch(repo, RUN, path.join(tempDir(), 'integration'));
  await integration.open(base);
  const { redis, keys } = testRedis();
  const recorder = new RunRecorder(redis, keys, RUN);
  for (const [id, { owns }] of Object.entries(tasks)) {
    await recorder.record({
      type: 'task_created',
      task_id: id,
      role: 'worker',
      title: `task ${id}`,
      depends_on: [],
      paths: [owns],
      checks: [],
    });
    await recorder.record({ type: 'task_state', task_id: id, status: 'completed', attempt: 1 });
  }
  const said: string[] = [];
  const room = { recorder, integration, signal: new AbortController().signal, say: (line: string) => said.push(line) };
  // No integration checks here (landing.test.ts has them): a merge lands as merged.
  const landing = new Landing({ ...room, base }, base, undefined);
  const task = (id: string) => recorder.state.tasks.get(id)!;
  /** The merges on the integration branch, oldest first, by their messages' first lines. */
  const merged = () => git(repo, 'log', '--first-parent', '--reverse', '--format=%s', `${base}..${integration.branch}`).split('\n');
  const mergeEvents = async () =>
    (await readRunEvents(redis, keys, RUN)).flatMap(({ entry }) =>
      entry.event.type === 'merge' ? [`${entry.event.task_id} ${entry.event.outcome}`] : [],
    );
  return { repo, base, branches, integration, recorder, room, landing, said, task, merged, mergeEvents };
}

/** A resolver that redoes a task with git, on the head the queue gives (what a conflict worker's branch holds). */
function redoWith(repo: string, files: Record<string, string>, rounds: number[]): ConflictResolver {
  return async (task, _files, round, head) => {
    rounds.push(round);
    const branch = `orca/${RUN}/_resolve-${task.task_id}-${round}`;
    git(repo, 'checkout', '-q', '-b', branch, head);
    const commit = commitFiles(repo, files, `redo ${task.task_id}`);
    git(repo, 'checkout', '-q', 'main');
    return { base: head, branch, commit };
  };
}

const noConflictExpected: ConflictResolver = async (task) => {
  throw new Error(`${task.task_id} conflicted, which this test does not expect`);
};

describe('the merge order', () => {
  it('is finish order by default: the branch that finished first merges first', () => {
    const waiting = [3, 1, 2].map((finished) => ({ finished, redone: 0 }) as WaitingMerge);
    expect(finishOrder(waiting).map((one) => one.finished)).toEqual([1, 2, 3]);
    expect(waiting.map((one) => one.finished)).toEqual([3, 1, 2]);
  });
});

describe('the merge queue', () => {
  const twoTasks = { t1: { owns: 'a.txt', writes: { 'a.txt': 'a from t1\n' } }, t2: { owns: 'b.txt', writes: { 'b.txt': 'b from t2\n' } } };

  it('merges finished branches one at a time, in the order they finished', async () => {
    const room = await mergeRoom(twoTasks);
    const queue = new MergeQueue(room.room, noConflictExpected, room.landing);
    await Promise.all([queue.merge(room.task('t2'), room.branches.t2!), queue.merge(room.task('t1'), room.branches.t1!)]);
    expect(room.merged()).toEqual(['Merge t2: task t2', 'Merge t1: task t1']);
    expect(await room.mergeEvents()).toEqual(['t2 merged', 't1 merged']);
    expect([room.task('t1').status, room.task('t2').status]).toEqual(['merged', 'merged']);
    expect(room.task('t1').status_detail).toMatch(
      /^merged into the integration branch as [0-9a-f]{12}; no integration checks are set, so nothing verifies it$/,
    );
    expect(room.said).toEqual(['t2 merged', 't1 merged']);
    await room.integration.close();
  });

  it('merges in the order a custom order function gives', async () => {
    const room = await mergeRoom(twoTasks);
    const latestFirst: MergeOrder = (waiting) => [...waiting].sort((a, b) => b.finished - a.finished);
    const queue = new MergeQueue(room.room, noConflictExpected, room.landing, latestFirst);
    await Promise.all([queue.merge(room.task('t2'), room.branches.t2!), queue.merge(room.task('t1'), room.branches.t1!)]);
    expect(room.merged()).toEqual(['Merge t1: task t1', 'Merge t2: task t2']);
    expect(await room.mergeEvents()).toEqual(['t1 merged', 't2 merged']);
    await room.integration.close();
  });

  /** Integration checks that fail while the integration head's `file` reads `failing`, each asked with its label recorded. */
  function checksFailingOn(room: Awaited<ReturnType<typeof mergeRoom>>, file: string, failing: string) {
    const labels: string[] = [];
    const check = async (label: string) => {
      labels.push(label);
      const now = git(room.repo, 'show', `${await room.integration.head()}:${file}`);
      return now === failing ? { ok: false, detail: `${file} is broken` } : { ok: true, detail: 'checks passed' };
    };
    return { labels, landing: new Landing({ ...room.room, base: room.base }, room.base, check) };
  }

  const threeTasks = {
    ...twoTasks,
    t3: { owns: 'c.txt', writes: { 'c.txt': 'c from t3\n' } },
  };

  it('checks the branches handed in together once, on the tree their merges make, and counts each verified', async () => {
    const room = await mergeRoom(threeTasks);
    const { labels, landing } = checksFailingOn(room, 'a.txt', 'never');
    const queue = new MergeQueue(room.room, noConflictExpected, landing);
    await Promise.all(['t1', 't2', 't3'].map((id) => queue.merge(room.task(id), room.branches[id]!)));
    expect(labels).toEqual(['merge-t1+2']);
    // One merge commit a task all the same, in finish order.
    expect(room.merged()).toEqual(['Merge t1: task t1', 'Merge t2: task t2', 'Merge t3: task t3']);
    expect(await room.mergeEvents()).toEqual(['t1 merged', 't2 merged', 't3 merged']);
    for (const id of ['t1', 't2', 't3']) expect(room.task(id).status).toBe('verified');
    expect(room.task('t2').status_detail).toMatch(
      /^merged into the integration branch as [0-9a-f]{12} and verified: checks passed \(checked together with the merges of t1, t3\)$/,
    );
    expect(room.said).toEqual(['t1 merged and verified', 't2 merged and verified', 't3 merged and verified']);
    // The verified head is the step's last merge.
    expect(room.task('t3').merge_commit).toBe(await room.integration.head());
    await room.integration.close();
  });

  it('merges again in halves, each checked, the branches that failed the checks together, down to the one that fails: only it is taken off', async () => {
    const room = await mergeRoom(threeTasks);
    const { labels, landing } = checksFailingOn(room, 'b.txt', 'b from t2');
    const queue = new MergeQueue(room.room, noConflictExpected, landing);
    await Promise.all(['t1', 't2', 't3'].map((id) => queue.merge(room.task(id), room.branches[id]!)));
    // Together (fail), t1 and t2 (fail), t1 alone (pass), t2 alone (fail), then the second half, t3 (pass).
    expect(labels).toEqual(['merge-t1+2', 'merge-t1+1', 'merge-t1', 'merge-t2', 'merge-t3']);
    expect(room.task('t2')).toMatchObject({ status: 'failed', merge_outcome: 'rolled_back' });
    expect(room.task('t2').status_detail).toMatch(/b\.txt is broken; its work stays on orca\/r\/t2/);
    expect([room.task('t1').status, room.task('t3').status]).toEqual(['verified', 'verified']);
    // The merges made together never show: each task's merge is the one checked alone.
    expect(await room.mergeEvents()).toEqual(['t1 merged', 't2 rolled_back', 't3 merged']);
    expect(room.merged()).toEqual(['Merge t1: task t1', 'Merge t3: task t3']);
    expect(git(room.repo, 'show', `${room.integration.branch}:b.txt`)).toBe('b');
    expect(room.said.slice(0, 2)).toEqual([
      't1, t2, t3 failed the integration checks merged together (b.txt is broken): merged again in two halves, each checked on its own',
      't1, t2 failed the integration checks merged together (b.txt is broken): merged again in two halves, each checked on its own',
    ]);
    await room.integration.close();
  });

  it('merges alone, once the merge before it is judged, a branch with nothing to merge after a merge of its step not yet checked', async () => {
    // t2 makes t1's change: after t1's merge it has nothing to merge, which says nothing once t1's is taken off.
    const room = await mergeRoom({
      t1: { owns: 'a.txt', writes: { 'a.txt': 'a, broken\n' } },
      t2: { owns: 'a.txt', writes: { 'a.txt': 'a, broken\n' } },
    });
    const { labels, landing } = checksFailingOn(room, 'a.txt', 'a, broken');
    const queue = new MergeQueue(room.room, noConflictExpected, landing);
    await Promise.all(['t1', 't2'].map((id) => queue.merge(room.task(id), room.branches[id]!)));
    expect(labels).toEqual(['merge-t1', 'merge-t2']);
    expect(await room.mergeEvents()).toEqual(['t1 rolled_back', 't2 rolled_back']);
    expect([room.task('t1').status, room.task('t2').status]).toEqual(['failed', 'failed']);
    expect(await room.integration.head()).toBe(room.base);
    await room.integration.close();
  });

  it('keeps a held merge on the branch, still held, when the merges after it fail the checks together', async () => {
    const room = await mergeRoom(threeTasks);
    const { labels, landing } = checksFailingOn(room, 'b.txt', 'b from t2');
    const mergeOf = async (id: string) => {
      const outcome = await room.integration.merge(room.branches[id]!.commit!, `Merge ${id}: task ${id}`);
      if (outcome.kind !== 'merged') throw new Error(`${id} did not merge: ${outcome.kind}`);
      return {
        merge: { taskId: id, branch: room.branches[id]!.branch, commit: room.branches[id]!.commit, checkedAlone: true, resolved: false },
        outcome,
      };
    };
    // t2 cannot be checked alone, and the checks fail with it (b.txt): held, on the branch.
    const t2 = await mergeOf('t2');
    await landing.land({ ...t2.merge, checkedAlone: false }, t2.outcome);
    expect(room.task('t2').status).toBe('merged');
    const t1 = await mergeOf('t1');
    const t3 = await mergeOf('t3');
    expect(await landing.landTogether([t1, t3])).toBe(false);
    expect(labels).toEqual(['merge-t2', 'merge-t1+1']);
    // Back to the held merge, not past it: t2's work is still on the branch, and still held.
    expect(await room.integration.head()).toBe(t2.outcome.commit);
    expect(room.task('t2').status).toBe('merged');
    await room.integration.close();
  });

  it('fails every waiting branch, saying why, when the order function returns none of them', async () => {
    const room = await mergeRoom(twoTasks);
    const queue = new MergeQueue(room.room, noConflictExpected, room.landing, () => []);
    const outcomes = await Promise.allSettled([
      queue.merge(room.task('t1'), room.branches.t1!),
      queue.merge(room.task('t2'), room.branches.t2!),
    ]);
    expect(outcomes.map((one) => one.status === 'rejected' && String(one.reason))).toEqual([
      'Error: the merge order returned no waiting branch: it must return the branches it is given, reordered',
      'Error: the merge order returned no waiting branch: it must return the branches it is given, reordered',
    ]);
    expect(room.merged()).toEqual(['']);
    await room.integration.close();
  });

  it('has a conflicting task redone on the integration head, and merges the redone branch as resolved', async () => {
    const room = await mergeRoom({
      t1: { owns: 'a.txt', writes: { 'a.txt': 'a from t1\n' } },
      t3: { owns: 'a.txt', writes: { 'a.txt': 'a from t3\n' } },
    });
    const rounds: number[] = [];
    const queue = new MergeQueue(room.room, redoWith(room.repo, { 'a.txt': 'a from t1\nand from t3\n' }, rounds), room.landing);
    await Promise.all([queue.merge(room.task('t1'), room.branches.t1!), queue.merge(room.task('t3'), room.branches.t3!)]);
    expect(rounds).toEqual([1]);
    expect(await room.mergeEvents()).toEqual(['t1 merged', 't3 conflict', 't3 resolved']);
    expect(room.merged()).toEqual(['Merge t1: task t1', 'Merge t3 (redone on the integration head): task t3']);
    expect(git(await room.integration.checkedOut(), 'show', 'HEAD:a.txt')).toBe('a from t1\nand from t3');
    expect(room.task('t3')).toMatchObject({ status: 'merged', merge_outcome: 'resolved' });
    expect(room.task('t3').status_detail).toMatch(/, redone on the integration head after a merge conflict; no integration checks are set/);
    expect(room.said).toEqual([
      't1 merged',
      't3 conflicts in a.txt: a worker redoes it on the integration head (attempt 1)',
      't3 merged (after resolving a conflict)',
    ]);
    await room.integration.close();
  });

  it('has a conflict redone from the head it conflicted with, not from a later merge whose checks then take it off', async () => {
    const room = await mergeRoom({
      t1: { owns: 'a.txt', writes: { 'a.txt': 'a from t1\n' } },
      t3: { owns: 'a.txt', writes: { 'a.txt': 'a from t3\n' } },
      t2: { owns: 'b.txt', writes: { 'b.txt': 'b from t2\n' } },
    });
    let t2Checking = () => {};
    const checkingT2 = new Promise<void>((resolve) => (t2Checking = resolve));
    // t2's work fails the integration checks: it is on the branch only while they run. Handed in
    // together, the three merge in one step; failing together, each merges again alone.
    const check = async (label: string) => {
      if (label === 'merge-t2') t2Checking();
      const b = git(room.repo, 'show', `${await room.integration.head()}:b.txt`);
      return b === 'b from t2' ? { ok: false, detail: 'the checks failed' } : { ok: true, detail: 'checks passed' };
    };
    const landing = new Landing({ ...room.room, base: room.base }, room.base, check);
    const given: string[] = [];
    const headsWhenRedone: string[] = [];
    const redo: ConflictResolver = async (task, files, round, head) => {
      given.push(head);
      // The worker starts only once t2 has merged and its checks are running (a slow job start).
      await checkingT2;
      headsWhenRedone.push(await room.integration.head());
      return redoWith(room.repo, { 'a.txt': 'a from t1\nand from t3\n' }, [])(task, files, round, head);
    };
    const queue = new MergeQueue(room.room, redo, landing);
    await Promise.all([
      queue.merge(room.task('t1'), room.branches.t1!),
      queue.merge(room.task('t3'), room.branches.t3!),
      queue.merge(room.task('t2'), room.branches.t2!),
    ]);
    const t1Merge = room.task('t1').merge_commit;
    expect(given).toEqual([t1Merge]);
    // Read late, the head would have been t2's merge, which its checks then took off.
    expect(headsWhenRedone).not.toEqual(given);
    expect(room.task('t2')).toMatchObject({ status: 'failed', merge_outcome: 'rolled_back' });
    expect(room.task('t3')).toMatchObject({ status: 'verified', merge_outcome: 'resolved' });
    expect(git(await room.integration.checkedOut(), 'show', 'HEAD:b.txt')).toBe('b');
    expect(git(await room.integration.checkedOut(), 'show', 'HEAD:a.txt')).toBe('a from t1\nand from t3');
    await room.integration.close();
  });

  it(`fails a task whose conflict is still there after ${RESOLVE_ATTEMPTS} redos, keeping its own branch`, async () => {
    const room = await mergeRoom({
      t1: { owns: 'a.txt', writes: { 'a.txt': 'a from t1\n' } },
      t3: { owns: 'a.txt', writes: { 'a.txt': 'a from t3\n' } },
    });
    const rounds: number[] = [];
    // Each redo starts from the base again, so it conflicts with t1 again.
    const redoOnBase: ConflictResolver = async (task, _files, round) => {
      rounds.push(round);
      const branch = `orca/${RUN}/_resolve-${task.task_id}-${round}`;
      git(room.repo, 'checkout', '-q', '-b', branch, room.base);
      const commit = commitFiles(room.repo, { 'a.txt': `a from t3, round ${round}\n` }, `redo ${round}`);
      git(room.repo, 'checkout', '-q', 'main');
      return { base: room.base, branch, commit };
    };
    const queue = new MergeQueue(room.room, redoOnBase, room.landing);
    await Promise.all([queue.merge(room.task('t1'), room.branches.t1!), queue.merge(room.task('t3'), room.branches.t3!)]);
    expect(rounds).toEqual([1, 2]);
    expect(await room.mergeEvents()).toEqual(['t1 merged', 't3 conflict', 't3 conflict', 't3 failed']);
    expect(room.task('t3')).toMatchObject({
      status: 'failed',
      status_detail: `merge conflict in a.txt not resolved after ${RESOLVE_ATTEMPTS} attempt(s); its branch orca/r/t3 is kept`,
    });
    expect(room.merged()).toEqual(['Merge t1: task t1']);
    await room.integration.close();
  });

  it('fails a conflicting task at once when no worker could redo it', async () => {
    const room = await mergeRoom({
      t1: { owns: 'a.txt', writes: { 'a.txt': 'a from t1\n' } },
      t3: { owns: 'a.txt', writes: { 'a.txt': 'a from t3\n' } },
    });
    const queue = new MergeQueue(room.room, async () => undefined, room.landing);
    await Promise.all([queue.merge(room.task('t1'), room.branches.t1!), queue.merge(room.task('t3'), room.branches.t3!)]);
    expect(await room.mergeEvents()).toEqual(['t1 merged', 't3 conflict', 't3 failed']);
    expect(room.said.at(-1)).toBe('t3 failed: unresolved conflict in a.txt');
    await room.integration.close();
  });

  it('refuses a branch that touches a path its task does not own, and records a task that changed nothing', async () => {
    const room = await mergeRoom({
      t4: { owns: 'c.txt', writes: { 'b.txt': 'b from t4\n' } },
      t5: { owns: 'c.txt', writes: {} },
    });
    const queue = new MergeQueue(room.room, noConflictExpected, room.landing);
    await queue.merge(room.task('t4'), room.branches.t4!);
    await queue.merge(room.task('t5'), room.branches.t5!);
    expect(await room.mergeEvents()).toEqual(['t4 refused', 't5 nothing']);
    expect(room.task('t4').status).toBe('failed');
    expect(room.task('t4').status_detail).toMatch(/^its branch orca\/r\/t4 was not merged: the branch touches b\.txt/);
    expect(room.task('t5')).toMatchObject({ status: 'merged', status_detail: 'no changes to merge' });
    expect(room.merged()).toEqual(['']);
    await room.integration.close();
  });
});
