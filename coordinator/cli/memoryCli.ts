import type { Command } from 'commander';
import { unitInterval } from './cliOptions.js';

/** `orca memory list|show|add|rm|review`: the memory cards (memory/memoryCommands.ts). */
export function addMemoryCommands(program: Command): void {
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
      process.exitCode = await (await import('../memory/memoryCommands.js')).memoryList(options);
    });

  memory
    .command('show')
    .description('one card (or a card waiting for review), as its file holds it')
    .argument('<id>', 'the card id (mem_…)')
    .action(async (id: string) => {
      process.exitCode = await (await import('../memory/memoryCommands.js')).memoryShow(id);
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
      process.exitCode = await (await import('../memory/memoryCommands.js')).memoryAdd(options);
    });

  memory
    .command('rm')
    .description('remove a card (or a card waiting for review)')
    .argument('<id>', 'the card id (mem_…)')
    .action(async (id: string) => {
      process.exitCode = await (await import('../memory/memoryCommands.js')).memoryRemove(id);
    });

  memory
    .command('review')
    .description('decide the cards that contradict a kept one: keep the old, take the new, or edit it (answers from stdin)')
    .option('--keep <id>', 'drop this waiting card, keeping the one it contradicts')
    .option('--take <id>', 'let this waiting card replace the one it contradicts')
    .option('--edit <id>', 'edit this waiting card in $VISUAL/$EDITOR, then let it replace the one it contradicts')
    .action(async (options: { keep?: string; take?: string; edit?: string }) => {
      process.exitCode = await (await import('../memory/memoryCommands.js')).memoryReview(options);
    });
}
