import path from 'node:path';
import { splitArguments } from './commandArguments.js';

/**
 * A skill's body with its arguments in, as Claude Code expands a skill: `$ARGUMENTS` is the
 * arguments as given; `$ARGUMENTS[0]`, `$0`, `$1`, … the words of them split as a shell splits them,
 * numbered from 0 (skills number from 0, unlike `.claude/commands` files); `${CLAUDE_SKILL_DIR}` the
 * folder holding the skill's SKILL.md; `${CLAUDE_SESSION_ID}` the session. A body that uses no
 * argument placeholder gets `ARGUMENTS: <args>` appended when there are any.
 */
const PLACEHOLDER = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)/g;

export function expandSkillBody(body: string, options: { args?: string; skillFile: string; sessionId: string }): string {
  const args = options.args ?? '';
  const words = splitArguments(args);
  let used = false;
  let text = body.replace(PLACEHOLDER, (_match, indexed: string | undefined, numbered: string | undefined) => {
    used = true;
    const index = indexed ?? numbered;
    return index === undefined ? args : (words[Number(index)] ?? '');
  });
  text = text.replaceAll('${CLAUDE_SKILL_DIR}', path.dirname(options.skillFile)).replaceAll('${CLAUDE_SESSION_ID}', options.sessionId);
  if (!used && args.trim() !== '') text = `${text}\n\nARGUMENTS: ${args.trim()}`;
  return text;
}
