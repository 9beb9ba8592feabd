import { findCommand, loadCommands } from '../../shared/context/commands/commandCatalog.js';
import { expandCommand } from '../../shared/context/commands/expandCommand.js';
import { filesAtCommit } from '../../shared/context/commands/projectFiles.js';
import { qualifiedName, type SlashCommand } from '../../shared/context/commands/slashCommand.js';
import { REPORT_TOOL } from '../../shared/core/tool/report.js';
import { ToolLimit } from '../../shared/policy/permissions/toolLimit.js';
import { userClaudeDir } from '../../shared/policy/settings/loadSettings.js';
import { catalogToolNames, shellTool } from '../../shared/tools/catalog.js';
import { UserError } from '../repoCheck.js';
import { pluginCommandFolders } from './pluginCommands.js';
import { INVOCATION } from './slashInvocation.js';

export interface SlashTask {
  /** The expanded prompt: the run's task. */
  task: string;
  command: SlashCommand;
  invoked: string;
  files: string[];
  /** The command's `allowed-tools`, when it limits the run. */
  toolLimit?: { source: string; rules: string[] };
  /** Lines for the person starting the run (an allowed-tools entry no agent can use). */
  warnings: string[];
}

/**
 * `orca run /name args…`: the command found among the project's (at the run's base commit) and
 * the user's, and expanded as Claude Code would (expandCommand.ts). An unknown command, a broken
 * command file or an `allowed-tools` entry that cannot be read is a UserError: one line, exit 2.
 */
export async function resolveSlashTask(options: {
  repo: string;
  base: string;
  task: string;
  userClaudeDir?: string;
  pluginDirs?: string[];
}): Promise<SlashTask> {
  const match = INVOCATION.exec(options.task.trim());
  if (!match) throw new UserError(`"${options.task}" is not a slash command`);
  const [, name, args = ''] = match;
  const project = filesAtCommit(options.repo, options.base);
  const catalog = await loadCommands({
    project,
    userClaudeDir: options.userClaudeDir ?? userClaudeDir(),
    plugins: pluginCommandFolders(options.repo, options.pluginDirs ?? []),
  });
  const found = findCommand(catalog, name!);
  if ('error' in found) {
    const broken =
      catalog.problems.length > 0 ? ` (${catalog.problems.length} command file(s) could not be read: ${catalog.problems[0]})` : '';
    throw new UserError(`${found.error}${broken}`);
  }
  const { command } = found;
  let expanded: Awaited<ReturnType<typeof expandCommand>>;
  let limit: ToolLimit | undefined;
  try {
    expanded = await expandCommand(command, args, project, { checkout: options.repo, shell: shellTool() });
    limit = ToolLimit.from(command.allowedTools, `/${qualifiedName(command)} (${command.file})`);
  } catch (error) {
    throw new UserError(error instanceof Error ? error.message : String(error));
  }
  const known = [...catalogToolNames(), REPORT_TOOL];
  const unusable = limit
    ? command.allowedTools.filter((entry) => !known.some((tool) => entry === tool || entry.startsWith(`${tool}(`)))
    : [];
  return {
    task: expanded.prompt,
    command,
    invoked: options.task.trim(),
    files: expanded.files,
    toolLimit: limit ? { source: limit.source, rules: limit.texts } : undefined,
    warnings: unusable.length > 0 ? [`${command.file}: allowed-tools names ${unusable.join(', ')}, which no orca agent has`] : [],
  };
}
