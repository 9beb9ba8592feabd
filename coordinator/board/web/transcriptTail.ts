import { fileTail } from './fileTail.js';

/** How much of a transcript's end the board reads: enough for the last few turns, never the whole file. */
const TAIL_BYTES = 256 * 1024;
const TAIL_LINES = 200;
const TEXT_MAX = 600;

export interface TranscriptLine {
  at: number | null;
  type: string;
  text: string;
}

/**
 * The end of an agent's transcript (JSONL, one event a line, written by pino), each event as one
 * readable line. A line that is not JSON is shown as it is, not dropped.
 */
export async function transcriptTail(file: string): Promise<{ lines: TranscriptLine[]; cut: boolean }> {
  const { text, cut } = await fileTail(file, TAIL_BYTES);
  const raw = text.split('\n').filter((line) => line.trim());
  const lines = raw.slice(-TAIL_LINES).map(transcriptLine);
  return { lines, cut: cut || raw.length > TAIL_LINES };
}

function transcriptLine(line: string): TranscriptLine {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { at: null, type: 'unparsed', text: clip(line) };
  }
  const type = String(event.type ?? event.msg ?? '?');
  const at = typeof event.at === 'number' ? event.at : null;
  return { at, type, text: clip(describe(type, event)) };
}

function describe(type: string, event: Record<string, unknown>): string {
  switch (type) {
    case 'session_start':
      return `session ${event.session_id} started: ${event.role}, model ${event.model}${event.scripted ? ' (Scripted, no LLM)' : ''}`;
    case 'prompt':
      return `prompt: ${event.text}`;
    case 'memory': {
      const cards = Array.isArray(event.cards) ? (event.cards as Array<{ id?: string; title?: string }>) : [];
      return cards.length === 0
        ? 'memory: no card matched the task'
        : `memory: ${cards.map((card) => `${card.id} "${card.title}"`).join(', ')}`;
    }
    case 'turn_start':
      return `turn ${event.turn}`;
    case 'assistant_text':
      return String(event.text ?? '');
    case 'thinking':
      return event.redacted ? 'thinking (redacted by the API)' : `thinking: ${String(event.text ?? '') || '(text not returned)'}`;
    case 'tool_call':
      return `${event.name} ${JSON.stringify(event.input)}`;
    case 'tool_result':
      return `${event.is_error ? '✗' : '✓'} ${event.name} (${event.chars} chars): ${event.preview ?? ''}`;
    case 'usage': {
      const usage = (event.usage ?? {}) as Record<string, number>;
      return `tokens: ${usage.input_tokens ?? 0} in, ${usage.cache_read_tokens ?? 0} cache read, ${usage.cache_creation_tokens ?? 0} cache write, ${usage.output_tokens ?? 0} out${usage.thinking_tokens ? ` (${usage.thinking_tokens} thinking)` : ''}`;
    }
    case 'permission':
      return `permission ${event.decision} for ${event.tool} by ${event.by}: ${event.reason}`;
    case 'hook':
      return `hook ${event.event} ${event.outcome}: ${event.detail ?? event.command}`;
    case 'notice':
      return `${event.level}: ${event.message}`;
    case 'end':
      return `ended: ${event.reason} (${event.detail}) after ${event.turns} turns`;
    default: {
      const { level: _level, time: _time, msg: _msg, type: _type, at: _at, ...rest } = event;
      return JSON.stringify(rest);
    }
  }
}

function clip(text: string): string {
  return text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX - 1)}…` : text;
}
