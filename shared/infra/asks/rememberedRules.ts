import type { Redis } from 'ioredis';
import { AnswerSchema } from '../board/boardSchemas.js';
import type { Keys } from '../redis/keys.js';

/**
 * The allow rules a run's people asked to remember (an `a` at the terminal, allow for the run on
 * the board or with `orca allow --for-run`): only from answers that counted, each group named by
 * who gave it. They answer the run's later requests that they cover, in every agent.
 */
export async function rememberedRules(redis: Redis, keys: Keys, runId: string): Promise<Array<{ rules: string[]; source: string }>> {
  const values = await redis.hvals(keys.runAnswers(runId));
  return values
    .map((raw) => AnswerSchema.parse(JSON.parse(raw)))
    .filter((answer) => answer.allowed && answer.remember.length > 0)
    .sort((a, b) => a.at - b.at)
    .map((answer) => ({ rules: answer.remember, source: `allowed for the run by ${answer.by} (${answer.via})` }));
}
