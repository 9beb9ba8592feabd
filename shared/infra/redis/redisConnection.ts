import { Cluster, Redis, type RedisOptions } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** How a Redis Cluster is named where a URL is expected: `cluster:host:port,host:port`. */
const CLUSTER_SCHEME = 'cluster:';

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
function clusterNodes(url: string): Array<{ host: string; port: number }> | undefined {
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

/**
 * A connection to a Redis Cluster through ioredis' Cluster. Typed as a Redis: orca and BullMQ use
 * the commands both share, and every key orca writes carries one hash tag, so no command, script
 * or transaction crosses slots.
 */
function connectCluster(nodes: Array<{ host: string; port: number }>, options: RedisOptions): Redis {
  const cluster = new Cluster(nodes, {
    clusterRetryStrategy: (times) => Math.min(50 * times, 2_000),
    enableReadyCheck: true,
    redisOptions: { maxRetriesPerRequest: null, ...options },
  });
  return cluster as unknown as Redis;
}

/**
 * A Redis connection for BullMQ and orca's own keys. `maxRetriesPerRequest: null` is what BullMQ
 * workers require (a blocking command must survive reconnects); reconnects back off and go on
 * for as long as the process lives, so a Redis restart mid-run is ridden out.
 */
export function connectRedis(url = redisUrl(), options: RedisOptions = {}): Redis {
  const nodes = clusterNodes(url);
  if (nodes) {
    const cluster = connectCluster(nodes, options);
    reportOutages(cluster, url);
    return cluster;
  }
  const client = new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(50 * times, 2_000),
    lazyConnect: false,
    ...options,
  });
  reportOutages(client, url);
  return client;
}

/** Outages already reported, by address: a restart is one line, not one per connection and retry. */
const outages = new Set<string>();

/**
 * While Redis is away every connection errors on each reconnect attempt; unheard, ioredis prints
 * each one with its stack. One line when the address stops answering, one when it answers again.
 */
function reportOutages(client: Redis, url: string): void {
  const where = redisAddress(url);
  client.on('error', (error: Error) => {
    if (outages.has(where)) return;
    outages.add(where);
    process.stderr.write(`orca: Redis at ${where} does not answer (${error.message}); reconnecting\n`);
  });
  client.on('ready', () => {
    if (outages.delete(where)) process.stderr.write(`orca: Redis at ${where} answers again\n`);
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

/** Resolves when Redis answers PING, or rejects with a message saying how to start it. */
export async function pingRedis(url = redisUrl(), timeoutMs = 2_000): Promise<void> {
  const nodes = clusterNodes(url);
  if (nodes) return pingCluster(nodes, timeoutMs);
  const client = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true, connectTimeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Redis does not answer at ${shownRedisUrl(url)} (${detail}): start one (\`redis-server\`, or \`docker compose up -d redis\`) or set REDIS_URL.`,
    );
  } finally {
    client.disconnect();
  }
}

async function pingCluster(nodes: Array<{ host: string; port: number }>, timeoutMs: number): Promise<void> {
  const cluster = new Cluster(nodes, {
    lazyConnect: true,
    clusterRetryStrategy: () => null,
    redisOptions: { maxRetriesPerRequest: 0, connectTimeout: timeoutMs },
  });
  cluster.on('error', () => {});
  try {
    await cluster.connect();
    await cluster.ping();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const named = nodes.map((node) => `${node.host}:${node.port}`).join(',');
    throw new Error(`the Redis Cluster at ${named} does not answer (${detail}): check REDIS_CLUSTER_NODES, or unset it to use REDIS_URL.`);
  } finally {
    cluster.disconnect();
  }
}

/** Every master of a cluster connection (one client for a plain Redis): what a SCAN must visit. */
export function scanTargets(redis: Redis): Redis[] {
  return redis instanceof Cluster ? (redis as Cluster).nodes('master') : [redis];
}
