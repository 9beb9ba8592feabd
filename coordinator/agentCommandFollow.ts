import type { Redis } from 'ioredis';
import type { AgentEvent } from '../shared/core/events/agentEvent.js';
import { followRunEvents } from '../shared/infra/board/runEventFollower.js';
import type { Keys } from '../shared/infra/redis/keys.js';
import { connectRedis } from '../shared/infra/redis/redisConnection.js';
import { TerminalAsks } from './asks/terminalAsks.js';
import { eventLine } from './eventLine.js';
import type { OrcaServices } from './services.js';

/**
 * `orca agent` without --json: the agent's events as lines on stderr as they come, and its
 * permission requests asked here when a person is at the terminal (shown otherwise). A module of
 * its own, loaded only then: with --json nothing is followed, and no connection is opened for it.
 */
export class AgentFollower {
  private readonly follower: Redis;
  private readonly following = new AbortController();
  readonly asks: TerminalAsks;
  private followed?: Promise<string>;

  constructor(
    private readonly services: OrcaServices,
    private readonly runId: string,
  ) {
    this.follower = connectRedis(services.redisService.url);
    this.asks = new TerminalAsks({
      redis: services.redis,
      keys: services.keys,
      runId,
      write: (line) => process.stderr.write(`${line}\n`),
      interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    });
  }

  /** Starts printing the run's agent events (from the stream's start: nothing before is missed). */
  start(): void {
    this.followed = followAgent(this.follower, this.services.keys, this.runId, this.asks, this.following.signal);
  }

  /** Stops following once what was published is printed. */
  async stop(): Promise<void> {
    this.following.abort();
    await this.followed;
  }

  close(): void {
    this.asks.close();
    this.following.abort();
    this.follower.disconnect();
  }
}

/** The agent's events as lines on stderr, as they come, with its permission requests asked or shown. */
function followAgent(follower: Redis, keys: Keys, runId: string, asks: TerminalAsks, signal: AbortSignal): Promise<string> {
  return followRunEvents(
    follower,
    keys,
    runId,
    (entry) => {
      asks.onEntry(entry);
      if (entry.source !== 'agent') return;
      const line = eventLine(entry.event as AgentEvent);
      if (line) asks.print(line);
    },
    signal,
  );
}
