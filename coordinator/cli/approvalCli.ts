import type { Command } from 'commander';

/** `orca approve RUN` and `orca reject RUN`: the plan of a run started with --approve (runControl.ts). */
export function addApprovalCommands(program: Command): void {
  for (const [name, approved] of [
    ['approve', true],
    ['reject', false],
  ] as const) {
    program
      .command(name)
      .description(`${name} the plan of a run started with --approve`)
      .argument('<run>', 'the run id')
      .action(async (run: string) => {
        process.exitCode = await (await import('../runControl.js')).approvalCommand(run, approved);
      });
  }
}
