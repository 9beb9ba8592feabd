import { type Command, Option } from 'commander';
import { port } from './cliOptions.js';

/** `orca status`, `orca board` and `orca serve`: a run's task board, as a snapshot, live in the terminal, and on the web (board/). */
export function addBoardCommands(program: Command): void {
  program
    .command('status')
    .description("a snapshot of a run's task board (the latest run when none is named)")
    .argument('[run]', 'the run id')
    .option('--json', 'print the board as one JSON object', false)
    .action(async (run: string | undefined, options: { json: boolean }) => {
      process.exitCode = await (await import('../board/statusCommand.js')).statusCommand(run, options);
    });

  program
    .command('board')
    .description("the run's task board, live in the terminal: q quits, a aborts the run (one snapshot without a terminal)")
    .argument('[run]', 'the run id (default: the latest run)')
    .action(async (run: string | undefined) => {
      process.exitCode = await (await import('../board/boardCommand.js')).boardCommand(run);
    });

  program
    .command('serve')
    .description('the web board: runs, task DAGs, transcripts, diffs, evidence, live; bull-board under /queues')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').argParser(port).default(4280))
    .option('--host <host>', 'address to bind; anything but loopback needs a token', '127.0.0.1')
    .option('--token <token>', 'required of every request (default ORCA_BOARD_TOKEN)')
    .action(async (options: { port: number; host: string; token?: string }) => {
      process.exitCode = await (await import('../board/web/serveCommand.js')).serveCommand(options);
    });
}
