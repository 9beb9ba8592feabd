import path from 'node:path';
import { loadCommands } from '../../shared/context/commands/commandCatalog.js';
import { filesAtCommit } from '../../shared/context/commands/projectFiles.js';
import { qualifiedName } from '../../shared/context/commands/slashCommand.js';
import { userClaudeDir } from '../../shared/policy/settings/loadSettings.js';
import { inspectRepo } from '../repoCheck.js';
import { pluginCommandFolders } from './pluginCommands.js';

/**
 * `orca run --list-commands`: the slash commands a run of this repository can start with, the
 * project's as of the base commit and the user's, one line each (or one JSON array).
 */
export async function listCommands(options: {
  repo: string;
  base?: string;
  json: boolean;
  userClaudeDir?: string;
  pluginDirs?: string[];
}): Promise<number> {
  const { root, base } = await inspectRepo(path.resolve(options.repo), { base: options.base, allowDirty: true });
  const catalog = await loadCommands({
    project: filesAtCommit(root, base),
    userClaudeDir: options.userClaudeDir ?? userClaudeDir(),
    plugins: pluginCommandFolders(
      root,
      (options.pluginDirs ?? []).map((dir) => path.resolve(dir)),
    ),
  });
  for (const problem of catalog.problems) process.stderr.write(`orca: ${problem}\n`);
  for (const hidden of catalog.shadowed) {
    process.stderr.write(`orca: ${hidden.file} is hidden by the project's /${qualifiedName(hidden)}\n`);
  }
  if (options.json) {
    const out = catalog.commands.map((command) => ({
      name: `/${qualifiedName(command)}`,
      scope: command.scope,
      file: command.file,
      description: command.description,
      argument_hint: command.argumentHint ?? null,
      allowed_tools: command.allowedTools,
      model: command.model ?? null,
    }));
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  }
  if (catalog.commands.length === 0) {
    process.stdout.write('no slash commands: add Markdown files under .claude/commands/ (or ~/.claude/commands/)\n');
    return 0;
  }
  const lines = catalog.commands.map((command) => {
    const call = [`/${qualifiedName(command)}`, command.argumentHint].filter(Boolean).join(' ');
    const where = command.namespace ? `${command.scope}:${command.namespace}` : command.scope;
    return `${call}\t${command.description} (${where})`;
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
