import type { Command } from 'commander';

/** `orca prompt --role ROLE`: what a role's model is told (promptCommand.ts). */
export function addPromptCommand(program: Command): void {
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
      process.exitCode = (await import('../promptCommand.js')).promptCommand(options);
    });
}
