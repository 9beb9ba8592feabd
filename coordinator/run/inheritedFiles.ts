import picomatch from 'picomatch';
import type { InheritedFileState } from '../../shared/core/files/readFileState.js';
import type { RunContext } from './runContext.js';

/**
 * The run's file knowledge a subtask inherits: what the Explore agents read (of the base commit's
 * own bytes: files whose hash the host could not confirm there are left out), for the files the
 * subtask owns, with the lines seen of a partial view. The worker keeps an entry only if the file
 * is byte-identical in its worktree.
 */
export function inheritedFor(ctx: RunContext, paths: string[]): InheritedFileState[] {
  const files = ctx.recorder.state.run.findings?.files ?? [];
  const match = picomatch(paths, { dot: true });
  return files
    .filter((file) => file.verified && match(file.path))
    .map((file) => ({ path: file.path, hash: file.hash, partial: file.partial, ...(file.partial ? { seen: file.seen ?? [] } : {}) }));
}
