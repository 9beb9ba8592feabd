import { Command, InvalidArgumentError } from 'commander';
import { parseSandboxMode, type SandboxMode, sandboxModeFromEnv } from '../shared/core/runtime/sandboxMode.js';
import { dropWorkerProcessEnv } from '../shared/core/runtime/workerNodeFlags.js';
import { runWorkerProcess } from './workerProcess.js';

// Before anything starts a child: what orca set for this process's allocator is not theirs to inherit.
dropWorkerProcessEnv();

/** Entry point of a worker process forked by `orca run` / `orca agent` (or started by hand). */
const program = new Command('orca-worker')
  .option('--concurrency <n>', 'agent jobs at once', positiveInt, 2)
  .option('--lock-duration <ms>', 'job lock duration in ms', positiveInt)
  .option('--sandbox <mode>', 'auto, required or off (default ORCA_SANDBOX, else auto)', sandboxMode)
  .action(async (options: { concurrency: number; lockDuration?: number; sandbox?: SandboxMode }) => {
    await runWorkerProcess({
      concurrency: options.concurrency,
      lockDurationMs: options.lockDuration,
      sandbox: options.sandbox ?? sandboxModeFromEnv(),
    });
  });

function sandboxMode(value: string): SandboxMode {
  const parsed = parseSandboxMode(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.problem);
  return parsed.mode;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`orca worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
