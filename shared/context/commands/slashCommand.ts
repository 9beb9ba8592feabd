import { parseFrontMatter } from '../instructions/frontMatter.js';

/**
 * A custom slash command in Claude Code's format (docs/claude-code-files.md, "Slash commands"):
 * a Markdown file under `.claude/commands/` (the project's) or `~/.claude/commands/` (the
 * user's). Its name is the file name without `.md`; subfolders namespace it
 * (`frontend/component.md` is `/component`, also reachable as `/frontend:component`). Optional
 * front matter: `description` (default: the first line of the body), `argument-hint`,
 * `allowed-tools` (a comma-separated string or a list of tools and permission rules) and `model`.
 */
export interface SlashCommand {
  name: string;
  /** The subfolders it sits in, joined with `:` (`frontend`), or undefined at the top. */
  namespace?: string;
  scope: 'project' | 'user' | 'plugin';
  /** The file as it is shown: `.claude/commands/fix-issue.md`, or its path for a user command. */
  file: string;
  description: string;
  argumentHint?: string;
  allowedTools: string[];
  model?: string;
  /** The prompt template, after the front matter. */
  body: string;
}

/** `relative`: the file's path inside the commands folder (`frontend/component.md`). */
export function parseSlashCommand(text: string, relative: string, scope: SlashCommand['scope'], file: string): SlashCommand {
  const { data, body } = parseFrontMatter(text, file);
  const parts = relative.replace(/\.md$/, '').split('/');
  const name = parts.pop()!;
  const description = stringField(data, 'description', file) ?? firstLine(body) ?? `${scope} command ${name}`;
  const command: SlashCommand = {
    name,
    scope,
    file,
    description,
    allowedTools: allowedTools(data['allowed-tools'], file),
    body: body.trim(),
  };
  if (parts.length > 0) command.namespace = parts.join(':');
  // `argument-hint: [issue-number]` is a YAML list of one: shown as written.
  const rawHint = data['argument-hint'];
  const hint = Array.isArray(rawHint) ? rawHint.map((item) => `[${String(item)}]`).join(' ') : stringField(data, 'argument-hint', file);
  if (hint) command.argumentHint = hint;
  const model = stringField(data, 'model', file);
  if (model) command.model = model;
  return command;
}

/** `/name` and, namespaced, `/namespace:name`. */
export function qualifiedName(command: SlashCommand): string {
  return command.namespace ? `${command.namespace}:${command.name}` : command.name;
}

/** `Read, Bash(git add:*), Bash(git commit:*)`: split at commas outside parentheses. */
function allowedTools(value: unknown, file: string): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    return value.map((item) => {
      if (typeof item !== 'string') throw new Error(`${file}: allowed-tools must list tool names as strings`);
      return item.trim();
    });
  }
  if (typeof value !== 'string') throw new Error(`${file}: allowed-tools must be a string or a list of strings`);
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of value) {
    if (char === '(') depth += 1;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += char;
  }
  out.push(current);
  return out.map((item) => item.trim()).filter(Boolean);
}

function stringField(data: Record<string, unknown>, key: string, file: string): string | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String).join(' ');
  if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`${file}: ${key} must be a string`);
  return String(value).trim() || undefined;
}

function firstLine(body: string): string | undefined {
  const line = body
    .split('\n')
    .map((text) => text.replace(/^#+\s*/, '').trim())
    .find(Boolean);
  return line && line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
