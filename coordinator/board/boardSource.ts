import type { Redis } from 'ioredis';
import { isSlug } from '../../shared/core/git/slug.js';
import { latestRunId, readRunBoard } from '../../shared/infra/board/readBoard.js';
import { Keys } from '../../shared/infra/redis/keys.js';
import { connectRedis, pingRedis, shownRedisUrl } from '../../shared/infra/redis/redisConnection.js';
import { findOrcaRedis } from '../redisService.js';
import { UserError } from '../repoCheck.js';
import { type BoardWithResult, withResultState } from './runResultState.js';

/**
 * Where the board commands read: the Redis the runs were recorded on (REDIS_URL, never a private
 * one started for the occasion, which would be empty) under ORCA_PREFIX.
 */
export class BoardSource {
  private readonly connections: Redis[] = [];

  private constructor(
    readonly url: string,
    readonly redis: Redis,
    readonly keys: Keys,
  ) {
    this.connections.push(redis);
  }

  static async open(options: { url?: string; keys?: Keys; run?: string } = {}): Promise<BoardSource> {
    const url = options.url ?? (await findOrcaRedis(options.run));
    await pingRedis(url);
    return new BoardSource(url, connectRedis(url), options.keys ?? new Keys());
  }

  /** Another connection, for a blocking read (XREAD BLOCK) that must not hold up the others. */
  connection(): Redis {
    const connection = connectRedis(this.url);
    this.connections.push(connection);
    return connection;
  }

  release(connection: Redis): void {
    const index = this.connections.indexOf(connection);
    if (index >= 0) this.connections.splice(index, 1);
    connection.disconnect();
  }

  /** The run named, or the latest when none is; a run Redis does not know is the user's error. */
  async runId(run?: string): Promise<string> {
    if (run !== undefined) {
      if (!isSlug(run)) throw new UserError(`"${run}" is not a run id (it looks like r20260101-120000-ab12).`);
      return run;
    }
    const latest = await latestRunId(this.redis, this.keys);
    if (!latest)
      throw new UserError(
        `no runs are recorded on ${shownRedisUrl(this.url)} (prefix ${this.keys.prefix}): start one with orca run or orca agent.`,
      );
    return latest;
  }

  /** The run's board, with where its result stands in git once it ended (runResultState.ts). */
  async board(runId: string): Promise<BoardWithResult> {
    const board = await readRunBoard(this.redis, this.keys, runId);
    if (!board)
      throw new UserError(
        `run ${runId} is not recorded on ${shownRedisUrl(this.url)} (prefix ${this.keys.prefix}): check the id, or run orca status for the latest.`,
      );
    return withResultState(board);
  }

  close(): void {
    for (const connection of this.connections.splice(0)) connection.disconnect();
  }
}
