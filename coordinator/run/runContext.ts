import type { RoleDefinition } from '../../roles/role.js';
import type { IntegrationBranch } from '../merge/integration.js';
import type { OrcaServices } from '../services.js';
import type { JobRunner } from './jobRunner.js';
import type { RunRecorder } from './runRecorder.js';

/** What every phase of a run works with. */
export interface RunContext {
  services: OrcaServices;
  recorder: RunRecorder;
  jobs: JobRunner;
  integration: IntegrationBranch;
  /** The user's repository (its root). */
  repo: string;
  task: string;
  base: string;
  checks: string[];
  /** Whether the integration checks reach the host network (`--check-network`). */
  checkNetwork: 'host' | 'none';
  role(name: 'coordinator' | 'explore' | 'plan' | 'worker' | 'verification'): RoleDefinition;
  /** Aborted when the run is: by the user, `orca abort`, or a run budget. */
  signal: AbortSignal;
  /** A line for the person watching (stderr; silent with --json). */
  say(line: string): void;
}

/** The run cannot go on (no plan, a broken plan, a dead coordinator step): it ends FAIL with this. */
export class RunFailure extends Error {
  override readonly name = 'RunFailure';
}
