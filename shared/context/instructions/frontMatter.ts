import { grayMatter } from './grayMatter.js';

/**
 * The YAML front matter of a rule or skill file, and the Markdown after it. Claude Code's files
 * are often not strict YAML: `paths: **\/*.ts` starts with `*`, which YAML reads as an alias. When
 * YAML refuses the block, it is read again line by line (`key: value` and `- item` lists, values
 * taken literally), which is what such files mean. A block that fits neither is an error naming
 * the file.
 */
export interface FrontMatter {
  data: Record<string, unknown>;
  body: string;
}

const BLOCK = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export function parseFrontMatter(text: string, file: string): FrontMatter {
  const block = BLOCK.exec(text);
  if (!block) return { data: {}, body: text.replace(/^\uFEFF/, '') };
  try {
    // Options given, so gray-matter's content cache is not used: it stores a result before parsing,
    // and a second read of a text YAML refused would come back as empty front matter, not an error.
    const parsed = grayMatter()(text.replace(/^\uFEFF/, ''), {});
    return { data: { ...(parsed.data as Record<string, unknown>) }, body: parsed.content };
  } catch (yamlError) {
    const lenient = readSimpleBlock(block[1]!);
    if (lenient) return { data: lenient, body: text.slice(block[0].length) };
    const why = yamlError instanceof Error ? yamlError.message.split('\n')[0] : String(yamlError);
    throw new Error(
      `${file}: its front matter (between the --- lines) is not valid YAML: ${why}. Fix the block, or quote values that start with * or @.`,
    );
  }
}

function readSimpleBlock(block: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  let listKey: string | undefined;
  for (const raw of block.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey !== undefined) {
      (data[listKey] as string[]).push(unquote(item[1]!));
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
    if (!pair) return undefined;
    const [, key, value] = pair;
    if (value === '') {
      data[key!] = [];
      listKey = key;
    } else {
      data[key!] = unquote(value!);
      listKey = undefined;
    }
  }
  return data;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  const quoted = /^"(.*)"$/.exec(trimmed) ?? /^'(.*)'$/.exec(trimmed);
  return quoted ? quoted[1]! : trimmed;
}
