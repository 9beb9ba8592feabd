import { BlockList, isIP } from 'node:net';

/**
 * The hosts agent code may reach through the proxy, from `sandbox.network.allowedDomains` and
 * `WebFetch(domain:…)` allow rules: `example.com` (that host, any port), `*.example.com` (its
 * subdomains), `host:port` (that port only), `*` (any host: a bare `WebFetch` allow rule).
 * An address of the host itself (loopback, link-local, unspecified: orca's Redis, a cloud's
 * metadata service) is reached only on a port a rule names, by a name a rule names.
 */
export interface EgressRule {
  host: string;
  port?: number;
}

/** ORCA_PROXY_HOSTS: `name=address` pairs, comma-separated, the proxy resolves itself (a stand-in, a staging host). */
export const PROXY_HOSTS_VARIABLE = 'ORCA_PROXY_HOSTS';

export function parseEgressRule(text: string): EgressRule {
  const trimmed = text.trim().toLowerCase();
  const match = /^(\*|\*\.[^:\s]+|\[[0-9a-f:]+\]|[^:\s*]+)(?::(\d{1,5}))?$/.exec(trimmed);
  if (!match) throw new Error(`"${text}" is not an allowed domain: write example.com, *.example.com or host:port`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), ...(match[2] ? { port: Number(match[2]) } : {}) };
}

/** The rule that lets `host:port` through, if any: one naming the port first. */
export function matchingRule(rules: EgressRule[], host: string, port: number): EgressRule | undefined {
  const name = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const hostMatches = (rule: EgressRule) =>
    rule.host === '*' || rule.host === name || (rule.host.startsWith('*.') && name.endsWith(rule.host.slice(1)));
  const candidates = rules.filter((rule) => hostMatches(rule) && (rule.port === undefined || rule.port === port));
  return candidates.find((rule) => rule.port !== undefined) ?? candidates[0];
}

const hostAddresses = new BlockList();
hostAddresses.addSubnet('127.0.0.0', 8, 'ipv4');
hostAddresses.addSubnet('169.254.0.0', 16, 'ipv4');
hostAddresses.addSubnet('0.0.0.0', 8, 'ipv4');
hostAddresses.addAddress('::1', 'ipv6');
hostAddresses.addAddress('::', 'ipv6');
hostAddresses.addSubnet('fe80::', 10, 'ipv6');
hostAddresses.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether an address is the host's own (loopback, link-local, unspecified): reached only on a port a rule names. */
export function isHostAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return hostAddresses.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** ORCA_PROXY_HOSTS as a map of name to address; a pair that is not `name=address` is an error naming it. */
export function proxyHosts(env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const hosts = new Map<string, string>();
  for (const pair of (env[PROXY_HOSTS_VARIABLE] ?? '')
    .split(',')
    .map((text) => text.trim())
    .filter(Boolean)) {
    const [name, address] = pair.split('=').map((text) => text.trim());
    if (!name || !address || isIP(address) === 0)
      throw new Error(`${PROXY_HOSTS_VARIABLE}: "${pair}" is not name=address (an IP address): e.g. api.example.test=127.0.0.1`);
    hosts.set(name.toLowerCase(), address);
  }
  return hosts;
}
