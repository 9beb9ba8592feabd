import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { defaultOrcaHome } from './defaultOrcaHome.js';

/**
 * Where orca keeps its own files, outside any user repository: worktrees, read-only views,
 * pools of ready worktrees, clones of remotes, transcripts and spilled tool results, and the record of the runs made here.
 * `ORCA_HOME`, default a folder with no dot-folder in its path (defaultOrcaHome.ts).
 */
export class OrcaHome {
  readonly root: string;

  constructor(root = process.env.ORCA_HOME || defaultOrcaHome()) {
    this.root = path.resolve(root);
  }

  /** Creates the folder if needed and fails with one clear line when it cannot be written. */
  ensureWritable(): this {
    try {
      mkdirSync(this.root, { recursive: true });
      accessSync(this.root, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new Error(`ORCA_HOME ${this.root} is not writable (${code}): set ORCA_HOME to a folder you can write.`);
    }
    return this;
  }

  /** Task worktrees, one folder per run (`<run>/<task>`, and the run's integration worktree). */
  worktreesRoot(): string {
    return path.join(this.root, 'worktrees');
  }

  worktree(runId: string, taskId: string): string {
    return path.join(this.runWorktrees(runId), taskId);
  }

  /**
   * The coordinator's checkout of a run's integration branch, beside the run's task worktrees:
   * `_integration`, which no plan subtask id can be (they start with a letter or digit), and no
   * dot-folder (a project's tests may refuse a path with one).
   */
  integrationWorktree(runId: string): string {
    return path.join(this.runWorktrees(runId), '_integration');
  }

  runWorktrees(runId: string): string {
    return path.join(this.worktreesRoot(), runId);
  }

  /** Read-only views, one folder per run (`<run>/<repoKey>/<commit>`): a view belongs to the run that made it. */
  viewsRoot(): string {
    return path.join(this.root, 'views');
  }

  runViews(runId: string): string {
    return path.join(this.viewsRoot(), runId);
  }

  /** A detached, read-only checkout of one commit, shared by the run's read-only agents that need it. */
  view(runId: string, repoKey: string, commit: string): string {
    return path.join(this.runViews(runId), repoKey, commit);
  }

  /**
   * Pools of ready worktrees, one folder per run (`<run>/<repoKey>/<id>`): detached checkouts a
   * job of the run takes instead of adding one (git/worktreePool.ts); they go when the run ends.
   */
  poolsRoot(): string {
    return path.join(this.root, 'pool');
  }

  runPools(runId: string): string {
    return path.join(this.poolsRoot(), runId);
  }

  pool(runId: string, repoKey: string): string {
    return path.join(this.runPools(runId), repoKey);
  }

  /** This host's clones of remotes, one folder per remote. */
  clonesRoot(): string {
    return path.join(this.root, 'repos');
  }

  clone(remoteKey: string): string {
    return path.join(this.clonesRoot(), remoteKey);
  }

  /**
   * The record of each run made with this ORCA_HOME (`<run>.json`): which installation made it
   * (the Redis prefix beside this folder) and in which repository, so `orca clean` touches its
   * own runs only.
   */
  runsRoot(): string {
    return path.join(this.root, 'runs');
  }

  runRecord(runId: string): string {
    return path.join(this.runsRoot(), `${runId}.json`);
  }

  /** Agents' session folders (transcripts, spilled tool results), one folder per run. */
  sessionsRoot(): string {
    return path.join(this.root, 'sessions');
  }

  session(runId: string, taskId: string, attempt: string): string {
    return path.join(this.runSessions(runId), `${taskId}.${attempt}`);
  }

  /** The logs of one round of a run's integration checks (a verification round, or `merge-<task>`), beside its agents' sessions. */
  integrationCheckLogs(runId: string, round: number | string): string {
    return path.join(this.runSessions(runId), `integration-checks-${round}`);
  }

  runSessions(runId: string): string {
    return path.join(this.sessionsRoot(), runId);
  }
}
