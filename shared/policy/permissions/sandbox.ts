import { bwrapWrap, findOnPath, probeBwrap } from '../../core/runtime/bwrap.js';
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

/**
 * The sandbox for one session. With `enabled` and a working bwrap on PATH (`env.PATH`, the
 * process's by default), commands are wrapped. Without one, `notify` is told once per process
 * and commands run plainly, checked only by the permission policy.
 */
export function shellSandbox(
  options: SandboxOptions & { enabled: boolean; notify: (message: string) => void; env?: NodeJS.ProcessEnv },
): Sandbox {
  const unsandboxed: Sandbox = { active: false, policy: { writableOutside: [], bashSandboxed: false } };
  if (!options.enabled) return unsandboxed;
  const bwrap = findOnPath('bwrap', options.env);
  const problem = bwrap === undefined ? 'bwrap not found' : probeBwrap(bwrap);
  if (bwrap === undefined || problem !== undefined) {
    const message = `${problem}: Bash runs unsandboxed, relying on the permission checks`;
    if (!noticesGiven.has(message)) {
      noticesGiven.add(message);
      options.notify(message);
    }
    return unsandboxed;
  }
  return { wrap: bwrapWrap(bwrap, options), active: true, policy: { writableOutside: ['/tmp'], bashSandboxed: true } };
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
