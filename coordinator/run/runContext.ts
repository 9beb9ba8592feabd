import type { RoleDefinition } from '../../roles/role.js';
import type { SandboxMode } from '../../shared/core/runtime/sandboxMode.js';
import type { CheckNetwork } from '../../shared/core/sandbox/checkNetwork.js';
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
  /** The integration checks' network (`--check-network`): the proxy's by default. */
  checkNetwork: CheckNetwork;
  /** What the run's trusted settings let its checks and setup reach: hosts through the proxy, host unix sockets. */
  checkRules: { domains: string[]; sockets: string[] };
  /** `--sandbox`: `off` runs the integration checks unsandboxed too. */
  sandbox: SandboxMode;
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
