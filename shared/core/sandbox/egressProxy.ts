import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer, isIP, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RequestError as ProxyRequestError, Server } from 'proxy-chain';
import { processAlive } from '../runtime/processAlive.js';
import { type EgressRule, isHostAddress, matchingRule, parseEgressRule, proxyHosts } from './egressRules.js';
import type { ProxyEndpoint } from './sandboxPolicy.js';

/**
 * The filtering HTTP/HTTPS (CONNECT) proxy on the host: the sandbox's one way out. proxy-chain
 * (pinned) does the proxying; orca decides each request before it connects: the rule that lets
 * the host and port through, the address resolved once (ORCA_PROXY_HOSTS first, then DNS) and
 * checked, and that address, not a second lookup, connected to. A refusal is a 403 naming the
 * rule that is missing. One proxy per set of rules per process, on a loopback port, with a unix
 * socket in front of it for Linux; it never keeps the process alive, and its socket goes when it exits.
 */
export interface EgressProxy {
  endpoint(): ProxyEndpoint;
}

/** A proxy of one session's own, closed when the session ends (its rules name ports that live no longer than it). */
export interface OwnEgressProxy extends EgressProxy {
  close(): Promise<void>;
}

const proxies = new Map<string, EgressProxy>();

export function egressProxy(domains: string[], platform: NodeJS.Platform = process.platform): EgressProxy {
  const rules = domains.map(parseEgressRule);
  const key = `${platform}\n${rules
    .map((rule) => `${rule.host}:${rule.port ?? ''}`)
    .sort()
    .join('\n')}`;
  let proxy = proxies.get(key);
  if (!proxy) {
    proxy = startProxy(rules, platform === 'linux' ? 'socket' : 'port');
    proxies.set(key, proxy);
  }
  return proxy;
}

/**
 * A proxy for one session alone, not shared: an external agent's, whose rules name its own MCP
 * server's port. Its server, socket and folder go when it is closed.
 */
export async function openEgressProxy(domains: string[], platform: NodeJS.Platform = process.platform): Promise<OwnEgressProxy> {
  const proxy = startProxy(domains.map(parseEgressRule), platform === 'linux' ? 'socket' : 'port');
  await proxy.listening;
  return proxy;
}

function startProxy(rules: EgressRule[], listen: 'socket' | 'port'): OwnEgressProxy & { listening: Promise<number> } {
  // proxy-chain is imported with the first proxy, not with the module: a worker loads this file for
  // every sandboxed job, most of which reach no network, and proxy-chain costs it about 20 MB.
  let started: Server | undefined;
  const server = import('proxy-chain').then(({ RequestError, Server }) => {
    started = new Server({
      port: 0,
      host: '127.0.0.1',
      prepareRequestFunction: ({ hostname, port }) => decide(RequestError, rules, hostname, port),
    });
    return started;
  });
  const listening = server.then(async (proxy) => {
    await proxy.listen();
    proxy.server.unref();
    return proxy.port;
  });
  const port = () => {
    const address = started?.server.address();
    if (!address || typeof address === 'string') throw new Error('the egress proxy is not listening yet');
    return address.port;
  };
  const closeServer = () => server.then((proxy) => proxy.close(true)).catch(() => undefined);
  if (listen === 'port') return { endpoint: () => ({ port: port() }), close: closeServer, listening };
  const bridge = unixBridge(listening);
  return {
    listening,
    endpoint: () => ({ socket: bridge.socket }),
    close: async () => {
      await Promise.all([closeServer(), bridge.close()]);
    },
  };
}

/**
 * A unix socket in front of the proxy's loopback port: what the Linux sandbox gets bound in.
 * proxy-chain drops a connection without a remote address, which a unix socket's has not, so
 * the socket relays to its port. Bound before this returns: the socket is there for the first sandbox.
 */
function unixBridge(port: Promise<number>): { socket: string; close(): Promise<void> } {
  sweepStaleEgressDirs();
  const dir = mkdtempSync(path.join(os.tmpdir(), `orca-egress-${process.pid}-`));
  const socket = path.join(dir, 'proxy.sock');
  const open = new Set<Socket>();
  const bridge = createServer((inside) => {
    open.add(inside);
    inside.once('close', () => open.delete(inside));
    inside.on('error', () => inside.destroy());
    void port.then((listening) => {
      const outside = connect(listening, '127.0.0.1');
      outside.on('error', () => inside.destroy());
      inside.pipe(outside).pipe(inside);
    });
  });
  bridge.listen(socket);
  bridge.unref();
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  return {
    socket,
    close: () =>
      new Promise<void>((resolve) => {
        process.off('exit', remove);
        // A connection still open would hold the close: the session that used them has ended.
        for (const socket of open) socket.destroy();
        bridge.close(() => {
          remove();
          resolve();
        });
      }),
  };
}

/**
 * Removes the socket folders of processes that are gone: one killed without an exit event (a
 * SIGKILL, a test runner's fork torn down) leaves its folder; the pid in its name says whose it was.
 */
export function sweepStaleEgressDirs(tmp: string = os.tmpdir()): void {
  for (const name of readdirSync(tmp)) {
    const pid = /^orca-egress-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) rmSync(path.join(tmp, name), { recursive: true, force: true });
  }
}

/** What the proxy does with one request: refuse it (403) or connect to the one address it checked. */
async function decide(RequestError: typeof ProxyRequestError, rules: EgressRule[], hostname: string, port: number) {
  const rule = matchingRule(rules, hostname, port);
  if (!rule)
    throw new RequestError(`orca: ${hostname}:${port} is not an allowed domain (sandbox.network.allowedDomains, WebFetch(domain:…))`, 403);
  const address = await resolve(RequestError, hostname);
  if (isHostAddress(address.address) && rule.port === undefined)
    throw new RequestError(
      `orca: ${hostname} is this host (${address.address}): a host address is reached only on a port its rule names (${hostname}:${port})`,
      403,
    );
  return { dnsLookup: fixedLookup(address) };
}

async function resolve(RequestError: typeof ProxyRequestError, hostname: string): Promise<LookupAddress> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family !== 0) return { address: bare, family };
  let mapped: string | undefined;
  try {
    mapped = proxyHosts().get(bare.toLowerCase());
  } catch (error) {
    throw new RequestError(`orca: ${(error as Error).message}`, 502);
  }
  if (mapped) return { address: mapped, family: isIP(mapped) };
  try {
    return await lookup(bare);
  } catch (error) {
    throw new RequestError(`orca: ${hostname} does not resolve (${(error as Error).message})`, 502);
  }
}

/** A dns.lookup that answers with the address already checked, so the connection goes there and nowhere else. */
function fixedLookup(address: LookupAddress) {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (typeof options === 'function') (options as (...args: unknown[]) => void)(null, address.address, address.family);
    else if (options?.all) callback(null, [address]);
    else callback(null, address.address, address.family);
  }) as never;
}
