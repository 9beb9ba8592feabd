import { existsSync } from 'node:fs';
import { bwrapWrap, findOnPath, probeBwrap, type WrappedCommand } from '../../../core/runtime/bwrap.js';

/**
 * Where an integration check runs. The checks run the merged code, tests included, which agents
 * wrote: they get the bwrap sandbox an agent's Bash gets (the whole filesystem read-only, their
 * worktree and a private /tmp writable, no capabilities), and orca's credentials are taken out of
 * their environment by checkRun.ts in every case. The host network stays on unless the run says
 * `--check-network none`: test suites talk to local databases and services.
 */
export interface CheckSandbox {
  /** The worktree the check may write (the integration worktree). */
  worktree: string;
  /** A private folder mounted as the check's /tmp. */
  tempDir: string;
  /** False with `--check-network none`: a network namespace of its own, with nothing in it. */
  network: boolean;
  /** Host folders it must see although the private /tmp hides them (the repository, its git folder). */
  readable: string[];
  /** Where bwrap is looked for (`PATH`); the process's environment by default. */
  env?: NodeJS.ProcessEnv;
}

export interface CheckLauncher {
  /** How each check is started: under bwrap, or plainly when there is no working bwrap. */
  wrap?: WrappedCommand;
  sandbox: 'bwrap' | 'none';
  /** Why it is not sandboxed, when it is not. */
  problem?: string;
}

/** The launcher for a run's integration checks: bwrap when this host has a working one. */
export function checkLauncher(options: CheckSandbox): CheckLauncher {
  const bwrap = findOnPath('bwrap', options.env);
  const problem = bwrap === undefined ? 'bwrap not found' : probeBwrap(bwrap);
  if (bwrap === undefined || problem !== undefined) return { sandbox: 'none', problem };
  return {
    sandbox: 'bwrap',
    wrap: bwrapWrap(bwrap, {
      worktree: options.worktree,
      tempDir: options.tempDir,
      network: options.network,
      extraReadable: options.readable.filter((dir) => existsSync(dir)),
    }),
  };
}
