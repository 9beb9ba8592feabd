#!/usr/bin/env node
import { Command } from 'commander';
import { addAbortCommand } from './cli/abortCli.js';
import { addAgentCommand } from './cli/agentCli.js';
import { addAnswerCommands } from './cli/answerCli.js';
import { addApprovalCommands } from './cli/approvalCli.js';
import { addBoardCommands } from './cli/boardCli.js';
import { addCleanCommand } from './cli/cleanCli.js';
import { addMemoryCommands } from './cli/memoryCli.js';
import { addPromptCommand } from './cli/promptCli.js';
import { addResumeCommand } from './cli/resumeCli.js';
import { addRunCommand } from './cli/runCli.js';
import { addWorkerCommand } from './cli/workerCli.js';
import { packageVersion } from './packageVersion.js';
import { userFolder } from './userFolder.js';

/*
 * The command table: each command's arguments and options are in coordinator/cli/<name>Cli.ts,
 * and each command's work in a module its action imports when it runs, so that a command loads
 * only what it uses (`orca run` says its run id without the board, the language servers or MCP:
 * docs/benchmarks.md, cli_to_run_id_ms). Lazy imports, not a bundled entry: orca's modules find
 * their prompts and scripts beside them (import.meta.url, packageRoot()), which a bundle would
 * move; and with the imports lazy, what `orca run` loads before its id is 75 small files and three
 * packages (commander, zod, get-port), where it was 331 files and sixteen packages (bullmq,
 * ioredis, proxy-chain, gray-matter, piscina, …).
 */

// Through `npm run orca -- …`, the user's folder, not orca's checkout, is the current folder (userFolder.ts).
process.chdir(userFolder());

/** `orca`: the command line (docs/cli.md). Exit codes: 0 pass, 1 fail, 2 bad input, 130 aborted. */
const program = new Command('orca')
  .description('A team of coding agents on one repository: each in its own git worktree, on a Redis queue.')
  .version(packageVersion(), '-V, --version', "print orca's version")
  .exitOverride()
  // A bad flag or argument is one line naming it, not the whole help (the catch below prints it).
  .configureOutput({ outputError: () => {} });

// In the order `orca --help` lists them.
addRunCommand(program);
addApprovalCommands(program);
addResumeCommand(program);
addAgentCommand(program);
addAnswerCommands(program);
addWorkerCommand(program, async (options) => (await import('../workers/workerProcess.js')).runWorkerProcess(options));
addPromptCommand(program);
addBoardCommands(program);
addAbortCommand(program);
addCleanCommand(program);
addMemoryCommands(program);

if (process.argv.length <= 2) {
  process.stderr.write('orca: name a command, e.g. orca run "TASK" (orca --help lists them).\n');
  process.exit(2);
}

program.parseAsync(process.argv).catch((error: unknown) => {
  const code = (error as { code?: string }).code;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exit(0);
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && code.startsWith('commander.')) {
    process.stderr.write(`orca: ${message.replace(/^error: /, '')} (${helpFor(process.argv.slice(2))} says more)\n`);
    process.exit(2);
  }
  process.stderr.write(`orca: ${message}\n`);
  process.exit(2);
});

/** The help that covers the words given: `orca memory add --help` for `orca memory add --bad`. */
function helpFor(words: string[]): string {
  const path: string[] = [];
  let command: Command = program;
  for (const word of words) {
    const sub = command.commands.find((one) => one.name() === word);
    if (!sub) break;
    path.push(word);
    command = sub;
  }
  return ['orca', ...path, '--help'].join(' ');
}
