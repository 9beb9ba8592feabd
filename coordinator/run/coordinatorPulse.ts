import os from 'node:os';
import type { Redis } from 'ioredis';
import { processAlive } from '../../shared/core/runtime/processAlive.js';
import type { Keys } from '../../shared/infra/redis/keys.js';

/** How often a coordinator renews its key, and how long the key outlives a coordinator that died. */
const RENEW_MS = 5_000;
const EXPIRES_MS = 30_000;

/**
 * A run's coordinator says, from any host, that it is alive: a Redis key naming it
 * (`<host>:<pid>`) that expires unless renewed. `orca abort` reads it to know whether anyone will
 * end the run it aborts, or whether it must end it itself (orphanedRun.ts).
 */
export class CoordinatorPulse {
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {
    this.timer = setInterval(() => void this.beat().catch(() => {}), RENEW_MS);
    // The pulse never keeps the process alive: a coordinator that is done exits.
    this.timer.unref();
  }

  static async start(redis: Redis, keys: Keys, runId: string): Promise<CoordinatorPulse> {
    const pulse = new CoordinatorPulse(redis, keys.runCoordinator(runId));
    await pulse.beat();
    return pulse;
  }

  private async beat(): Promise<void> {
    await this.redis.set(this.key, `${os.hostname()}:${process.pid}`, 'PX', EXPIRES_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.del(this.key);
  }
}

/**
 * Whether a coordinator has said it is alive within the last EXPIRES_MS, and, when it runs on
 * this host, its process is still there (one that left at once, a second Ctrl-C, said nothing).
 */
export async function coordinatorAlive(redis: Redis, keys: Keys, runId: string): Promise<boolean> {
  const said = await redis.get(keys.runCoordinator(runId));
  if (said === null) return false;
  const [host, pid] = [said.slice(0, said.lastIndexOf(':')), Number(said.slice(said.lastIndexOf(':') + 1))];
  return host !== os.hostname() || processAlive(pid);
}
