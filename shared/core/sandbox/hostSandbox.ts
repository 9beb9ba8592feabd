import { accessSync, constants } from 'node:fs';
import type { ShellCommandWrap } from '../runtime/processGroup.js';
import { bwrapWrap, findOnPath, probeBwrap, probeBwrapAhead } from './bwrap.js';
import type { SandboxPolicy } from './sandboxPolicy.js';
import { seatbeltWrap } from './seatbeltProfile.js';

/** What runs the sandbox on this host: bubblewrap (Linux) or sandbox-exec (macOS). */
export type HostSandboxKind = 'bwrap' | 'sandbox-exec';

/** The sandbox this host can build, or what is missing and how to get it. */
export type HostSandbox =
  | { kind: HostSandboxKind; program: string; wrap: (policy: SandboxPolicy) => ShellCommandWrap; problem?: undefined }
  | { kind?: undefined; problem: string; fix: string };

const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/**
 * The sandbox here: bwrap on PATH (`env.PATH`) that can build one (probed once per process) on
 * Linux, /usr/bin/sandbox-exec on macOS; elsewhere none, with what to do about it.
 */
export function hostSandbox(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): HostSandbox {
  if (platform === 'darwin') {
    if (!executable(SANDBOX_EXEC)) return { problem: `${SANDBOX_EXEC} not found`, fix: 'it ships with macOS: check the system install' };
    return { kind: 'sandbox-exec', program: SANDBOX_EXEC, wrap: (policy) => seatbeltWrap(SANDBOX_EXEC, policy) };
  }
  if (platform !== 'linux') return { problem: `no sandbox for ${platform}`, fix: 'run orca on Linux (bubblewrap) or macOS (sandbox-exec)' };
  const bwrap = findOnPath('bwrap', env);
  if (bwrap === undefined)
    return { problem: 'bwrap not found', fix: 'install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)' };
  const problem = probeBwrap(bwrap);
  if (problem !== undefined)
    return {
      problem,
      fix: 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; in a container, a seccomp profile that permits them)',
    };
  return { kind: 'bwrap', program: bwrap, wrap: (policy) => bwrapWrap(bwrap, policy, { env }) };
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The host's sandbox probe started ahead (Linux: bwrap's, without blocking), for a caller that asks
 * hostSandbox later: it then gets the answer at once. Resolves when the answer is in; never rejects.
 */
export function probeHostSandboxAhead(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<void> {
  const bwrap = platform === 'linux' ? findOnPath('bwrap', env) : undefined;
  return bwrap === undefined ? Promise.resolve() : probeBwrapAhead(bwrap);
}
