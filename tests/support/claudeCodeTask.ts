import path from 'node:path';
import { type Behaviour, MessagesServer, reply } from './messagesServer.js';
import { npmInstall } from './npmInstall.js';

/**
 * The task Claude Code and orca are held side by side on (`npm run compat:claude-code` and the
 * `single` benchmark): the pinned Claude Code from the npm registry, and the same four scripted
 * turns from the Messages stand-in (Read, Edit, Bash, then the final answer). Compiled into dist
 * for the benchmark (tsconfig.build.json).
 */
export const CLAUDE_CODE_VERSION = '2.1.328';

/** The four turns on `file`; the last is Claude Code's final text or orca's Report. */
export function greetingTurns(file: string, final: 'text' | 'report'): Behaviour[] {
  return [
    reply.stream([{ type: 'tool_use', name: 'Read', input: { file_path: file } }], { stopReason: 'tool_use' }),
    reply.stream([{ type: 'tool_use', name: 'Edit', input: { file_path: file, old_string: 'world', new_string: 'there' } }], {
      stopReason: 'tool_use',
    }),
    reply.stream([{ type: 'tool_use', name: 'Bash', input: { command: 'echo done' } }], { stopReason: 'tool_use' }),
    final === 'text'
      ? reply.text('Changed the greeting.')
      : reply.stream(
          [{ type: 'tool_use', name: 'Report', input: { summary: 'Changed the greeting.', unresolved: [], claimed_checks: [] } }],
          { stopReason: 'tool_use' },
        ),
  ];
}

/** The stand-in both sides talk to: requests that offer no tools (Claude Code's titles and summaries) get a plain text; the scripted turns go to those that do. */
export function sideBySideStandIn(): MessagesServer {
  return new MessagesServer({
    strict: false,
    answer: (body) => {
      const tools = (body as { tools?: unknown[] } | undefined)?.tools;
      return !tools || tools.length === 0 ? reply.text('ok') : undefined;
    },
  });
}

/** Installs the pinned Claude Code under `dir` with npm; the path of its `claude`. */
export async function installClaudeCode(dir: string): Promise<string> {
  return path.join(await npmInstall(dir, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`), 'claude');
}
