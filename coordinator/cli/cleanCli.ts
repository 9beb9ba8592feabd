import { type Command, Option } from 'commander';
import { CLEAN_RULES, parseAge } from '../cleanOptions.js';
import { collect } from './cliOptions.js';

/** `orca clean`: what finished or dead runs left, removed (cleanCommand.ts). */
export function addCleanCommand(program: Command): void {
  program
    .command('clean')
    .description(
      "remove what this installation's finished or dead runs left in this repository; save uncommitted work first, keep results until merged",
    )
    .addOption(
      new Option('--older-than <age>', 'a run not known to have ended is dead after this long idle (30m, 12h, 7d)')
        .argParser(parseAge)
        .default(parseAge('24h'), '24h'),
    )
    .option('--repo <dir>', 'clean this repository instead of the one you are in (repeatable)', collect, [])
    .option('--all', 'clean every repository orca knows (listed first)', false)
    .option('--results', "also remove runs' results (integration branches) not merged yet", false)
    .option('--wip', 'also remove saved work in progress (refs/orca/wip/<run>/<task>)', false)
    .option('--keep-branches', 'leave branches alone', false)
    .option('--dry-run', 'print what would be saved and removed, change nothing', false)
    .addHelpText('after', CLEAN_RULES)
    .action(
      async (options: {
        olderThan: number;
        repo: string[];
        all: boolean;
        results: boolean;
        wip: boolean;
        keepBranches: boolean;
        dryRun: boolean;
      }) => {
        process.exitCode = await (await import('../cleanCommand.js')).cleanCommand({
          olderThanMs: options.olderThan,
          repos: options.repo,
          all: options.all,
          results: options.results,
          wip: options.wip,
          keepBranches: options.keepBranches,
          dryRun: options.dryRun,
          cwd: process.cwd(),
        });
      },
    );
}
