import type { Redis } from 'ioredis';
import type { Keys } from '../redis/keys.js';

/**
 * Aborting a run is announced twice: a set member that any worker can check before it starts a
 * job (so a worker that was down still learns), and a pub/sub message that reaches running
 * workers at once.
 */
export async function publishAbort(redis: Redis, keys: Keys, runId: string, reason: string): Promise<void> {
  await redis.sadd(keys.aborted(), runId);
  await redis.publish(keys.abortChannel(), JSON.stringify({ run_id: runId, reason }));
}

export async function isAborted(redis: Redis, keys: Keys, runId: string): Promise<boolean> {
  return (await redis.sismember(keys.aborted(), runId)) === 1;
}

/** Calls `onAbort` for each abort published; resolves once subscribed. Uses its own connection. */
export async function subscribeAborts(subscriber: Redis, keys: Keys, onAbort: (runId: string, reason: string) => void): Promise<void> {
  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== keys.abortChannel()) return;
    let parsed: { run_id?: unknown; reason?: unknown };
    try {
      parsed = JSON.parse(message) as typeof parsed;
    } catch {
      return; // Not ours: only orca publishes on this channel, in this shape.
    }
    if (typeof parsed.run_id === 'string') onAbort(parsed.run_id, typeof parsed.reason === 'string' ? parsed.reason : 'aborted');
  });
  await subscriber.subscribe(keys.abortChannel());
}
