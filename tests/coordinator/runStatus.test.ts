import { describe, expect, it } from 'vitest';
import { runStatus } from '../../coordinator/run/runStatus.js';
import type { VerifyOutcome } from '../../coordinator/run/verifyPhase.js';
import type { TaskStatus } from '../../shared/core/events/runEvent.js';
import type { TaskRecord } from '../../shared/infra/board/runChange.js';

function task(id: string, status: TaskStatus): TaskRecord {
  return { task_id: id, status } as TaskRecord;
}

function verified(status: VerifyOutcome['status'], detail = `verification ${status}`): VerifyOutcome {
  return { status, detail, gates: [], verification: { verdict: status as 'PASS', checks: [], problems: [] } };
}

describe('the run status', () => {
  it('is PASS only when every subtask merged and the merged tree was verified', () => {
    expect(runStatus({ tasks: [task('a', 'merged'), task('b', 'merged')], verify: verified('PASS'), unchanged: false })).toEqual({
      status: 'PASS',
      detail: 'verification PASS',
    });
  });

  it('is PARTIAL when some merged and were verified but others failed or were blocked', () => {
    const result = runStatus({
      tasks: [task('a', 'merged'), task('b', 'failed'), task('c', 'blocked')],
      verify: verified('PASS'),
      unchanged: false,
    });
    expect(result).toEqual({ status: 'PARTIAL', detail: 'not on the result branch: b failed, c blocked; verification PASS' });
    // Every task merged, but verification itself was short of a pass.
    expect(runStatus({ tasks: [task('a', 'merged')], verify: verified('PARTIAL'), unchanged: false }).status).toBe('PARTIAL');
  });

  it('is FAIL when nothing was merged, whatever the tasks say and without any verification', () => {
    expect(runStatus({ tasks: [task('only', 'failed')], verify: undefined, unchanged: true })).toEqual({
      status: 'FAIL',
      detail: 'nothing was merged: the integration branch is still at the base (only failed); nothing was verified',
    });
    // Merged with no changes is still nothing merged: the base is all there is to verify.
    expect(runStatus({ tasks: [task('noop', 'merged')], verify: verified('PASS'), unchanged: true }).status).toBe('FAIL');
    // Verified work all taken off again (an unconfirmed change to the tests): nothing verified is on the branch.
    expect(runStatus({ tasks: [task('weak', 'failed')], verify: verified('PASS', 'verification PASS'), unchanged: true })).toEqual({
      status: 'FAIL',
      detail: 'nothing verified is on the integration branch: it is at the base (weak failed); verification PASS',
    });
  });

  it('is FAIL when verification failed or did not run, merged tasks or not', () => {
    expect(
      runStatus({ tasks: [task('a', 'merged')], verify: verified('FAIL', 'integration checks failed: npm test'), unchanged: false }),
    ).toEqual({
      status: 'FAIL',
      detail: "integration checks failed: npm test; the integration branch is back at the base, nothing of the run's is on it",
    });
    expect(runStatus({ tasks: [task('a', 'merged'), task('b', 'failed')], verify: verified('FAIL', 'x'), unchanged: false }).detail).toBe(
      "x; the integration branch is back at the base, nothing of the run's is on it (not merged: b failed)",
    );
    expect(runStatus({ tasks: [task('a', 'merged')], verify: undefined, unchanged: false }).status).toBe('FAIL');
  });

  it('is ABORTED when the run was aborted, before any other rule', () => {
    expect(runStatus({ tasks: [task('a', 'cancelled')], verify: undefined, unchanged: true, abortReason: 'interrupted' })).toEqual({
      status: 'ABORTED',
      detail: 'interrupted',
    });
  });
});
