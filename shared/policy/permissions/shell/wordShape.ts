import type { ShellWord } from './shellTypes.js';

/**
 * What the shell will make of a word before a command sees it: the word itself (`literal`), the
 * files a pattern matches now (`glob`), or something only known when it runs (`unknown`: `$x`,
 * `$(…)`, `~`, a brace expansion `{a,b}` that may list paths anywhere).
 */
export type WordShape = { kind: 'literal' } | { kind: 'glob' } | { kind: 'unknown'; why: string };

export function wordShape(word: ShellWord): WordShape {
  if (word.dynamic) return { kind: 'unknown', why: `${word.raw} is only known when it runs` };
  const bare = unquoted(word.raw);
  if (/\{[^}]*(,|\.\.)[^}]*\}/.test(bare))
    return { kind: 'unknown', why: `the shell expands the braces in ${word.raw} into several paths` };
  // bash expands `~` after the `=` of an assignment-like word (`dir=~/x`) and after a `:` in one.
  if (/^[A-Za-z_][A-Za-z0-9_]*=(.*:)?~/.test(bare)) return { kind: 'unknown', why: `${word.raw} holds a ~ the shell expands` };
  if (/[*?[]/.test(bare)) return { kind: 'glob' };
  return { kind: 'literal' };
}

/**
 * Whether the shell may turn the word into one that starts with `-`, so a command reads it as an
 * option: an expansion or a pattern at its very start (`$x`, `*` matching a file named `-t..`).
 */
export function mayBecomeOption(word: ShellWord): boolean {
  if (wordShape(word).kind === 'literal') return false;
  return /^[$`*?[{]/.test(unquoted(word.raw));
}

/** The word as written with every quoted or escaped character replaced by NUL, so only what the shell interprets is left. */
function unquoted(raw: string): string {
  let out = '';
  let quote: string | undefined;
  for (let index = 0; index < raw.length; index += 1) {
    const char = raw[index]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (quote === '"' && char === '$') out += char;
      else {
        if (quote === '"' && char === '\\') index += 1;
        out += '\x00';
      }
    } else if (char === '\\') {
      index += 1;
      out += '\x00';
    } else if (char === "'" || char === '"') quote = char;
    else out += char;
  }
  return out;
}
