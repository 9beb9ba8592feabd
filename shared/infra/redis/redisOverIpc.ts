import { z } from 'zod';

/**
 * How a coordinator hands the local workers it forks a Redis URL that holds a password (the Redis
 * orca started itself): over the IPC channel, never in an environment variable, which agent code
 * started by the worker could inherit or read from /proc. The variable below only says a message
 * is coming (ORCA_REDIS_* never reaches agents: runtime/agentEnv.ts).
 */
export const REDIS_OVER_IPC_ENV = 'ORCA_REDIS_IPC';

export const RedisUrlMessageSchema = z.object({ type: z.literal('redis'), url: z.string().min(1) });
export type RedisUrlMessage = z.infer<typeof RedisUrlMessageSchema>;
/** What the worker sends once it listens: a message sent before would be lost. */
export const REDIS_URL_REQUEST = { type: 'redis?' } as const;

/**
 * In a worker forked with REDIS_OVER_IPC_ENV: asks its parent for the URL and resolves with it.
 * Undefined without the variable (the URL is REDIS_URL's, as for a worker started by hand).
 */
export async function redisUrlFromParent(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (env[REDIS_OVER_IPC_ENV] !== '1') return undefined;
  if (!process.send) throw new Error(`${REDIS_OVER_IPC_ENV} is set but this process has no IPC channel: unset it, or give REDIS_URL.`);
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      const parsed = RedisUrlMessageSchema.safeParse(message);
      if (!parsed.success) return; // another message: wait for ours
      process.off('message', onMessage);
      resolve(parsed.data.url);
    };
    process.on('message', onMessage);
    process.send?.(REDIS_URL_REQUEST);
    process.once('disconnect', () => reject(new Error('the parent went away before it sent the Redis URL')));
  });
}
