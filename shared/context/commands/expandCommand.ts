import type { ToolFacts } from '../../core/tool/toolFacts.js';
import { splitArguments } from './commandArguments.js';
import { runCommandShell } from './commandShell.js';
import type { ProjectFiles } from './projectFiles.js';
import type { SlashCommand } from './slashCommand.js';

/**
 * A slash command turned into a task, as Claude Code expands one:
 * - `$ARGUMENTS` is everything after the command name, as typed; `$1`, `$2`, … are the
 *   arguments split as a shell would (quotes group words), 1 for the first, empty past the last;
 * - a command that uses neither gets `ARGUMENTS: <arguments>` appended when there are any;
 * - `@path` (after the arguments are in) names a file of the repository: its contents at the
 *   run's base commit are attached after the prompt, once each; an `@word` that is no such file
 *   is left as it is (it may be a mention); `@` inside code spans and blocks is not a reference.
 * - `!`command`` runs in the repository's checkout once the arguments are in, and its output
 *   takes its place, when the command's `allowed-tools` allow it as a call of `shell`, the
 *   session's shell tool (commandShell.ts).
 */
export interface ExpandedCommand {
  prompt: string;
  /** The files attached, as named. */
  files: string[];
}

const PLACEHOLDER = /\$ARGUMENTS\b|\$(\d+)/g;
const SHELL = /!`([^`\n]+)`/g;
const REFERENCE = /(^|[\s(])@([A-Za-z0-9_./~-][^\s`'"()<>[\]{},;]*)/g;
const CODE = /```[\s\S]*?```|`[^`\n]*`/g;

export async function expandCommand(
  command: SlashCommand,
  args: string,
  files: ProjectFiles,
  options: { checkout: string; shell: ToolFacts },
): Promise<ExpandedCommand> {
  const words = splitArguments(args);
  let used = false;
  let prompt = command.body.replace(PLACEHOLDER, (_match, index: string | undefined) => {
    used = true;
    if (index === undefined) return args;
    return words[Number(index) - 1] ?? '';
  });
  if (!used && args.trim() !== '') prompt = `${prompt}\n\nARGUMENTS: ${args.trim()}`;
  const outputs: string[] = [];
  for (const match of prompt.matchAll(SHELL)) {
    const where = { cwd: options.checkout, shell: options.shell, allowedTools: command.allowedTools, file: command.file };
    outputs.push(await runCommandShell(match[1]!, where));
  }
  prompt = prompt.replace(SHELL, () => outputs.shift() ?? '');

  const attached: Array<{ name: string; text: string }> = [];
  const outsideCode = prompt.replace(CODE, (code) => ' '.repeat(code.length));
  for (const match of outsideCode.matchAll(REFERENCE)) {
    const name = match[2]!.replace(/[.:!?]+$/, '');
    if (attached.some((file) => file.name === name)) continue;
    const file = repositoryPath(name);
    const text = file === undefined ? undefined : await files.read(file);
    if (text !== undefined) attached.push({ name, text });
  }
  if (attached.length > 0) {
    const sections = attached.map(({ name, text }) => {
      const fence = '`'.repeat(Math.max(3, ...Array.from(text.matchAll(/`+/g), (run) => run[0].length + 1)));
      return `Contents of ${name} (at ${files.label}):\n${fence}\n${text.replace(/\n$/, '')}\n${fence}`;
    });
    prompt = `${prompt}\n\n${sections.join('\n\n')}`;
  }
  return { prompt: prompt.trim(), files: attached.map((file) => file.name) };
}

/** A path inside the repository (`./a.ts`, `src/a.ts`), or undefined for one that leaves it. */
function repositoryPath(name: string): string | undefined {
  const parts = name
    .replace(/^\.\//, '')
    .split('/')
    .filter((part) => part !== '' && part !== '.');
  if (name.startsWith('/') || name.startsWith('~') || parts.includes('..') || parts.length === 0) return undefined;
  return parts.join('/');
}
