import { existsSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * What agent-made code may touch, said once for every OS: bwrap.ts turns it into bubblewrap's
 * arguments (Linux), seatbeltProfile.ts into a sandbox-exec profile (macOS). Where two entries
 * nest, the more specific path decides (a read-only folder inside a writable one stays read-only).
 */
export interface SandboxPolicy {
  /** Host folders the command may write: its worktree, further folders (a scratch folder). */
  writable: string[];
  /**
   * Host paths it sees but cannot change, even inside a writable folder or under the hidden /tmp;
   * one that is also writable (a session's workspace, listed to be seen) stays writable.
   */
  readOnly: string[];
  /** Host paths it cannot see at all: an empty folder (or file) stands in for each. */
  hidden: string[];
  /** A private folder: the command's /tmp on Linux, and its TMPDIR (at the folder's own path) everywhere. */
  tempDir: string;
  network: SandboxNetwork;
  /** Host unix sockets a rule names: reachable although the folder they live in is hidden. */
  sockets: string[];
}

/**
 * The command's network. Never the host's for agent code: `none` is a network of its own with
 * nothing in it; `proxy` adds one way out, the filtering proxy (egressProxy.ts), reached through
 * a unix socket on Linux and a loopback port on macOS. `host` is only for integration checks under
 * `--check-network host`, which the user asks for by name.
 */
export type SandboxNetwork =
  | { kind: 'none' }
  | {
      kind: 'proxy';
      endpoint: () => ProxyEndpoint;
      /**
       * Loopback goes through the proxy too (no NO_PROXY): an external agent's own network, where
       * 127.0.0.1 inside holds nothing and its model API or orca's MCP server on the host's
       * loopback is reached only as the proxy's rules name it (host:port).
       */
      loopbackThroughProxy?: boolean;
      /**
       * With `loopbackThroughProxy`: an address of the sandbox's own loopback the agent serves its
       * own HTTP API on (OpenCode's `--hostname`), reached directly: nothing else is on it.
       */
      ownLoopback?: string;
    }
  | { kind: 'host' };

/**
 * Where the filtering proxy listens on the host: a unix socket (Linux), a loopback port (macOS).
 * Asked for when a command starts: a port is known only once the proxy listens.
 */
export type ProxyEndpoint = { socket: string } | { port: number };

/** Where the proxy's socket is inside the sandbox (Linux), and the loopback port the relay serves it on. */
export const PROXY_SOCKET_INSIDE = '/run/orca/proxy.sock';
export const PROXY_PORT_INSIDE = 3128;

/** The folders of host sockets (Docker's, D-Bus's, databases', orca's own Redis's when it has one): hidden on Linux. */
export const HOST_SOCKET_DIRS = ['/run', '/var/run'];

export interface HostPaths {
  /** ORCA_HOME: orca's state (memory cards, run records, transcripts); its `secrets/` is hidden. */
  orcaHome: string;
  /** The user's checkout: read-only to agent code, which works in its own worktree. */
  checkout?: string;
  home?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * What every agent sandbox protects on the host, whatever it runs: ORCA_HOME, the user's Claude
 * Code configuration (~/.claude, ~/.claude.json), git's global configuration (~/.gitconfig, the
 * XDG one) and the user's checkout read-only; ORCA_HOME/secrets and the host's socket folders hidden.
 */
export function protectedHostPaths(paths: HostPaths): Pick<SandboxPolicy, 'readOnly' | 'hidden'> {
  const home = paths.home ?? os.homedir();
  const env = paths.env ?? process.env;
  const xdg = env.XDG_CONFIG_HOME || path.join(home, '.config');
  return {
    readOnly: [
      paths.orcaHome,
      path.join(home, '.claude'),
      path.join(home, '.claude.json'),
      path.join(home, '.gitconfig'),
      path.join(xdg, 'git'),
      ...(paths.checkout ? [paths.checkout] : []),
    ],
    hidden: [path.join(paths.orcaHome, 'secrets'), ...HOST_SOCKET_DIRS],
  };
}

/** A path as the kernel sees it (symlinks resolved), or undefined when there is nothing there. */
export function realPath(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  return realpathSync(file);
}

/** The read-only paths that are not also writable: where the same path is in both, writable wins. */
export function readOnlyPaths(policy: SandboxPolicy): string[] {
  const writable = new Set([...policy.writable, policy.tempDir].map((file) => realPath(file) ?? file));
  return policy.readOnly.filter((file) => !writable.has(realPath(file) ?? file));
}

/** How deep a path is: where two rules nest, the deeper one is applied last and so decides. */
export function depthOf(file: string): number {
  return file.split('/').filter(Boolean).length;
}
