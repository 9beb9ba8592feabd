import { OrcaHome } from '../runtime/orcaHome.js';
import { egressProxy } from './egressProxy.js';
import { type HostPaths, protectedHostPaths, type SandboxNetwork, type SandboxPolicy } from './sandboxPolicy.js';

export interface SandboxOptions {
  /** The agent's worktree: the one place on the host the command may write. */
  worktree: string;
  /** A private folder, mounted as /tmp inside the sandbox (created if missing). */
  tempDir: string;
  /** Hosts the command may reach, through the filtering proxy (allowedDomains); none: no network at all. */
  domains?: string[];
  /** Host unix sockets a rule names (`sandbox.network.allowUnixSockets`): reachable although their folder is hidden. */
  sockets?: string[];
  /** Further host folders the command may write (a worktree's git folder, for instance). */
  extraWritable?: string[];
  /**
   * Host folders the command must see, read-only, even where the sandbox's private /tmp hides
   * them: the repository's git folder and linked dependencies of a worktree.
   */
  extraReadable?: string[];
  /** ORCA_HOME and the user's checkout (read-only inside, ORCA_HOME/secrets hidden); ORCA_HOME from the environment by default. */
  host?: Partial<HostPaths>;
}

/**
 * One session's (or one run's checks') policy: its worktree and private /tmp writable, the host
 * paths every sandbox protects, and a network of its own, with the proxy when a domain is allowed.
 */
export function sandboxPolicy(options: SandboxOptions): SandboxPolicy {
  const orcaHome = options.host?.orcaHome ?? new OrcaHome(process.env.ORCA_HOME || undefined).root;
  const host = protectedHostPaths({ ...options.host, orcaHome });
  const network: SandboxNetwork =
    (options.domains ?? []).length > 0 ? { kind: 'proxy', endpoint: egressProxy(options.domains ?? []).endpoint } : { kind: 'none' };
  return {
    writable: [options.worktree, ...(options.extraWritable ?? [])],
    readOnly: [...host.readOnly, ...(options.extraReadable ?? [])],
    hidden: host.hidden,
    tempDir: options.tempDir,
    network,
    sockets: options.sockets ?? [],
  };
}
