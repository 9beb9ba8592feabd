import { type Command, Option } from 'commander';
import type { SandboxMode } from '../../shared/core/runtime/sandboxMode.js';
import { sandboxChoice, sandboxOption } from '../sandboxOption.js';
import { positiveInt } from './cliOptions.js';

/** How the worker process is run (workers/workerProcess.ts), handed in by the CLI entry: the one place `coordinator/` reaches into `workers/`. */
export type RunWorkerProcess = (options: { concurrency: number; sandbox: SandboxMode }) => Promise<void>;

/** `orca worker`: a worker process taking agent jobs from Redis. */
export function addWorkerCommand(program: Command, runWorkerProcess: RunWorkerProcess): void {
  program
    .command('worker')
    .description('a worker process: takes agent jobs from Redis until stopped (SIGINT/SIGTERM)')
    .addOption(new Option('--concurrency <n>', 'agent jobs at once').argParser(positiveInt).default(2))
    .addOption(sandboxOption())
    .action(async (options: { concurrency: number; sandbox?: SandboxMode }) => {
      const { sandbox } = sandboxChoice(options.sandbox);
      // Loaded here, not with the command table: ioredis is a large module that most commands' start does not need.
      const { pingRedis, redisUrl } = await import('../../shared/infra/redis/redisConnection.js');
      await pingRedis(redisUrl());
      // Checked here, before a child is started for the worker, so the one line comes from `orca`.
      new (await import('../../shared/core/runtime/orcaHome.js')).OrcaHome().ensureWritable();
      const { hasWorkerNodeFlags, relaunchWorker } = await import('../workerRelaunch.js');
      // A worker wants V8 tuned for size (shared/core/runtime/workerNodeFlags.ts), which only a new process can get.
      if (!hasWorkerNodeFlags())
        process.exitCode = await relaunchWorker(['--concurrency', String(options.concurrency), '--sandbox', sandbox]);
      else await runWorkerProcess({ concurrency: options.concurrency, sandbox });
    });
}
