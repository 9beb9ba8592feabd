import type { Command } from 'commander';
import { isSlug } from '../../shared/core/git/slug.js';
import { UserError } from '../repoCheck.js';
import { askTimeoutOption, atTerminal, positiveInt } from './cliOptions.js';

/** `orca resume RUN`: a run whose coordinator died, carried on (resumeCommand.ts). */
export function addResumeCommand(program: Command): void {
  program
    .command('resume')
    .description('carry on a run whose coordinator died, from Redis and git: finished tasks are not redone')
    .argument('<run>', 'the run id')
    .option('--workers <n>', 'local worker processes to start', positiveInt, 2)
    .option('--concurrency <n>', 'agents each local worker runs at once', positiveInt, 2)
    .option('--no-local-workers', 'start no workers here: workers elsewhere take the jobs')
    .option('--json', 'print one JSON object when the run ends', false)
    .addOption(askTimeoutOption().default(undefined, "the run's own --ask-timeout, else as for orca run"))
    .action(async (run: string, options) => {
      if (!isSlug(run)) throw new UserError(`"${run}" is not a run id.`);
      process.exitCode = await (await import('../resumeCommand.js')).resumeCommand(run, {
        json: options.json,
        workers: options.workers,
        concurrency: options.concurrency,
        localWorkers: options.localWorkers,
        askTimeout: options.askTimeout,
        terminal: atTerminal(options.json),
      });
    });
}
