import type { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { AgentQueue } from '../shared/infra/queue/agentQueue.js';
import { Keys } from '../shared/infra/redis/keys.js';
import { connectRedis } from '../shared/infra/redis/redisConnection.js';
import { JobWaiter } from './jobWaiter.js';
import { LocalWorkers } from './localWorkers.js';
import { ensureRedis, type RedisService } from './redisService.js';

export interface ServicesOptions {
  /** Local worker processes to fork (0 when workers elsewhere take the jobs). */
  workers: number;
  concurrency?: number;
  lockDurationMs?: number;
  env?: NodeJS.ProcessEnv;
  /** The command's `--sandbox`, handed to the local workers as their ORCA_SANDBOX. */
  sandbox?: SandboxMode;
}

/**
 * What a coordinator-side command stands on: Redis (found, or started privately), the agent
 * queue, job completion events, and the local worker processes it forked. Closed in one call.
 */
export class OrcaServices {
  private constructor(
    readonly redisService: RedisService,
    readonly redis: Redis,
    readonly keys: Keys,
    readonly home: OrcaHome,
    readonly queue: AgentQueue,
    readonly events: QueueEvents,
    private readonly eventsConnection: Redis,
    readonly waiter: JobWaiter,
    readonly workers: LocalWorkers,
  ) {}

  static async open(options: ServicesOptions): Promise<OrcaServices> {
    const env = options.env ?? process.env;
    const home = new OrcaHome(env.ORCA_HOME || undefined).ensureWritable();
    const redisService = await ensureRedis(env, home);
    const redis = connectRedis(redisService.url);
    const keys = new Keys(env.ORCA_PREFIX || undefined);
    const queue = new AgentQueue(redis, keys);
    const eventsConnection = connectRedis(redisService.url);
    // From the queue's newest event: no job's ending is missed before the first read or across a reconnect.
    const events = queue.events(eventsConnection, await queue.lastEventId());
    await events.waitUntilReady();
    const workers = new LocalWorkers();
    const services = new OrcaServices(
      redisService,
      redis,
      keys,
      home,
      queue,
      events,
      eventsConnection,
      new JobWaiter(queue, events),
      workers,
    );
    if (options.workers > 0) {
      try {
        await workers.start(options.workers, {
          concurrency: options.concurrency ?? 2,
          lockDurationMs: options.lockDurationMs,
          // A private Redis's URL holds its password: it goes over IPC, never in an environment.
          ...(redisService.private ? { redisUrl: redisService.url } : {}),
          env: {
            ...env,
            ...(redisService.private ? {} : { REDIS_URL: redisService.url }),
            ORCA_HOME: home.root,
            ORCA_PREFIX: keys.prefix,
            ...(options.sandbox ? { ORCA_SANDBOX: options.sandbox } : {}),
          },
        });
      } catch (error) {
        await services.close();
        throw error;
      }
    }
    return services;
  }

  async close(): Promise<void> {
    await this.workers.stop();
    await this.events.close();
    await this.queue.close();
    this.eventsConnection.disconnect();
    this.redis.disconnect();
    await this.redisService.stop();
  }
}
