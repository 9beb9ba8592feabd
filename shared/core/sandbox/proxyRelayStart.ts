import { realpathSync } from 'node:fs';
import { compiledEntry } from '../runtime/compiledEntry.js';

/** What serves the proxy's socket on the sandbox's loopback: socat from a small shell, or orca's own relay in Node. */
export type ProxyRelay = { kind: 'socat'; program: string } | { kind: 'node' };

/**
 * Starts socat on the sandbox's loopback, waits until the namespace's own table of sockets
 * (/proc/net/tcp) shows it listening, then execs the command: its first request never races the
 * relay, and nothing stands between the command and its signals or its exit status. socat keeps
 * none of the command's pipes beyond stdio (the status and info pipes are closed for it), and goes
 * with the pid namespace when the command ends. Arguments: socat, port, socket, then the command.
 */
const SOCAT_START = `socat=$1 port=$2 socket=$3
shift 3
"$socat" TCP-LISTEN:"$port",bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:"$socket" </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
relay=$!
listening=$(printf '0100007F:%04X' "$port")
serving() {
  while read -r _ address _ state _; do
    [ "$address" = "$listening" ] && [ "$state" = 0A ] && return 0
  done </proc/net/tcp
  return 1
}
until serving; do
  kill -0 "$relay" 2>/dev/null || { echo "orca proxy relay: socat ($socat) ended before it listened on 127.0.0.1:$port" >&2; exit 126; }
done
exec "$@"`;

/**
 * The relay a sandbox uses: socat where PATH has one the sandbox can see (not under one of the
 * folders it `replaces`), else proxyRelay.ts. Measured here (2 cores, bwrap, a relay then
 * `bash -c true`): 23–41 ms with socat, 182–193 ms with the Node relay, whose whole cost is a
 * Node process's start. That start comes before every command that has a network (an external
 * agent's process, sandboxed Bash and checks with allowed domains), so the Node relay stays only
 * as the way that needs no socat.
 */
export function proxyRelay(socat: string | undefined, replaces: readonly string[]): ProxyRelay {
  if (socat === undefined) return { kind: 'node' };
  const real = realpathSync(socat);
  const hidden = replaces.some((dir) => real === dir || real.startsWith(`${dir}/`));
  return hidden ? { kind: 'node' } : { kind: 'socat', program: real };
}

/** The words that start the relay on `port`, serving `socket`, before the command that follows them. */
export function relayWords(relay: ProxyRelay, port: number, socket: string): string[] {
  if (relay.kind === 'node') return [process.execPath, compiledEntry('shared/core/sandbox/proxyRelay.ts'), String(port), socket];
  return ['bash', '-c', SOCAT_START, 'orca-proxy-relay', relay.program, String(port), socket];
}
