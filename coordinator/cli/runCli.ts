import { type Command, Option, type OptionValues } from 'commander';
import { CHECK_NETWORKS, DEFAULT_CHECK_NETWORK } from '../../shared/core/sandbox/checkNetwork.js';
import { askWait, collectYesTo } from '../asks/askOptions.js';
import { UserError } from '../repoCheck.js';
import { sandboxChoice, sandboxOption } from '../sandboxOption.js';
import {
  agentChoice,
  askTimeoutOption,
  atTerminal,
  collect,
  effortLevel,
  positiveInt,
  positiveNumber,
  serverList,
  shareOption,
  thinkingMode,
} from './cliOptions.js';

/** `orca run`: one whole run (runCommand.ts does it). */
export function addRunCommand(program: Command): void {
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
    .action(runAction);
}

async function runAction(words: string[], options: OptionValues): Promise<void> {
  if (options.listCommands) {
    process.exitCode = await (await import('../commands/listCommands.js')).listCommands({
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
  process.exitCode = await (await import('../runCommand.js')).runCommand({
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
}
