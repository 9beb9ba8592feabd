import { runIdStartedAt } from '../runId.js';
import type { LedgerEntry } from '../runLedger.js';

/** What `orca clean` found of one run, from everything that names it. */
export interface RunFacts {
  id: string;
  /** Its jobs waiting or running. */
  pending: number;
  finished: number;
  /** A coordinator run (`orca run`): between its jobs it may be merging or verifying. */
  coordinated: boolean;
  ended?: string;
  lastActive: number;
  /** This installation's record of it: present only for a run made with this ORCA_HOME. */
  ledger?: LedgerEntry;
  /** This installation's Redis (its ORCA_PREFIX) holds a job, an event or a record of it. */
  inRedis: boolean;
  /** The git common dirs of the repositories its record, jobs and worktrees name. */
  repos: Set<string>;
}

/** The runs `orca clean` found, each with the latest sign of activity seen for it. */
export class KnownRuns {
  private readonly runs = new Map<string, RunFacts>();

  /** The run's facts, a run first named here starting at the time its id says. */
  get(id: string): RunFacts {
    let facts = this.runs.get(id);
    if (!facts) {
      facts = { id, pending: 0, finished: 0, coordinated: false, lastActive: runIdStartedAt(id), inRedis: false, repos: new Set() };
      this.runs.set(id, facts);
    }
    return facts;
  }

  touch(id: string, at: number | undefined): void {
    if (at && at > this.get(id).lastActive) this.get(id).lastActive = at;
  }

  /** In the order they were first named. */
  all(): RunFacts[] {
    return [...this.runs.values()];
  }
}
