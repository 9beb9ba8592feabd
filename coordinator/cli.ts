#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseAgentOption } from '../shared/core/agents/agentChoice.js';
import { isSlug } from '../shared/core/git/slug.js';
import { EFFORT_LEVELS, type Effort, parseThinking } from '../shared/core/model/thinking.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { CHECK_NETWORKS, DEFAULT_CHECK_NETWORK } from '../shared/core/sandbox/checkNetwork.js';
import { pingRedis, redisUrl } from '../shared/infra/redis/redisConnection.js';
import { askWait, collectYesTo, parseAskTimeout } from './asks/askOptions.js';
import { CLEAN_RULES, parseAge } from './cleanOptions.js';
import { packageVersion } from './packageVersion.js';
import { UserError } from './repoCheck.js';
import { sandboxChoice, sandboxOption } from './sandboxOption.js';
import { userFolder } from './userFolder.js';

// Through `npm run orca -- …`, the user's folder, not orca's checkout, is the current folder (userFolder.ts).
process.chdir(userFolder());

/** `orca`: the command line (docs/cli.md). Exit codes: 0 pass, 1 fail, 2 bad input, 130 aborted. */
const program = new Command('orca')
  .description('A team of coding agents on one repository: each in its own git worktree, on a Redis queue.')
  .version(packageVersion(), '-V, --version', "print orca's version")
  .exitOverride()
  // A bad flag or argument is one line naming it, not the whole help (the catch below prints it).
  .configureOutput({ outputError: () => {} });

program
  .command('run')
  .description('one whole run: explore, plan, workers in their own worktrees, merge, integration verification')
  .argument('[task...]', 'what the team is to do, or a slash command and its arguments (/fix-issue 123)')
  .option('--repo <dir>', 'the repository', '.')
  .option('--base <ref>', 'the commit the run starts from (default HEAD)')
  .option('--workers <n>', 'local worker processes to start', positiveInt, 2)
  .option('--concurrency <n>', 'agents each local worker runs at once', positiveInt, 2)
  .option('--no-local-workers', 'start no workers here: workers elsewhere take the jobs')
  .addOption(shareOption())
  .option('--model <id>', 'model id or alias (sonnet, opus, haiku, fable, mythos); default ORCA_MODEL, else claude-sonnet-5-5')
  .option('--thinking <mode>', "adaptive, enabled:<budget tokens> or off; default: the model's (adaptive where it has it)", thinkingMode)
  .option('--effort <level>', "low, medium, high, xhigh or max; default: the model's", effortLevel)
  .option('--script <file>', 'run the Scripted model from this file instead of an LLM')
  .option('--check <cmd>', "an integration check (repeatable); default: the repository's own tests", collect, [])
  .addOption(
    new Option(
      '--check-network <mode>',
      "proxy (default): the integration checks' own network, the run's allowed domains through orca's proxy; host: the host's network, loopback included; none: nothing",
    )
      .choices([...CHECK_NETWORKS])
      .default(DEFAULT_CHECK_NETWORK),
  )
  .option('--approve', 'stop after planning and wait for approval', false)
  .option('--json', 'print one JSON object when the run ends', false)
  .option('--allow-dirty', 'run even though the repository has uncommitted changes', false)
  .option('--max-agents <n>', 'agents in flight at once (default workers × concurrency)', positiveInt)
  .option('--max-tokens <n>', 'token budget for the whole run', positiveInt)
  .option('--max-cost <usd>', 'cost budget for the whole run, in US dollars', positiveNumber)
  .option('--timeout <minutes>', 'wall clock budget for the whole run', positiveNumber)
  .addOption(askTimeoutOption())
  .option(
    '--yes-to <rule>',
    'answer yes to permission requests this rule covers (repeatable), e.g. "Bash(npm publish:*)"',
    collectYesTo,
    [],
  )
  .option('--no-memory', 'show the agents no memory cards and keep none they remember')
  .option('--push [remote]', 'push the integration branch to REMOTE (default origin) when the run is PASS')
  .option('--push-partial', 'with --push: push a PARTIAL run too', false)
  .option('--branch <name>', 'with --push: the branch name on the remote (default the integration branch)')
  .option('--pr-body <file>', 'write a pull request description, made from the run’s events, to FILE (gh pr create -F FILE)')
  .option(
    '--mcp <servers>',
    'MCP servers (comma-separated names from .mcp.json or ~/.claude.json) for the built-in roles; none for no server (default: the approved project servers)',
    serverList,
  )
  .option(
    '--agent <choice>',
    "what runs the agents: NAME (the Workers) or ROLE=NAME,… (orca, claude-code, codex, gemini, opencode, or orca.json's agents)",
    agentChoice,
  )
  .addOption(sandboxOption())
  .option('--list-commands', "list the slash commands (the repository's .claude/commands and ~/.claude/commands) and exit", false)
  .option('--plugin-dir <dir>', 'load a Claude Code plugin from this folder for every agent of the run (repeatable)', collect, [])
  .action(async (words: string[], options) => {
    if (options.listCommands) {
      process.exitCode = await (await import('./commands/listCommands.js')).listCommands({
        repo: options.repo,
        base: options.base,
        json: options.json,
        pluginDirs: options.pluginDir,
      });
      return;
    }
    const task = words.join(' ').trim();
    if (task === '')
      throw new UserError(
        'a task is needed: describe it, or name a slash command such as /fix-issue 123 (orca run --list-commands lists them).',
      );
    process.exitCode = await (await import('./runCommand.js')).runCommand({
      task,
      repo: options.repo,
      base: options.base,
      workers: options.workers,
      concurrency: options.concurrency,
      localWorkers: options.localWorkers,
      model: options.model,
      thinking: options.thinking,
      effort: options.effort,
      script: options.script,
      checks: options.check,
      checkNetwork: options.checkNetwork,
      approve: options.approve,
      json: options.json,
      allowDirty: options.allowDirty,
      maxAgents: options.maxAgents,
      maxTokens: options.maxTokens,
      maxCost: options.maxCost,
      timeoutMinutes: options.timeout,
      asks: askWait(options.askTimeout, atTerminal(options.json)),
      yesTo: options.yesTo,
      memory: options.memory,
      pluginDirs: options.pluginDir,
      push: options.push === true ? 'origin' : options.push,
      pushPartial: options.pushPartial,
      branch: options.branch,
      prBody: options.prBody,
      mcp: options.mcp,
      agents: options.agent,
      ...sandboxChoice(options.sandbox),
      share: options.share,
    });
  });

for (const [name, approved] of [
  ['approve', true],
  ['reject', false],
] as const) {
  program
    .command(name)
    .description(`${name} the plan of a run started with --approve`)
    .argument('<run>', 'the run id')
    .action(async (run: string) => {
      process.exitCode = await (await import('./runControl.js')).approvalCommand(run, approved);
    });
}

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
    process.exitCode = await (await import('./resumeCommand.js')).resumeCommand(run, {
      json: options.json,
      workers: options.workers,
      concurrency: options.concurrency,
      localWorkers: options.localWorkers,
      askTimeout: options.askTimeout,
      terminal: atTerminal(options.json),
    });
  });

program
  .command('agent')
  .description('run one agent through the queue and a worker process, no coordinator')
  .requiredOption('--role <role>', 'explore, plan, worker, verification, or a custom role from .claude/agents')
  .argument('<prompt>', 'what the agent is to do')
  .option('--repo <dir>', 'the repository', '.')
  .option('--base <ref>', 'the commit the agent starts from (default HEAD)')
  .option('--model <id>', "model id or alias, as for orca run; a custom role's own model wins")
  .option('--thinking <mode>', "adaptive, enabled:<budget tokens> or off; default: the model's (a role's own thinking wins)", thinkingMode)
  .option('--effort <level>', "low, medium, high, xhigh or max; default: the model's (a role's own effort wins)", effortLevel)
  .option('--script <file>', 'run the Scripted model from this file instead of an LLM')
  .option('--workers <n>', 'local worker processes to start', positiveInt, 1)
  .option('--no-local-workers', 'start no workers here: workers elsewhere take the job')
  .addOption(shareOption())
  .option('--allow-dirty', 'run even though the repository has uncommitted changes', false)
  .option('--json', 'print one JSON object when the agent ends', false)
  .addOption(askTimeoutOption())
  .option('--yes-to <rule>', 'answer yes to permission requests this rule covers (repeatable)', collectYesTo, [])
  .option('--no-memory', 'show the agent no memory cards and keep none it remembers')
  .option('--plugin-dir <dir>', 'load a Claude Code plugin from this folder (repeatable)', collect, [])
  .option(
    '--mcp <servers>',
    'MCP servers (comma-separated names from .mcp.json or ~/.claude.json) for a built-in role; none for no server (default: the approved project servers)',
    serverList,
  )
  .option(
    '--agent <choice>',
    "what runs the agent: NAME (orca, claude-code, codex, gemini, opencode, or orca.json's agents)",
    agentChoiceText,
  )
  .addOption(sandboxOption())
  .action(async (prompt: string, options) => {
    process.exitCode = await (await import('./agentCommand.js')).agentCommand({
      role: options.role,
      prompt,
      repo: options.repo,
      base: options.base,
      model: options.model,
      thinking: options.thinking,
      effort: options.effort,
      script: options.script,
      json: options.json,
      workers: options.workers,
      localWorkers: options.localWorkers,
      allowDirty: options.allowDirty,
      asks: askWait(options.askTimeout, atTerminal(options.json)),
      yesTo: options.yesTo,
      memory: options.memory,
      pluginDirs: options.pluginDir,
      mcp: options.mcp,
      agent: options.agent,
      ...sandboxChoice(options.sandbox),
      share: options.share,
    });
  });

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
    process.exitCode = await (await import('./asks/answerCommand.js')).answerCommand({
      run,
      request,
      allowed,
      forRun: options.forRun === true,
      reason: options.reason,
    });
  });
}

program
  .command('worker')
  .description('a worker process: takes agent jobs from Redis until stopped (SIGINT/SIGTERM)')
  .addOption(new Option('--concurrency <n>', 'agent jobs at once').argParser(positiveInt).default(2))
  .addOption(sandboxOption())
  .action(async (options: { concurrency: number; sandbox?: SandboxMode }) => {
    const { sandbox } = sandboxChoice(options.sandbox);
    await pingRedis(redisUrl());
    // Checked here, before a child is started for the worker, so the one line comes from `orca`.
    new (await import('../shared/core/runtime/orcaHome.js')).OrcaHome().ensureWritable();
    const { hasWorkerNodeFlags, relaunchWorker } = await import('./workerRelaunch.js');
    // A worker wants V8 tuned for size (shared/core/runtime/workerNodeFlags.ts), which only a new process can get.
    if (!hasWorkerNodeFlags())
      process.exitCode = await relaunchWorker(['--concurrency', String(options.concurrency), '--sandbox', sandbox]);
    else await (await import('../workers/workerProcess.js')).runWorkerProcess({ concurrency: options.concurrency, sandbox });
  });

program
  .command('prompt')
  .description("print what a role's model is told: its static system prompt, its tools' texts, orca's messages to it")
  .requiredOption('--role <role>', 'coordinator, explore, plan, worker, verification, or a custom role from .claude/agents')
  .option('--repo <dir>', 'the repository (for its custom roles)', '.')
  .option(
    '--json',
    'print one JSON object: { role, system, tools: [{ name, description, input_schema }], messages: [{ when, text }] }',
    false,
  )
  .action(async (options: { role: string; repo: string; json: boolean }) => {
    process.exitCode = (await import('./promptCommand.js')).promptCommand(options);
  });

program
  .command('status')
  .description("a snapshot of a run's task board (the latest run when none is named)")
  .argument('[run]', 'the run id')
  .option('--json', 'print the board as one JSON object', false)
  .action(async (run: string | undefined, options: { json: boolean }) => {
    process.exitCode = await (await import('./board/statusCommand.js')).statusCommand(run, options);
  });

program
  .command('board')
  .description("the run's task board, live in the terminal: q quits, a aborts the run (one snapshot without a terminal)")
  .argument('[run]', 'the run id (default: the latest run)')
  .action(async (run: string | undefined) => {
    process.exitCode = await (await import('./board/boardCommand.js')).boardCommand(run);
  });

program
  .command('serve')
  .description('the web board: runs, task DAGs, transcripts, diffs, evidence, live; bull-board under /queues')
  .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').argParser(port).default(4280))
  .option('--host <host>', 'address to bind; anything but loopback needs a token', '127.0.0.1')
  .option('--token <token>', 'required of every request (default ORCA_BOARD_TOKEN)')
  .action(async (options: { port: number; host: string; token?: string }) => {
    process.exitCode = await (await import('./board/web/serveCommand.js')).serveCommand(options);
  });

program
  .command('abort')
  .description('cancel a run everywhere: its agents stop, their shells are killed, worktrees are kept')
  .argument('<run>', 'the run id (printed as "orca: run <id>")')
  .action(async (run: string) => {
    process.exitCode = await (await import('./runControl.js')).abortCommand(run);
  });

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
      process.exitCode = await (await import('./cleanCommand.js')).cleanCommand({
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

/** `--share <git-url>`, defaulting to ORCA_SHARE: the remote a run is shared over (docs/scaling.md). */
function shareOption(): Option {
  return new Option('--share <git-url>', 'share the run over this git remote, for workers on other hosts (default ORCA_SHARE)').env(
    'ORCA_SHARE',
  );
}

function askTimeoutOption(): Option {
  return new Option(
    '--ask-timeout <duration>',
    'how long an agent waits for an answer to a permission request (2s, 10m; 0 denies at once); default 10m at a terminal, else no wait',
  ).argParser(parseAskTimeout);
}

/** Whether a person can answer at this terminal: stdin and stderr are terminals (and the output is not --json). */
function atTerminal(json: boolean): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true && !json;
}
const memory = program
  .command('memory')
  .description('the memory cards agents are shown and keep across runs (ORCA_HOME/memory, docs/memory.md)');

memory
  .command('list')
  .description("the cards: orca's, and Claude Code's memory of the repository (read-only)")
  .option('--scope <scope>', 'user, project (this repository), project:<repository id>, or all', 'all')
  .option('--repo <dir>', 'the repository a project scope means (default: the current folder)')
  .option('--json', 'print one JSON object', false)
  .action(async (options: { scope: string; repo?: string; json: boolean }) => {
    process.exitCode = await (await import('./memory/memoryCommands.js')).memoryList(options);
  });

memory
  .command('show')
  .description('one card (or a card waiting for review), as its file holds it')
  .argument('<id>', 'the card id (mem_…)')
  .action(async (id: string) => {
    process.exitCode = await (await import('./memory/memoryCommands.js')).memoryShow(id);
  });

memory
  .command('add')
  .description('keep a card, by the same admission rules as an agent (refused cards: exit 2)')
  .requiredOption('--type <type>', 'user, feedback, project or reference')
  .requiredOption('--title <title>', 'the subject in a few words')
  .requiredOption('--description <text>', 'the fact or the rule, in 1-3 sentences')
  .option('--scope <scope>', 'user, project (this repository) or project:<repository id>; default user for user cards, else project')
  .option('--repo <dir>', 'the repository a project card is for (default: the current folder)')
  .option('--confidence <n>', 'from 0 to 1 (default 1)', unitInterval)
  .action(async (options: { type: string; title: string; description: string; scope?: string; repo?: string; confidence?: number }) => {
    process.exitCode = await (await import('./memory/memoryCommands.js')).memoryAdd(options);
  });

memory
  .command('rm')
  .description('remove a card (or a card waiting for review)')
  .argument('<id>', 'the card id (mem_…)')
  .action(async (id: string) => {
    process.exitCode = await (await import('./memory/memoryCommands.js')).memoryRemove(id);
  });

memory
  .command('review')
  .description('decide the cards that contradict a kept one: keep the old, take the new, or edit it (answers from stdin)')
  .option('--keep <id>', 'drop this waiting card, keeping the one it contradicts')
  .option('--take <id>', 'let this waiting card replace the one it contradicts')
  .option('--edit <id>', 'edit this waiting card in $VISUAL/$EDITOR, then let it replace the one it contradicts')
  .action(async (options: { keep?: string; take?: string; edit?: string }) => {
    process.exitCode = await (await import('./memory/memoryCommands.js')).memoryReview(options);
  });

/** `--mcp a,b`: server names, as `.mcp.json` names them; `none`: no server, not even the approved project ones. */
function serverList(value: string): string[] {
  if (value.trim() === 'none') return [];
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidArgumentError('expected server names separated by commas, e.g. github,everything');
  return names;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return n;
}

/** `--thinking`: kept in its written form, which jobs carry; checked against the model once it is known. */
function thinkingMode(value: string): string {
  const parsed = parseThinking(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.problem);
  return value.trim().toLowerCase();
}

function agentChoice(value: string): Record<string, string> {
  const parsed = parseAgentOption(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.problem);
  return parsed.byRole;
}

/** `orca agent --agent`: checked here, read for the command's role there (a bare name is that role's). */
function agentChoiceText(value: string): string {
  agentChoice(value);
  return value;
}

function effortLevel(value: string): Effort {
  const level = value.trim().toLowerCase();
  if (!(EFFORT_LEVELS as readonly string[]).includes(level)) throw new InvalidArgumentError(`expected one of ${EFFORT_LEVELS.join(', ')}`);
  return level as Effort;
}

function unitInterval(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

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
