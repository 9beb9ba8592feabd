import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants, type Dirent, mkdirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../runtime/compiledEntry.js';
import type { ShellCommandWrap } from '../runtime/processGroup.js';
import { type ProxyRelay, proxyRelay, relayWords } from './proxyRelayStart.js';
import { depthOf, PROXY_PORT_INSIDE, PROXY_SOCKET_INSIDE, readOnlyPaths, realPath, type SandboxPolicy } from './sandboxPolicy.js';

/** One mount, applied in order of depth: where two nest, the deeper one decides. */
interface Mount {
  target: string;
  args: string[];
}

const probes = new Map<string, string | undefined>();

/**
 * A policy as bubblewrap runs it: the whole filesystem read-only, the policy's writable folders
 * and a private /tmp (TMPDIR, at the private folder's own path too) writable, its read-only paths
 * read-only even inside those, its hidden paths replaced by empty ones, fresh /dev and /proc, its
 * own process namespace (killing bwrap kills everything inside), no capabilities (even for root),
 * and a network namespace of its own unless the policy says `host`: with `proxy`, the proxy's
 * socket is bound in and a relay (`relay`: socat, else proxyRelay.ts) serves it on 127.0.0.1:3128
 * before the command starts.
 */
export function bwrapWrap(
  bwrap: string,
  policy: SandboxPolicy,
  options: { relay?: ProxyRelay; env?: NodeJS.ProcessEnv } = {},
): ShellCommandWrap {
  mkdirSync(policy.tempDir, { recursive: true });
  const tempDir = realpathSync(policy.tempDir);
  const mounts = [...fileMounts(policy, tempDir)].sort((a, b) => depthOf(a.target) - depthOf(b.target));
  const network = policy.network;
  const endpoint = network.kind === 'proxy' ? network.endpoint() : undefined;
  if (endpoint && !('socket' in endpoint)) throw new Error('bwrap reaches the proxy through a unix socket: start it with { socket }');
  // Chosen only where there is a proxy to serve; socat under what this sandbox replaces is not there to run.
  const relay = endpoint && (options.relay ?? proxyRelay(findOnPath('socat', options.env), [...REPLACED, ...policy.hidden]));
  // orca itself installed under the host's /tmp (a checkout, a CI clone) is hidden by the private /tmp: its relay must be seen.
  const orcaRoot = relay && relay.kind === 'node' && hiddenByPrivateTmp(packageRoot()) ? ['--ro-bind', packageRoot(), packageRoot()] : [];
  const fixed = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--cap-drop',
    'ALL',
    ...(network.kind === 'host' ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...mounts.flatMap((mount) => mount.args),
    ...(endpoint ? ['--bind', endpoint.socket, PROXY_SOCKET_INSIDE] : []),
    ...orcaRoot,
    '--setenv',
    'TMPDIR',
    tempDir,
    ...(endpoint
      ? proxyEnv(
          `http://127.0.0.1:${PROXY_PORT_INSIDE}`,
          network.kind === 'proxy' && network.loopbackThroughProxy === true,
          network.kind === 'proxy' ? network.ownLoopback : undefined,
        ).flatMap(([name, value]) => ['--setenv', name, value])
      : []),
  ];
  const start = relay ? relayWords(relay, PROXY_PORT_INSIDE, PROXY_SOCKET_INSIDE) : [];
  return (command, cwd, options) => {
    const infoFd = options?.infoFd;
    const info = infoFd === undefined ? [] : ['--info-fd', String(infoFd)];
    return {
      file: bwrap,
      args: [...fixed, ...info, '--chdir', cwd, '--', ...start, 'bash', '-c', command],
      ...(infoFd === undefined ? {} : { infoFd }),
    };
  };
}

/** The host's folders this sandbox puts others in place of: its private /tmp and a fresh /dev (the policy's hidden paths beside them). */
const REPLACED = ['/tmp', '/dev'];

function hiddenByPrivateTmp(dir: string): boolean {
  const real = realpathSync(dir);
  return real === '/tmp' || real.startsWith('/tmp/');
}

/**
 * The variables that send HTTP clients through the proxy. Loopback stays direct: a test's own
 * server inside the sandbox is reached as itself; a host service is reached by a name the rules
 * allow. With `loopbackThroughProxy` nothing is direct but `ownLoopback` (NO_PROXY names it
 * alone): an external agent's loopback model API and orca's MCP server are the host's, reached
 * through the proxy; the address it serves itself on inside is its own.
 */
export function proxyEnv(url: string, loopbackThroughProxy = false, ownLoopback?: string): Array<[string, string]> {
  const noProxy = loopbackThroughProxy ? (ownLoopback ?? '') : 'localhost,127.0.0.1,::1';
  return [
    ['HTTP_PROXY', url],
    ['HTTPS_PROXY', url],
    ['http_proxy', url],
    ['https_proxy', url],
    ['ALL_PROXY', url],
    ['all_proxy', url],
    ['NO_PROXY', noProxy],
    ['no_proxy', noProxy],
  ];
}

/** The policy's paths as mounts: private /tmp, writable, read-only, hidden, then named sockets. */
function* fileMounts(policy: SandboxPolicy, tempDir: string): Generator<Mount> {
  yield { target: '/tmp', args: ['--bind', tempDir, '/tmp'] };
  // Also at its own path, which TMPDIR names: a scratch file written there is at the same path
  // for the host's tools, so Read and Grep reach it.
  yield { target: tempDir, args: ['--bind', tempDir, tempDir] };
  for (const dir of existing(policy.writable)) yield { target: dir, args: ['--bind', dir, dir] };
  for (const file of withHiddenLinkTargets(existing(readOnlyPaths(policy)))) yield { target: file, args: ['--ro-bind', file, file] };
  for (const file of existing(policy.hidden)) {
    yield { target: file, args: statSync(file).isDirectory() ? ['--tmpfs', file] : ['--ro-bind', '/dev/null', file] };
  }
  for (const socket of existing(policy.sockets)) yield { target: socket, args: ['--bind', socket, socket] };
}

/** The paths that exist, resolved and each once (`/var/run` is `/run` on most hosts). */
function existing(paths: string[]): string[] {
  return [...new Set(paths.map(realPath).filter((file): file is string => file !== undefined))];
}

/**
 * The read-only folders and, one level down (two for npm's `@scope/` folders and `.bin`), what
 * their symlinks point to under the host's /tmp, which the private /tmp hides: a dependency folder
 * linked in from a checkout under /tmp (`npm link`, a package borrowed from another install)
 * would otherwise hold links that lead nowhere inside the sandbox.
 */
function withHiddenLinkTargets(dirs: string[]): string[] {
  const found = new Set(dirs);
  const hidden = (target: string) => target === '/tmp' || target.startsWith('/tmp/');
  const follow = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // Unreadable here is unreadable in the sandbox too: nothing to add.
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(full);
        } catch {
          continue; // A dangling link leads nowhere on the host either.
        }
        if (hidden(target) && !dirs.some((root) => target === root || target.startsWith(root + path.sep))) {
          found.add(statSync(target).isDirectory() ? target : path.dirname(target));
        }
      } else if (depth > 0 && entry.isDirectory() && (entry.name.startsWith('@') || entry.name === '.bin')) {
        follow(full, depth - 1);
      }
    }
  };
  for (const dir of dirs) if (hidden(dir) && statSync(dir).isDirectory()) follow(dir, 1);
  return [...found];
}

/**
 * One line on what serves each sandbox's proxy inside its network namespace on this host (a
 * worker with bwrap prints it at start): socat, or orca's Node relay, slower to start and larger,
 * with why and what to install.
 */
export function proxyRelayLine(env: NodeJS.ProcessEnv = process.env): string {
  const socat = findOnPath('socat', env);
  const relay = proxyRelay(socat, REPLACED);
  if (relay.kind === 'socat') return `network relay: socat (${relay.program}) serves each sandbox's proxy inside its network namespace`;
  const why = socat === undefined ? 'no socat on PATH' : `the socat on PATH, ${socat}, lies in a folder the sandbox replaces`;
  return (
    `network relay: orca's Node relay (${why}): each sandboxed command with a network (an external agent, Bash or a check with ` +
    'allowed domains) starts about 150 ms later and holds about 40 MB more than with socat; install socat (apt-get install socat, dnf install socat)'
  );
}

export function findOnPath(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder: try the next one.
    }
  }
  return undefined;
}

/** The probe: the smallest sandbox with what every orca sandbox unshares. */
const PROBE_ARGS = ['--ro-bind', '/', '/', '--unshare-net', '--unshare-pid', '--cap-drop', 'ALL', '--', 'true'];

/**
 * Whether bwrap can build a sandbox here (it cannot where user namespaces are turned off), tried
 * once per process: undefined when it can, otherwise what went wrong.
 */
export function probeBwrap(bwrap: string): string | undefined {
  if (!probes.has(bwrap)) {
    const probe = spawnSync(bwrap, PROBE_ARGS, { encoding: 'utf8' });
    probes.set(bwrap, probeProblem(probe.error, probe.status, probe.stderr));
  }
  return probes.get(bwrap);
}

const probing = new Map<string, Promise<void>>();

/**
 * The same probe, started without blocking: its answer is what probeBwrap then returns at once.
 * The CLI starts it first, so the probe (a new network namespace can take tens of milliseconds)
 * runs beside the repository's git checks rather than after them.
 */
export function probeBwrapAhead(bwrap: string): Promise<void> {
  if (probes.has(bwrap)) return Promise.resolve();
  let pending = probing.get(bwrap);
  if (!pending) {
    pending = new Promise<void>((resolve) => {
      execFile(bwrap, PROBE_ARGS, { encoding: 'utf8' }, (error, _stdout, stderr) => {
        const code = error?.code;
        // A spawn failure (code: 'ENOENT', …) is the error itself; a non-zero exit is the probe's own answer.
        const spawnError = error && typeof code !== 'number' ? error : undefined;
        if (!probes.has(bwrap)) probes.set(bwrap, probeProblem(spawnError, error ? (code as number) : 0, stderr));
        resolve();
      });
    });
    probing.set(bwrap, pending);
  }
  return pending;
}

function probeProblem(spawnError: Error | undefined, status: number | null, stderr: string): string | undefined {
  let failed: string | undefined;
  if (spawnError) failed = spawnError.message;
  else if (status !== 0) failed = stderr.trim() || `exit code ${status}`;
  return failed === undefined ? undefined : `bwrap cannot create a sandbox here (${failed})`;
}
