/*
 * Where orca's Redis is, and how it is named in messages: apart from redisConnection.ts, which
 * connects (ioredis, a large module), so that a command can name and ping its Redis (redisPing.ts)
 * before it loads a client: `orca run` says its run id without one (docs/benchmarks.md).
 */

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** How a Redis Cluster is named where a URL is expected: `cluster:host:port,host:port`. */
export const CLUSTER_SCHEME = 'cluster:';

/**
 * The Redis orca uses: a Redis Cluster when REDIS_CLUSTER_NODES names its nodes
 * (`host:port,…`; given as `cluster:host:port,…`), else REDIS_URL, else the local default.
 */
export function redisUrl(): string {
  const nodes = process.env.REDIS_CLUSTER_NODES?.trim();
  if (nodes) return `${CLUSTER_SCHEME}${nodes}`;
  return process.env.REDIS_URL || DEFAULT_REDIS_URL;
}

/** Whether orca talks to a Redis Cluster (REDIS_CLUSTER_NODES): its keys then carry one hash tag (keys.ts). */
export function clusterMode(): boolean {
  return Boolean(process.env.REDIS_CLUSTER_NODES?.trim());
}

/** The nodes of a `cluster:host:port,…` address; undefined for a plain Redis URL. */
export function clusterNodes(url: string): Array<{ host: string; port: number }> | undefined {
  if (!url.startsWith(CLUSTER_SCHEME)) return undefined;
  return url
    .slice(CLUSTER_SCHEME.length)
    .split(',')
    .map((node) => node.trim())
    .filter(Boolean)
    .map((node) => {
      const match = /^(.+):(\d+)$/.exec(node);
      if (!match) throw new Error(`REDIS_CLUSTER_NODES: "${node}" is not host:port (give them as host:port,host:port,…)`);
      return { host: match[1]!, port: Number(match[2]) };
    });
}

/** Where a Redis is, for messages: host:port or the cluster's nodes, never the password a URL may carry. */
export function redisAddress(url: string): string {
  if (url.startsWith(CLUSTER_SCHEME)) return `the cluster ${url.slice(CLUSTER_SCHEME.length)}`;
  try {
    return new URL(url).host;
  } catch {
    return 'the configured address';
  }
}

/** The URL as it may be shown: `redis://:pw@host:port` as `redis://host:port` (a cluster's nodes as they are). */
export function shownRedisUrl(url: string): string {
  if (url.startsWith(CLUSTER_SCHEME)) return url;
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString().replace(/^redis(s?):\/\/@/, 'redis$1://');
  } catch {
    return 'the configured address';
  }
}

/** A Redis address must be a redis:// or rediss:// URL: anything else would read as a Redis that does not answer. */
export function checkRedisUrl(url: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:')
    throw new Error(`"${url}" is not a Redis URL: set REDIS_URL to one such as redis://127.0.0.1:6379 (rediss:// for TLS).`);
}
