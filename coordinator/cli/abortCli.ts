import type { Command } from 'commander';

/** `orca abort RUN`: a run cancelled everywhere (runControl.ts). */
export function addAbortCommand(program: Command): void {
  program
    .command('abort')
    .description('cancel a run everywhere: its agents stop, their shells are killed, worktrees are kept')
    .argument('<run>', 'the run id (printed as "orca: run <id>")')
    .action(async (run: string) => {
      process.exitCode = await (await import('../runControl.js')).abortCommand(run);
    });
}
