import { Redis, type RedisOptions } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export function redisUrl(): string {
  return process.env.REDIS_URL || DEFAULT_REDIS_URL;
}

/**
 * A Redis connection for BullMQ and orca's own keys. `maxRetriesPerRequest: null` is what BullMQ
 * workers require (a blocking command must survive reconnects); reconnects back off and go on
 * for as long as the process lives, so a Redis restart mid-run is ridden out.
 */
export function connectRedis(url = redisUrl(), options: RedisOptions = {}): Redis {
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
  let where: string;
  try {
    where = new URL(url).host; // never the password a URL may carry
  } catch {
    where = 'the configured address';
  }
  client.on('error', (error: Error) => {
    if (outages.has(where)) return;
    outages.add(where);
    process.stderr.write(`orca: Redis at ${where} does not answer (${error.message}); reconnecting\n`);
  });
  client.on('ready', () => {
    if (outages.delete(where)) process.stderr.write(`orca: Redis at ${where} answers again\n`);
  });
}

/** Resolves when Redis answers PING, or rejects with a message saying how to start it. */
export async function pingRedis(url = redisUrl(), timeoutMs = 2_000): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true, connectTimeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Redis does not answer at ${url} (${detail}): start one (\`redis-server\`, or \`docker compose up -d redis\`) or set REDIS_URL.`,
    );
  } finally {
    client.disconnect();
  }
}
