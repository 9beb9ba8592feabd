/**
 * A hook group's `matcher`, read as Claude Code reads it:
 * - absent, `""` or `"*"`: matches everything;
 * - only letters, digits, `_`, `-`, spaces, `|` and `,`: one exact name or a list of them
 *   (`Edit|Write`, `Edit, Write`);
 * - anything else: a JavaScript regular expression, unanchored (`^Bash$` to pin it, `mcp__.*`).
 * The value tested is the event's match field (the tool name for tool events, `source` for
 * SessionStart, …). An event fired without that value matches only match-all groups.
 */
export type Matcher = (value: string | undefined) => boolean;

const EXACT_LIST = /^[A-Za-z0-9_\- ,|]+$/;

export class MatcherError extends Error {
  override readonly name = 'MatcherError';
}

export function compileMatcher(pattern: string | undefined): Matcher {
  if (pattern === undefined || pattern === '' || pattern === '*') return () => true;
  if (EXACT_LIST.test(pattern)) {
    const names = new Set(
      pattern
        .split(/[|,]/)
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    );
    return (value) => value !== undefined && names.has(value);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    throw new MatcherError(
      `matcher ${JSON.stringify(pattern)} is not a valid regular expression (${(error as Error).message}); ` +
        'use a tool name, names separated by | or ",", or a valid JavaScript regular expression',
    );
  }
  return (value) => value !== undefined && regex.test(value);
}
