import { grayMatter } from '../shared/context/instructions/grayMatter.js';

/**
 * The front matter of a Claude Code agent file, read as leniently as Claude Code reads it.
 * Published agents are often not strict YAML: a `description` that runs over several lines with
 * `Context: …`, `user: "…"` and `<example>` blocks in it, or one line with literal `\n` escapes and
 * `: ` inside. When YAML refuses the block, it is read again by its known keys: a line starting
 * with one of them (`description:`) begins that field, and every other line belongs to the field
 * before it. A block that fits neither is an error naming why.
 */

/** The keys Claude Code's agent files have; a line starting with another word continues the value before it. */
export const AGENT_KEYS = [
  'name',
  'description',
  'tools',
  'disallowedTools',
  'model',
  'permissionMode',
  'maxTurns',
  'skills',
  'mcpServers',
  'hooks',
  'memory',
  'background',
  'effort',
  'isolation',
  'color',
  'initialPrompt',
  'thinking',
] as const;

const BLOCK = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export interface AgentFrontMatter {
  data: Record<string, unknown>;
  body: string;
  /** True when strict YAML refused the block and it was read by its keys. */
  lenient: boolean;
}

export function readAgentFrontMatter(text: string): AgentFrontMatter {
  const clean = text.replace(/^\uFEFF/, '');
  try {
    // Options given, so gray-matter's content cache is not used: it stores a result before parsing,
    // and a second read of a text YAML refused would come back as empty front matter, not an error.
    const strict = grayMatter()(clean, {});
    return { data: { ...(strict.data as Record<string, unknown>) }, body: strict.content, lenient: false };
  } catch (yamlError) {
    const block = BLOCK.exec(clean);
    const data = block ? readByKeys(block[1]!) : undefined;
    if (!block || !data) {
      const why = yamlError instanceof Error ? yamlError.message.split('\n')[0] : String(yamlError);
      throw new Error(`its front matter is not valid YAML (${why}), and not lines of Claude Code's agent keys either`);
    }
    return { data, body: clean.slice(block[0].length), lenient: true };
  }
}

const KEY_LINE = new RegExp(`^(${AGENT_KEYS.join('|')}):(?:\\s+(.*))?$`);

function readByKeys(block: string): Record<string, unknown> | undefined {
  const fields: Array<{ key: string; lines: string[] }> = [];
  for (const raw of block.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const key = KEY_LINE.exec(line);
    if (key) {
      fields.push({ key: key[1]!, lines: key[2] !== undefined && key[2] !== '' ? [key[2]] : [] });
      continue;
    }
    const current = fields.at(-1);
    if (!current) {
      if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
      return undefined;
    }
    current.lines.push(line);
  }
  if (fields.length === 0) return undefined;
  const data: Record<string, unknown> = {};
  for (const { key, lines } of fields) data[key] = fieldValue(key, lines);
  return data;
}

function fieldValue(key: string, lines: string[]): unknown {
  const items = lines.filter((line) => line.trim() !== '');
  if (items.length > 0 && items.every((line) => /^\s*-\s+/.test(line))) return items.map((line) => unquote(line.replace(/^\s*-\s+/, '')));
  const text = unquote(lines.join('\n').trim());
  const flow = /^\[([\s\S]*)\]$/.exec(text);
  if (flow)
    return flow[1]!
      .split(',')
      .map(unquote)
      .filter((item) => item !== '');
  if (key === 'maxTurns' && /^\d+$/.test(text)) return Number(text);
  if (key === 'background') return text === 'true' ? true : text === 'false' ? false : text;
  // A one-line description written with `\n` escapes means line breaks, as Claude Code shows it.
  return key === 'description' ? text.replaceAll('\\n', '\n') : text;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  const quoted = /^"([\s\S]*)"$/.exec(trimmed) ?? /^'([\s\S]*)'$/.exec(trimmed);
  return quoted ? quoted[1]! : trimmed;
}
