import { redisCommandsBenchmark } from '../redisCommands.js';
import type { BenchSection, Figure } from '../section.js';

/** Redis commands a job, a turn and a second waited for. */
export const redisSection: BenchSection = {
  name: 'redis',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('Redis commands per job', () => redisCommandsBenchmark({ jobs: quick ? 8 : 32 }));
    details.redis = result;
    const top = Object.entries(result.by_command)
      .slice(0, 6)
      .map(([name, calls]) => `${name} ${calls}`)
      .join(', ');
    figures.push({
      key: 'redis_commands_per_job',
      value: result.commands_per_job,
      reference: { what: 'redis-benchmark SET ops/s, same server', value: result.reference.set_ops_per_s },
      note: `${result.turns_high}-turn jobs on a private redis-server: ${result.commands_fixed_per_job} a job + ${result.commands_per_turn} a turn + ${result.commands_per_agent_second} a second waiting on the model; ${result.client_commands_per_job} sent by clients; Redis CPU ${result.redis_cpu_ms_per_job} ms a job (${result.redis_cpu_ms_per_turn} a turn, ${result.redis_cpu_ms_per_agent_second} a second waiting; ${result.idle_redis_cpu_ms_per_s} a second idle, subtracted); most: ${top}`,
    });

    return { figures, details };
  },
};
