import { Command, InvalidArgumentError } from 'commander';
import { runWorkerProcess } from './workerProcess.js';

/** Entry point of a worker process forked by `orca run` / `orca agent` (or started by hand). */
const program = new Command('orca-worker')
  .option('--concurrency <n>', 'agent jobs at once', positiveInt, 2)
  .option('--lock-duration <ms>', 'job lock duration in ms', positiveInt)
  .action(async (options: { concurrency: number; lockDuration?: number }) => {
    await runWorkerProcess({ concurrency: options.concurrency, lockDurationMs: options.lockDuration });
  });

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`orca worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
