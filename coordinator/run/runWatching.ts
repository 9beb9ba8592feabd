import { connectRedis } from '../../shared/infra/redis/redisConnection.js';
import { TerminalAsks } from '../asks/terminalAsks.js';
import type { OrcaServices } from '../services.js';
import type { RunRecorder } from './runRecorder.js';
import type { RunSettings } from './runSettings.js';
import { RunWatch } from './runWatch.js';

/** A run's watch on its own stream, with the terminal its agents' permission requests are asked at. */
export interface RunWatching {
  watch: RunWatch;
  close(): Promise<void>;
}

/**
 * Starts watching the run: its budgets (`onBudget` stops it), its lines for the person watching,
 * and its agents' permission requests, asked here when a person is at the terminal and shown
 * (with how to answer) otherwise.
 */
export function watchRun(
  services: OrcaServices,
  recorder: RunRecorder,
  settings: RunSettings,
  onBudget: (reason: string) => void,
): RunWatching {
  const connection = connectRedis(services.redisService.url);
  const asks = settings.say
    ? new TerminalAsks({
        redis: services.redis,
        keys: services.keys,
        runId: recorder.runId,
        write: settings.say,
        interactive: settings.tty && process.stdin.isTTY === true,
      })
    : undefined;
  const watch = new RunWatch(connection, services.keys, recorder.state, {
    budgets: settings.budgets,
    onBudget,
    print: settings.say,
    tty: settings.tty,
    asks,
  });
  watch.start();
  return {
    watch,
    close: async () => {
      await watch.close();
      asks?.close();
      connection.disconnect();
    },
  };
}
