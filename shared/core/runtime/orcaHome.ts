import { accessSync, constants, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where orca keeps its own files, outside any user repository: worktrees, read-only views,
 * clones of remotes, transcripts and spilled tool results. `ORCA_HOME`, default `~/.orca`.
 */
export class OrcaHome {
  readonly root: string;

  constructor(root = process.env.ORCA_HOME || path.join(os.homedir(), '.orca')) {
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

  worktree(runId: string, taskId: string): string {
    return path.join(this.root, 'worktrees', runId, taskId);
  }

  runWorktrees(runId: string): string {
    return path.join(this.root, 'worktrees', runId);
  }

  /** A detached, read-only checkout of one commit, shared by the read-only agents that need it. */
  view(repoKey: string, commit: string): string {
    return path.join(this.root, 'views', repoKey, commit);
  }

  clone(remoteKey: string): string {
    return path.join(this.root, 'repos', remoteKey);
  }

  session(runId: string, taskId: string, attempt: string): string {
    return path.join(this.root, 'sessions', runId, `${taskId}.${attempt}`);
  }

  runSessions(runId: string): string {
    return path.join(this.root, 'sessions', runId);
  }
}
