import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ContentBlock, Message } from '../../core/model/message.js';
import { REPORT_TOOL } from '../../core/tool/report.js';

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    /** The session's conversation in Claude Code's transcript format: what `transcript_path` names. */
    claudeTranscript?: ClaudeTranscript;
  }
}

/** Where a session's Claude Code-format transcript lives, beside orca's own event log. */
export function claudeTranscriptPathFor(sessionDir: string): string {
  return path.join(sessionDir, 'claude-code-transcript.jsonl');
}

/**
 * The session's messages as Claude Code writes its transcript: one JSON line per message,
 * `{"type":"user"|"assistant","message":{"role":…,"content":[…]},"uuid",…}`, so hook scripts
 * written for Claude Code (a Stop hook looking for the last assistant message) read it as they
 * would there. orca's Report is written as the assistant's final text (its summary), not as a tool
 * call, as Claude Code's final answer is text. Lines are appended as messages are added: `sync`
 * runs before any hook does.
 */
export class ClaudeTranscript {
  private written = 0;
  private parent: string | null = null;
  private readonly reportIds = new Set<string>();

  constructor(
    readonly file: string,
    private readonly session: { id: () => string; cwd: string; model: () => string; messages: () => readonly Message[] },
  ) {}

  sync(): void {
    const messages = this.session.messages();
    if (this.written > messages.length) this.written = messages.length;
    const lines: string[] = [];
    for (const message of messages.slice(this.written)) {
      const content = this.contentOf(message);
      if (content.length === 0) continue;
      const uuid = randomUUID();
      const entry: Record<string, unknown> = {
        parentUuid: this.parent,
        isSidechain: false,
        userType: 'external',
        cwd: this.session.cwd,
        sessionId: this.session.id(),
        type: message.role,
        message:
          message.role === 'assistant'
            ? { id: `msg_${uuid.replaceAll('-', '')}`, type: 'message', role: 'assistant', model: this.session.model(), content }
            : { role: 'user', content },
        uuid,
        timestamp: new Date().toISOString(),
      };
      this.parent = uuid;
      lines.push(JSON.stringify(entry));
    }
    this.written = messages.length;
    if (lines.length === 0) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${lines.join('\n')}\n`);
  }

  private contentOf(message: Message): unknown[] {
    const out: unknown[] = [];
    for (const block of message.content as ContentBlock[]) {
      switch (block.type) {
        case 'text':
          out.push({ type: 'text', text: block.text });
          break;
        case 'thinking':
          out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
          break;
        case 'redacted_thinking':
          out.push({ type: 'redacted_thinking', data: block.data });
          break;
        case 'tool_use':
          if (block.name === REPORT_TOOL) {
            this.reportIds.add(block.id);
            out.push({ type: 'text', text: reportText(block.input) });
          } else out.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
          break;
        case 'tool_result':
          if (this.reportIds.has(block.tool_use_id)) break;
          out.push({
            type: 'tool_result',
            tool_use_id: block.tool_use_id,
            content: block.content,
            ...(block.is_error ? { is_error: true } : {}),
          });
          break;
        case 'api_block':
          out.push(block.block);
          break;
      }
    }
    return out;
  }
}

function reportText(input: unknown): string {
  if (typeof input === 'object' && input !== null && typeof (input as { summary?: unknown }).summary === 'string')
    return (input as { summary: string }).summary;
  return JSON.stringify(input);
}
