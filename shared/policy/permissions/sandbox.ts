import type { ShellCommandWrap } from '../../core/runtime/processGroup.js';
import type { SandboxMode } from '../../core/runtime/sandboxMode.js';
import { type SandboxOptions, sandboxPolicy } from '../../core/sandbox/agentPolicy.js';
import { findOnPath } from '../../core/sandbox/bwrap.js';
import { type HostSandbox, hostSandbox } from '../../core/sandbox/hostSandbox.js';
import type { ShellSettings } from '../../core/tool/tool.js';
import type { LoadedSettings } from '../settings/loadSettings.js';
import { NoSandboxError } from './noSandboxError.js';
import type { PolicyOptions } from './policy.js';

export { findOnPath, NoSandboxError, type SandboxOptions, sandboxPolicy };

export type ShellWrap = NonNullable<ShellSettings['wrap']>;

export interface Sandbox {
  /** For `ShellSettings.wrap`; undefined when commands run unsandboxed. */
  wrap?: ShellWrap;
  active: boolean;
  /** The folders a sandboxed command (and all it starts) can write: its policy's writable ones and its /tmp; undefined unsandboxed. */
  writable?: readonly string[];
  /** What the permission policy needs to know about it. */
  policy: Pick<PolicyOptions, 'writableOutside' | 'bashSandboxed'>;
}

const noticesGiven = new Set<string>();

/** The sandbox this host can build (`env.PATH` is where bwrap is looked for), or what is missing and how to get it. */
export function sandboxAvailability(env?: NodeJS.ProcessEnv): HostSandbox {
  return hostSandbox(env);
}

/**
 * The sandbox for one session. In mode `auto` (the default) with `enabled` (the role wants it)
 * and a working sandbox, commands are wrapped; without one, `notify` is told once per process and
 * commands run plainly, checked only by the permission policy (the CLI refuses to start there
 * unless told `--sandbox off`). `required` wraps them whatever the role says and throws
 * NoSandboxError when it cannot; `off` never wraps.
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
  if (found.kind === undefined) {
    if (mode === 'required') throw new NoSandboxError(found.problem, found.fix);
    notifyOnce(`${found.problem}: Bash runs unsandboxed, relying on the permission checks`);
    return unsandboxed;
  }
  const policy = sandboxPolicy(options);
  const wrap: ShellCommandWrap = found.wrap(policy);
  return { wrap, active: true, writable: [...policy.writable, policy.tempDir], policy: { writableOutside: ['/tmp'], bashSandboxed: true } };
}

/**
 * What settings let sandboxed commands reach, and which settings said so: hosts through the proxy
 * (`sandbox.network.allowedDomains` entries, `WebFetch(domain:…)` allow rules, and `*` for a bare
 * `WebFetch` allow rule: any host, still never this host's own addresses) and host unix sockets
 * (`sandbox.network.allowUnixSockets`).
 */
export function networkRules(settings: LoadedSettings): { domains: string[]; sockets: string[]; by: string[] } {
  const domains = new Set<string>();
  const sockets = new Set<string>();
  const by = new Set<string>();
  for (const source of settings.sources) {
    const network = source.settings.sandbox?.network;
    for (const domain of network?.allowedDomains ?? []) {
      domains.add(domain);
      by.add(`sandbox.network.allowedDomains in ${source.label}`);
    }
    for (const socket of network?.allowUnixSockets ?? []) {
      sockets.add(socket);
      by.add(`sandbox.network.allowUnixSockets in ${source.label}`);
    }
    for (const rule of (source.settings.permissions?.allow ?? []).map((text) => text.trim())) {
      const match = /^WebFetch(?:\((?:domain:)?([^)]*)\))?$/.exec(rule);
      if (!match) continue;
      domains.add(match[1]?.trim() || '*');
      by.add(`allow:${rule} in ${source.label}`);
    }
  }
  return { domains: [...domains], sockets: [...sockets], by: [...by] };
}
