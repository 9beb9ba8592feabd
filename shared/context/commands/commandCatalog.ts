import path from 'node:path';
import type { ProjectFiles } from './projectFiles.js';
import { filesInFolder } from './projectFiles.js';
import { parseSlashCommand, qualifiedName, type SlashCommand } from './slashCommand.js';

const PROJECT_FOLDER = '.claude/commands';

export interface CommandCatalog {
  commands: SlashCommand[];
  /** User commands a project command of the same name hides. */
  shadowed: SlashCommand[];
  /** Files that are not valid commands, one line each. */
  problems: string[];
}

/**
 * The slash commands a run can start with: the project's `.claude/commands/**\/*.md` (read from
 * `project`, the run's base commit) and the user's `~/.claude/commands/**\/*.md`. Where both
 * have a command of one name, the project's is used (it is the team's).
 */
export async function loadCommands(options: {
  project: ProjectFiles;
  userClaudeDir?: string;
  /** Plugins' `commands/` folders: a plugin's command is `/<plugin>:<name>` (and `/<name>` when no other has it). */
  plugins?: Array<{ plugin: string; dir: string }>;
}): Promise<CommandCatalog> {
  const problems: string[] = [];
  const read = async (
    files: ProjectFiles,
    folder: string,
    scope: SlashCommand['scope'],
    shown: (file: string) => string,
    namespace = '',
  ) => {
    const out: SlashCommand[] = [];
    for (const file of await files.list(folder)) {
      if (!file.endsWith('.md')) continue;
      const relative = namespace + file.slice(folder.length + 1);
      try {
        out.push(parseSlashCommand((await files.read(file)) ?? '', relative, scope, shown(file)));
      } catch (error) {
        problems.push(error instanceof Error ? error.message : String(error));
      }
    }
    return out;
  };
  const project = await read(options.project, PROJECT_FOLDER, 'project', (file) => file);
  const userDir = options.userClaudeDir;
  const user = userDir ? await read(filesInFolder(userDir), 'commands', 'user', (file) => path.join(userDir, file)) : [];
  const names = new Set(project.map(qualifiedName));
  const plugins: SlashCommand[] = [];
  for (const { plugin, dir } of options.plugins ?? []) {
    const parent = path.dirname(dir);
    plugins.push(...(await read(filesInFolder(parent), path.basename(dir), 'plugin', (file) => path.join(parent, file), `${plugin}/`)));
  }
  return {
    commands: [...project, ...user.filter((command) => !names.has(qualifiedName(command))), ...plugins],
    shadowed: user.filter((command) => names.has(qualifiedName(command))),
    problems,
  };
}

/** The command `/name` or `/namespace:name` calls, or a one-line reason there is none. */
export function findCommand(catalog: CommandCatalog, invoked: string): { command: SlashCommand } | { error: string } {
  const name = invoked.replace(/^\//, '');
  const exact = catalog.commands.filter((command) => qualifiedName(command) === name);
  const byName = exact.length > 0 ? exact : catalog.commands.filter((command) => command.name === name);
  if (byName.length === 1) return { command: byName[0]! };
  if (byName.length > 1) {
    return { error: `/${name} is ambiguous: call it as ${byName.map((command) => `/${qualifiedName(command)}`).join(' or ')}` };
  }
  const known = catalog.commands.map((command) => `/${qualifiedName(command)}`);
  return {
    error: `unknown command /${name}: ${known.length > 0 ? `the commands are ${known.join(', ')}` : 'this repository and ~/.claude/commands have none'} (orca run --list-commands)`,
  };
}
