import type { Command } from 'commander';
import { isSlug } from '../../shared/core/git/slug.js';
import { UserError } from '../repoCheck.js';

/** `orca allow RUN [REQUEST]` and `orca deny RUN [REQUEST]`: an agent's permission request answered (asks/answerCommand.ts). */
export function addAnswerCommands(program: Command): void {
  for (const [name, allowed] of [
    ['allow', true],
    ['deny', false],
  ] as const) {
    const command = program
      .command(name)
      .description(`${name} an agent's permission request, from any host (the run's only pending one when none is named)`)
      .argument('<run>', 'the run id')
      .argument('[request]', 'the request id (`orca status RUN` lists the pending ones)');
    if (allowed) command.option('--for-run', "also allow the request's suggested rules for the rest of the run", false);
    else command.option('--reason <text>', 'why, for the agent');
    command.action(async (run: string, request: string | undefined, options: { forRun?: boolean; reason?: string }) => {
      if (!isSlug(run)) throw new UserError(`"${run}" is not a run id.`);
      process.exitCode = await (await import('../asks/answerCommand.js')).answerCommand({
        run,
        request,
        allowed,
        forRun: options.forRun === true,
        reason: options.reason,
      });
    });
  }
}
