import { bwrapWrap, findOnPath, probeBwrap } from '../../core/runtime/bwrap.js';
import type { SandboxMode } from '../../core/runtime/sandboxMode.js';
import type { ShellSettings } from '../../core/tool/tool.js';
import type { LoadedSettings } from '../settings/loadSettings.js';
import type { PolicyOptions } from './policy.js';

// bwrap itself lives in core/runtime: the integration checks (infra) run in the same sandbox.
export { bwrapWrap, findOnPath };

export type ShellWrap = NonNullable<ShellSettings['wrap']>;

export interface SandboxOptions {
  /** The agent's worktree: the one place on the host the command may write. */
  worktree: string;
  /** A private folder, mounted as /tmp inside the sandbox (created if missing). */
  tempDir: string;
  /** Leave the network on; otherwise the command gets a network namespace of its own, with nothing in it. */
  network: boolean;
  /** Further host folders the command may write (a worktree's git folder, for instance). */
  extraWritable?: string[];
  /**
   * Host folders the command must see even where the sandbox's private /tmp hides them: the
   * repository's git folder and linked dependencies of a worktree, when they live under /tmp.
   */
  extraReadable?: string[];
}

export interface Sandbox {
  /** For `ShellSettings.wrap`; undefined when commands run unsandboxed. */
  wrap?: ShellWrap;
  active: boolean;
  /** What the permission policy needs to know about it. */
  policy: Pick<PolicyOptions, 'writableOutside' | 'bashSandboxed'>;
}

const noticesGiven = new Set<string>();

/** A bwrap that builds a sandbox here, or why there is none (`bwrap not found`, what the probe said). */
export type SandboxAvailability = { bwrap: string; problem?: undefined } | { bwrap?: undefined; problem: string };

/** Whether bwrap on PATH (`env.PATH`, the process's by default) can build a sandbox here: probed once per process. */
export function sandboxAvailability(env?: NodeJS.ProcessEnv): SandboxAvailability {
  const bwrap = findOnPath('bwrap', env);
  if (bwrap === undefined) return { problem: 'bwrap not found' };
  const problem = probeBwrap(bwrap);
  return problem === undefined ? { bwrap } : { problem };
}

/** What `--sandbox required` says when there is no working sandbox: one line, with how to get one. */
export class SandboxRequiredError extends Error {
  constructor(problem: string) {
    super(`--sandbox required, but ${problem}: install bubblewrap (apt-get install bubblewrap), or run with --sandbox auto`);
    this.name = 'SandboxRequiredError';
  }
}

/**
 * The sandbox for one session. In mode `auto` (the default) with `enabled` (the role wants it)
 * and a working bwrap, commands are wrapped; without one, `notify` is told once per process and
 * commands run plainly, checked only by the permission policy. `required` wraps them whatever the
 * role says and throws SandboxRequiredError when it cannot; `off` never wraps.
 */
export function shellSandbox(
  options: SandboxOptions & { enabled: boolean; mode?: SandboxMode; notify: (message: string) => void; env?: NodeJS.ProcessEnv },
): Sandbox {
  const unsandboxed: Sandbox = { active: false, policy: { writableOutside: [], bashSandboxed: false } };
  const mode = options.mode ?? 'auto';
  const notifyOnce = (message: string) => {
    if (noticesGiven.has(message)) return;
    noticesGiven.add(message);
    options.notify(message);
  };
  if (mode === 'off') {
    notifyOnce('--sandbox off: Bash runs unsandboxed, relying on the permission checks');
    return unsandboxed;
  }
  if (mode === 'auto' && !options.enabled) return unsandboxed;
  const found = sandboxAvailability(options.env);
  if (found.bwrap === undefined) {
    if (mode === 'required') throw new SandboxRequiredError(found.problem);
    notifyOnce(`${found.problem}: Bash runs unsandboxed, relying on the permission checks`);
    return unsandboxed;
  }
  return { wrap: bwrapWrap(found.bwrap, options), active: true, policy: { writableOutside: ['/tmp'], bashSandboxed: true } };
}

/**
 * Whether settings let sandboxed commands use the network, and which setting did. bwrap cannot
 * filter by host, so any allowed domain (`sandbox.network.allowedDomains`, or a `WebFetch` allow
 * rule) turns the whole network on.
 */
export function networkAllowance(settings: LoadedSettings): { allowed: boolean; by?: string } {
  for (const source of settings.sources) {
    const domains = source.settings.sandbox?.network?.allowedDomains ?? [];
    if (domains.length > 0) return { allowed: true, by: `sandbox.network.allowedDomains in ${source.label}` };
    const rule = (source.settings.permissions?.allow ?? []).find((text) => /^WebFetch(\(|$)/.test(text.trim()));
    if (rule) return { allowed: true, by: `allow:${rule} in ${source.label}` };
  }
  return { allowed: false };
}
