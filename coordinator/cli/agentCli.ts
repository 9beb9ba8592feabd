import type { Command, OptionValues } from 'commander';
import { askWait, collectYesTo } from '../asks/askOptions.js';
import { sandboxChoice, sandboxOption } from '../sandboxOption.js';
import {
  agentChoiceText,
  askTimeoutOption,
  atTerminal,
  collect,
  effortLevel,
  positiveInt,
  serverList,
  shareOption,
  thinkingMode,
} from './cliOptions.js';

/** `orca agent`: one agent through the queue, no coordinator (agentCommand.ts). */
export function addAgentCommand(program: Command): void {
  program
    .command('agent')
    .description('run one agent through the queue and a worker process, no coordinator')
    .requiredOption('--role <role>', 'explore, plan, worker, verification, or a custom role from .claude/agents')
    .argument('<prompt>', 'what the agent is to do')
    .option('--repo <dir>', 'the repository', '.')
    .option('--base <ref>', 'the commit the agent starts from (default HEAD)')
    .option('--model <id>', "model id or alias, as for orca run; a custom role's own model wins")
    .option(
      '--thinking <mode>',
      "adaptive, enabled:<budget tokens> or off; default: the model's (a role's own thinking wins)",
      thinkingMode,
    )
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
    .action(agentAction);
}

async function agentAction(prompt: string, options: OptionValues): Promise<void> {
  process.exitCode = await (await import('../agentCommand.js')).agentCommand({
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
}
