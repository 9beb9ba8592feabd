import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import type { RunMemory } from './runMemory.js';

/**
 * A run's memory (undefined with --no-memory): its cards read, and Claude Code's memory of the
 * repository. Not part of the checks before a run id (preStart.ts): nothing in it stops a run (a
 * card that cannot be read is a line), and reading it (the cards' front matter parser, two git
 * calls for the repository's identity) is kept off `orca run`'s way to its id.
 */
export async function openRunMemory(enabled: boolean, repo: string): Promise<RunMemory | undefined> {
  if (!enabled) return undefined;
  const { RunMemory } = await import('./runMemory.js');
  return RunMemory.open({ orcaHome: new OrcaHome(process.env.ORCA_HOME || undefined).root, repo, startedAt: Date.now() });
}
