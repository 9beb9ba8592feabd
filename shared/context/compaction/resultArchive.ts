import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolCall } from './toolCalls.js';

/**
 * A file holding a tool call's whole result, so that whatever compaction hides from the view can
 * still be read back: a file the caller prefers (Bash's own log of a long output), the spill file
 * the result budget wrote, or else
 * the result text as the model saw it, saved now in the session folder (`tool-results/<id>.txt`,
 * beside the spills). Compaction replaces content with a pointer, never with nothing.
 */
export function resultFileOf(call: ToolCall, sessionDir: string, preferred?: string): string | undefined {
  if (preferred) return preferred;
  if (call.entry?.spilledTo) return call.entry.spilledTo;
  if (!call.result) return undefined;
  const dir = path.join(sessionDir, 'tool-results');
  const file = path.join(dir, `${call.id.replace(/[^A-Za-z0-9._-]/g, '_')}.txt`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, call.result.content);
  }
  return file;
}
