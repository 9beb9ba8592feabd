import type { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { commandMark } from '../shared/core/runtime/commandTrace.js';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import type { AgentQueue } from '../shared/infra/queue/agentQueue.js';
import { Keys } from '../shared/infra/redis/keys.js';
import type { JobWaiter } from './jobWaiter.js';
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

/** `OrcaServices.begin`'s result: Redis and the workers, the queue still to make (`finish`), or all of it closed. */
export interface ServicesBegun {
  finish(): Promise<OrcaServices>;
  close(): Promise<void>;
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
    return (await OrcaServices.begin(options)).finish();
  }

  /**
   * The part of `open` a run's id waits for: Redis answered (found, or started privately) and the
   * local workers ready. `finish` then makes the queue and its events, which need bullmq, the
   * largest module orca loads: `orca run` says its id between the two (runCommand.ts).
   */
  static async begin(options: ServicesOptions): Promise<ServicesBegun> {
    const env = options.env ?? process.env;
    const home = new OrcaHome(env.ORCA_HOME || undefined).ensureWritable();
    const redisService = await ensureRedis(env, home);
    commandMark('redis_found');
    const keys = new Keys(env.ORCA_PREFIX || undefined);
    const workers = new LocalWorkers();
    const begun: ServicesBegun = {
      finish: async () => {
        try {
          return await OrcaServices.withQueue(redisService, keys, home, workers);
        } catch (error) {
          await begun.close();
          throw error;
        }
      },
      close: async () => {
        await workers.stop();
        await redisService.stop();
      },
    };
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
        await begun.close();
        throw error;
      }
    }
    return begun;
  }

  private static async withQueue(redisService: RedisService, keys: Keys, home: OrcaHome, workers: LocalWorkers): Promise<OrcaServices> {
    const [{ AgentQueue }, { JobWaiter }, { connectRedis }] = await Promise.all([
      import('../shared/infra/queue/agentQueue.js'),
      import('./jobWaiter.js'),
      import('../shared/infra/redis/redisConnection.js'),
    ]);
    commandMark('queue_modules');
    const redis = connectRedis(redisService.url);
    const queue = new AgentQueue(redis, keys);
    const eventsConnection = connectRedis(redisService.url);
    let events: QueueEvents | undefined;
    try {
      // From the queue's newest event: no job's ending is missed before the first read or across a reconnect.
      events = queue.events(eventsConnection, await queue.lastEventId());
      await events.waitUntilReady();
    } catch (error) {
      await events?.close();
      await queue.close();
      eventsConnection.disconnect();
      redis.disconnect();
      throw error;
    }
    return new OrcaServices(redisService, redis, keys, home, queue, events, eventsConnection, new JobWaiter(queue, events), workers);
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
