import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_RESULT_LIMIT = 30_000;
export const PREVIEW_CHARS = 2_000;

/**
 * Keeps one tool result from flooding the context: past `limit` characters the whole result goes
 * to a file in the session's folder and the model gets the first 2,000 characters, the size and
 * the path. Nothing is lost: the model can Read or Grep the file.
 */
export function applyResultBudget(
  content: string,
  options: { limit?: number; sessionDir: string; toolUseId: string },
): { content: string; spilledTo?: string } {
  const limit = options.limit ?? DEFAULT_RESULT_LIMIT;
  if (content.length <= limit) return { content };
  const dir = path.join(options.sessionDir, 'tool-results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${options.toolUseId.replace(/[^A-Za-z0-9._-]/g, '_')}.txt`);
  writeFileSync(file, content);
  const preview = content.slice(0, PREVIEW_CHARS);
  return {
    content:
      `${preview}\n\n[Output too large for the context: ${content.length} characters in all. ` +
      `The whole output is saved in ${file}; Read it (with offset and limit) or Grep it for the rest.]`,
    spilledTo: file,
  };
}
