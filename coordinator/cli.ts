#!/usr/bin/env node
import { Command } from 'commander';
import { z } from 'zod';
import { commandMark, traceCommand } from '../shared/core/runtime/commandTrace.js';
import { packageVersion } from './packageVersion.js';
import { userFolder } from './userFolder.js';

/*
 * The command table: each command's arguments and options are in coordinator/cli/<name>Cli.ts,
 * and each command's work in a module its action imports when it runs, so that a command loads
 * only what it uses (`orca run` says its run id without the board, the language servers or MCP:
 * docs/benchmarks.md, cli_to_run_id_ms). The build then bundles this entry and what it imports
 * into one script run with V8's code cache (scripts/bundle-cli.mjs): each lazy import initialised
 * when imported, each module's import.meta.url still its own file's, so prompts and scripts are
 * found beside it as in the tsc tree. No top-level await: the bundle is CommonJS.
 */

// A command parses each of its schemas a few times: zod's compiled fast path (a `new Function` per
// object schema at its first parse) costs more to make than it saves (docs/benchmarks.md).
z.config({ jitless: true });

// Through `npm run orca -- …`, the user's folder, not orca's checkout, is the current folder (userFolder.ts).
process.chdir(userFolder());

/** `orca`: the command line (docs/cli.md). Exit codes: 0 pass, 1 fail, 2 bad input, 130 aborted. */
const program = new Command('orca')
  .description('A team of coding agents on one repository: each in its own git worktree, on a Redis queue.')
  .version(packageVersion(), '-V, --version', "print orca's version")
  .exitOverride()
  // A bad flag or argument is one line naming it, not the whole help (the catch below prints it).
  .configureOutput({ outputError: () => {} });

/**
 * Each command's options module, by the names it adds, in the order `orca --help` lists them. A
 * command line that names one of them loads that module alone (`orca agent` spends no CPU on the
 * other ten: about 18 ms at load 20); anything else (`--help`, `help`, a misspelt command) loads
 * them all, so the help and commander's "did you mean" still see every command.
 */
type AddCommands = (program: Command) => void;
const COMMANDS: Array<{ names: string[]; load: () => Promise<AddCommands> }> = [
  { names: ['run'], load: async () => (await import('./cli/runCli.js')).addRunCommand },
  { names: ['approve', 'reject'], load: async () => (await import('./cli/approvalCli.js')).addApprovalCommands },
  { names: ['resume'], load: async () => (await import('./cli/resumeCli.js')).addResumeCommand },
  { names: ['agent'], load: async () => (await import('./cli/agentCli.js')).addAgentCommand },
  { names: ['allow', 'deny'], load: async () => (await import('./cli/answerCli.js')).addAnswerCommands },
  {
    names: ['worker'],
    load: async () => {
      const { addWorkerCommand } = await import('./cli/workerCli.js');
      return (program) =>
        addWorkerCommand(program, async (options) => (await import('../workers/workerProcess.js')).runWorkerProcess(options));
    },
  },
  { names: ['prompt'], load: async () => (await import('./cli/promptCli.js')).addPromptCommand },
  { names: ['status', 'board', 'serve'], load: async () => (await import('./cli/boardCli.js')).addBoardCommands },
  { names: ['abort'], load: async () => (await import('./cli/abortCli.js')).addAbortCommand },
  { names: ['clean'], load: async () => (await import('./cli/cleanCli.js')).addCleanCommand },
  { names: ['memory'], load: async () => (await import('./cli/memoryCli.js')).addMemoryCommands },
];

if (process.argv.length <= 2) {
  process.stderr.write('orca: name a command, e.g. orca run "TASK" (orca --help lists them).\n');
  process.exit(2);
}

const named = COMMANDS.find(({ names }) => names.includes(process.argv[2] ?? ''));
// ORCA_COMMAND_TRACE: each step's time, for measuring a command (docs/benchmarks.md); nothing without it.
traceCommand(process.argv[2] ?? '');
Promise.all((named ? [named] : COMMANDS).map(({ load }) => load()))
  .then((adds) => {
    for (const add of adds) add(program);
    commandMark('command_table');
    return program.parseAsync(process.argv);
  })
  .catch((error: unknown) => {
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
