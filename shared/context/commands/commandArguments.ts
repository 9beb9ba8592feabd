import { parse as parseShellWords } from 'shell-quote';

/**
 * The arguments of a slash command or a skill as words, split as a shell splits them: quotes
 * group, operators and globs are kept as text, variables are not expanded.
 */
export function splitArguments(args: string): string[] {
  if (args.trim() === '') return [];
  return parseShellWords(args, (name) => `$${name}`).map((token) =>
    typeof token === 'string' ? token : 'op' in token ? String(token.op) : 'pattern' in token ? String(token.pattern) : '',
  );
}
