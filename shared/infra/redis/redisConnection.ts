import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { clusterNodes, redisAddress, redisUrl } from './redisUrl.js';

// Where a Redis is, and whether it answers, without ioredis (redisUrl.ts, redisPing.ts): said here too for the many that import them from here.
export { pingRedis } from './redisPing.js';
export { clusterMode, DEFAULT_REDIS_URL, redisAddress, redisUrl, shownRedisUrl } from './redisUrl.js';

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

/** Every master of a cluster connection (one client for a plain Redis): what a SCAN must visit. */
export function scanTargets(redis: Redis): Redis[] {
  return redis instanceof Cluster ? (redis as Cluster).nodes('master') : [redis];
}
