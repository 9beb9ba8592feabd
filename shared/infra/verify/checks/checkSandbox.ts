import type { ShellCommandWrap } from '../../../core/runtime/processGroup.js';
import type { SandboxMode } from '../../../core/runtime/sandboxMode.js';
import { sandboxPolicy } from '../../../core/sandbox/agentPolicy.js';
import type { CheckNetwork } from '../../../core/sandbox/checkNetwork.js';
import { type HostSandboxKind, hostSandbox } from '../../../core/sandbox/hostSandbox.js';

/**
 * Where an integration check runs. The checks run the merged code, tests included, which agents
 * wrote: they get the sandbox an agent's Bash gets (its worktree and a private /tmp writable,
 * ORCA_HOME, ~/.claude, git's config and the checkout read-only, host sockets hidden, a network
 * of its own with the run's allowed domains through the proxy), and orca's credentials are taken
 * out of their environment by checkRun.ts in every case. The host's network only with
 * `--check-network host`; none with `--sandbox off`, which the start line says.
 */
export interface CheckSandbox {
  /** `--sandbox`: `off` runs the checks unsandboxed, as everything else. */
  mode: SandboxMode;
  /** The worktree the check may write (the integration worktree). */
  worktree: string;
  /** A private folder mounted as the check's /tmp. */
  tempDir: string;
  network: CheckNetwork;
  /** The run's allowed domains (its trusted settings): what the proxy lets through. */
  domains: string[];
  /** Host unix sockets the run's settings name (`sandbox.network.allowUnixSockets`). */
  sockets?: string[];
  /** Host folders it must see although the private /tmp hides them (the repository, its git folder). */
  readable: string[];
  /** The user's checkout: read-only inside. */
  checkout?: string;
  /** Where bwrap is looked for (`PATH`); the process's environment by default. */
  env?: NodeJS.ProcessEnv;
}

export interface CheckLauncher {
  /** How each check is started: in the sandbox, or plainly under `--sandbox off` or without one. */
  wrap?: ShellCommandWrap;
  sandbox: HostSandboxKind | 'none';
  /** Why it is not sandboxed, when it is not. */
  problem?: string;
}

/** The launcher for a run's integration checks: the host's sandbox, unless the run said `--sandbox off`. */
export function checkLauncher(options: CheckSandbox): CheckLauncher {
  if (options.mode === 'off') return { sandbox: 'none', problem: '--sandbox off' };
  const found = hostSandbox(options.env);
  if (found.kind === undefined) return { sandbox: 'none', problem: found.problem };
  const policy = sandboxPolicy({
    worktree: options.worktree,
    tempDir: options.tempDir,
    domains: options.network === 'proxy' ? options.domains : [],
    sockets: options.sockets,
    extraReadable: options.readable,
    host: { checkout: options.checkout },
  });
  if (options.network === 'host') policy.network = { kind: 'host' };
  return { sandbox: found.kind, wrap: found.wrap(policy) };
}
