import type { AgentEvent } from '../shared/core/events/agentEvent.js';

/** One terminal line for an agent event, or undefined for events not worth a line. */
export function eventLine(event: AgentEvent, who = ''): string | undefined {
  const tag = who ? `[${who}] ` : '';
  switch (event.type) {
    case 'session_start':
      return `${tag}started (${event.role}, model ${event.model}${event.scripted ? ': Scripted, no LLM' : ''}) in ${event.cwd}`;
    case 'memory':
      return event.cards.length === 0 ? undefined : `${tag}  memory: ${event.cards.map((card) => `${card.id} "${card.title}"`).join(', ')}`;
    case 'tool_call':
      return `${tag}${event.name} ${summariseInput(event.input)}`;
    case 'tool_result':
      return event.is_error ? `${tag}  ✗ ${event.name}: ${firstLine(event.preview)}` : undefined;
    case 'assistant_text':
      return `${tag}“${firstLine(event.text)}”`;
    case 'permission':
      // An ask is shown as its request (or answered in advance); an allow is the tool call's line.
      return event.decision === 'deny' ? `${tag}  permission denied for ${event.tool} by ${event.by}: ${event.reason}` : undefined;
    case 'hook':
      return event.outcome === 'ok' ? undefined : `${tag}  hook ${event.event} ${event.outcome}: ${event.detail ?? event.command}`;
    case 'compaction':
      return `${tag}  context ${event.level}: ${event.tokens_before} → ${event.tokens_after} tokens`;
    case 'notice':
      return `${tag}  ${event.level}: ${firstLine(event.message)}`;
    case 'report_rejected':
      return `${tag}  Report refused (attempt ${event.attempt}): ${firstLine(event.error)}`;
    case 'end':
      return `${tag}ended: ${event.reason} (${event.detail}) after ${event.turns} turns`;
    default:
      return undefined;
  }
}

function summariseInput(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const record = input as Record<string, unknown>;
  const main = record.command ?? record.file_path ?? record.pattern ?? record.skill;
  return typeof main === 'string' ? firstLine(main) : '';
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
