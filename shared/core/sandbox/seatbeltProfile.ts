import type { ShellCommandWrap } from '../runtime/processGroup.js';
import { proxyEnv } from './bwrap.js';
import { depthOf, readOnlyPaths, type SandboxPolicy } from './sandboxPolicy.js';

/**
 * A policy as macOS's sandbox-exec runs it: a Seatbelt profile. Everything is allowed but what the
 * policy closes: writes outside its writable folders and TMPDIR, writes to its read-only paths,
 * any access to its hidden ones, connects to unix sockets it does not name, and all network but
 * the proxy's loopback port. Seatbelt applies the last rule that matches, so the rules go in order
 * of depth, as bwrap's mounts do: the more specific path decides.
 *
 * What macOS cannot do that Linux does: no private /tmp (TMPDIR points at the private folder and
 * writes to /tmp are refused), no network namespace (a test's own loopback server cannot be reached
 * from inside either), no pid namespace. Not run on this project's CI (Linux): its text is tested.
 */
export function seatbeltProfile(policy: SandboxPolicy): string {
  const rules: Array<{ path: string; rule: string }> = [
    ...policy.writable.map((dir) => ({ path: dir, rule: `(allow file-write* (subpath ${sbplString(dir)}))` })),
    { path: policy.tempDir, rule: `(allow file-write* (subpath ${sbplString(policy.tempDir)}))` },
    ...readOnlyPaths(policy).map((file) => ({ path: file, rule: `(deny file-write* (subpath ${sbplString(file)}))` })),
    ...policy.hidden.map((file) => ({ path: file, rule: `(deny file-read* file-write* (subpath ${sbplString(file)}))` })),
  ].sort((a, b) => depthOf(a.path) - depthOf(b.path));
  return [
    '(version 1)',
    '(allow default)',
    "; Files: nothing writable but the policy's folders; the more specific path decides.",
    '(deny file-write*)',
    '(allow file-write* (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))',
    ...rules.map((entry) => entry.rule),
    '; Network: no way out but the proxy; unix sockets only those a rule names.',
    '(deny network*)',
    '(allow network* (local unix-socket))',
    '(deny network-outbound (remote unix-socket))',
    // Sockets the command makes itself (a test's server in its worktree or TMPDIR) it may use.
    ...[...policy.writable, policy.tempDir].map((dir) => `(allow network-outbound (remote unix-socket (subpath ${sbplString(dir)})))`),
    ...policy.sockets.map((socket) => `(allow network-outbound (remote unix-socket (literal ${sbplString(socket)})))`),
    ...networkRules(policy),
  ].join('\n');
}

/** The network rules: the proxy's port under `proxy`, everything under `host`, nothing under `none`. */
function networkRules(policy: SandboxPolicy): string[] {
  const network = policy.network;
  if (network.kind === 'host') return ['(allow network*)'];
  if (network.kind === 'none') return [];
  const endpoint = network.endpoint();
  if (!('port' in endpoint)) throw new Error('sandbox-exec reaches the proxy on a loopback port: start it with { port }');
  return [`(allow network-outbound (remote ip "localhost:${endpoint.port}"))`];
}

/** A string in a Seatbelt profile: quotes and backslashes escaped; a path with a control character refused. */
export function sbplString(text: string): string {
  if (/[\u0000-\u001f]/.test(text)) throw new Error(`sandbox-exec: the path ${JSON.stringify(text)} holds a control character; rename it`);
  return `"${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/** How sandbox-exec starts a command under the policy, with TMPDIR and the proxy's variables. */
export function seatbeltWrap(sandboxExec: string, policy: SandboxPolicy): ShellCommandWrap {
  // Made per command: the proxy's port is known once it listens.
  return (command) => {
    const network = policy.network;
    const endpoint = network.kind === 'proxy' ? network.endpoint() : undefined;
    const env = [
      `TMPDIR=${policy.tempDir}`,
      ...(endpoint && 'port' in endpoint
        ? proxyEnv(`http://127.0.0.1:${endpoint.port}`, network.kind === 'proxy' && network.loopbackThroughProxy === true).map(
            ([name, value]) => `${name}=${value}`,
          )
        : []),
    ];
    // The caller starts it in its folder (spawn's cwd): sandbox-exec and env keep it.
    return { file: sandboxExec, args: ['-p', seatbeltProfile(policy), '/usr/bin/env', ...env, '/bin/bash', '-c', command] };
  };
}
