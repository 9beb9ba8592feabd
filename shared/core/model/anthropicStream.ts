import type { StopReason as ApiStopReason, Usage as ApiUsage, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { AssistantBlock } from './message.js';
import type { ModelEvent } from './model.js';
import type { Usage } from './usage.js';

/** How much of a tool input that does not parse is shown to the model. */
const RAW_INPUT_SHOWN = 200;

/**
 * The message's own fields as the stream gives them: usage from message_start, then the
 * cumulative counts, stop reason and details of message_delta (counts left out there stay).
 */
export class MessageTotals {
  stopped = false;
  stopReason: ApiStopReason | null = null;
  stopDetails: { category?: string | null; explanation?: string | null } | null = null;
  inputTransformations: unknown;
  private counts: Partial<ApiUsage> = {};

  /** Takes a message-level event; false for a content event. */
  take(event: RawMessageStreamEvent): boolean {
    if (event.type === 'message_start') {
      this.counts = { ...event.message.usage };
      this.inputTransformations = (event.message as unknown as { input_transformations?: unknown }).input_transformations;
      return true;
    }
    if (event.type === 'message_delta') {
      this.stopReason = event.delta.stop_reason;
      this.stopDetails = event.delta.stop_details ?? null;
      const usage = event.usage;
      this.counts.output_tokens = usage.output_tokens;
      if (usage.input_tokens != null) this.counts.input_tokens = usage.input_tokens;
      if (usage.cache_creation_input_tokens != null) this.counts.cache_creation_input_tokens = usage.cache_creation_input_tokens;
      if (usage.cache_read_input_tokens != null) this.counts.cache_read_input_tokens = usage.cache_read_input_tokens;
      if (usage.output_tokens_details != null) this.counts.output_tokens_details = usage.output_tokens_details;
      return true;
    }
    if (event.type === 'message_stop') {
      this.stopped = true;
      return true;
    }
    return false;
  }

  usage(): Usage {
    const usage = this.counts;
    return {
      input_tokens: usage.input_tokens ?? 0,
      output_tokens: usage.output_tokens ?? 0,
      cache_read_tokens: usage.cache_read_input_tokens ?? 0,
      cache_creation_tokens: usage.cache_creation_input_tokens ?? 0,
      thinking_tokens: usage.output_tokens_details?.thinking_tokens ?? 0,
    };
  }
}

/** A block being streamed, by its index in the answer. */
type OpenBlock =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'tool_use'; id: string; name: string; json: string }
  | { kind: 'complete'; block: AssistantBlock; json?: string };

/**
 * The answer's blocks put together from the stream's events, each yielded whole when its
 * `content_block_stop` arrives. A tool_use whose input does not parse is held until it is known
 * whether the output limit cut it (then it is dropped) or the model finished it (then the model is
 * told). A thinking block that never got its signature (cut off) cannot be sent back and is dropped.
 */
export class AnswerAssembly {
  hasToolUse = false;
  private readonly open = new Map<number, OpenBlock>();
  private broken: { block: AssistantBlock; inputError: string } | undefined;
  private readonly noticed = new Set<string>();

  *take(event: RawMessageStreamEvent): Generator<ModelEvent> {
    if (event.type === 'content_block_start') {
      // A broken input followed by another block was finished, not cut off.
      yield* this.finish(true);
      const block = event.content_block as unknown as { type: string } & Record<string, unknown>;
      if (block.type === 'text') {
        const text = typeof block.text === 'string' ? block.text : '';
        this.open.set(event.index, { kind: 'text', text });
        if (text) yield { type: 'text_delta', text };
      } else if (block.type === 'thinking') {
        this.open.set(event.index, { kind: 'thinking', thinking: String(block.thinking ?? ''), signature: String(block.signature ?? '') });
      } else if (block.type === 'redacted_thinking') {
        this.open.set(event.index, { kind: 'complete', block: { type: 'redacted_thinking', data: String(block.data ?? '') } });
      } else if (block.type === 'tool_use') {
        this.open.set(event.index, { kind: 'tool_use', id: String(block.id), name: String(block.name), json: '' });
      } else {
        yield* this.noticeOnce(
          `block:${block.type}`,
          `the API sent a content block of type "${block.type}", which orca does not run: it is kept as received and sent back with the turn`,
        );
        this.open.set(event.index, { kind: 'complete', block: { type: 'api_block', block: structuredClone(block) } });
      }
    } else if (event.type === 'content_block_delta') {
      const open = this.open.get(event.index);
      const delta = event.delta as unknown as { type: string } & Record<string, unknown>;
      if (delta.type === 'text_delta' && open?.kind === 'text') {
        open.text += String(delta.text);
        yield { type: 'text_delta', text: String(delta.text) };
      } else if (delta.type === 'thinking_delta' && open?.kind === 'thinking') {
        open.thinking += String(delta.thinking);
      } else if (delta.type === 'signature_delta' && open?.kind === 'thinking') {
        open.signature = String(delta.signature);
      } else if (delta.type === 'input_json_delta' && (open?.kind === 'tool_use' || open?.kind === 'complete')) {
        open.json = (open.json ?? '') + String(delta.partial_json);
      } else if (delta.type !== 'citations_delta') {
        // Citations only come with documents, which orca never sends.
        yield* this.noticeOnce(`delta:${delta.type}`, `the API sent a "${delta.type}" delta orca does not know; it was ignored`);
      }
    } else if (event.type === 'content_block_stop') {
      const open = this.open.get(event.index);
      this.open.delete(event.index);
      if (open) yield* this.close(open);
    }
  }

  /** The held broken tool_use: told to the model when the answer finished it, dropped when cut off. */
  *finish(finished: boolean): Generator<ModelEvent> {
    const broken = this.broken;
    this.broken = undefined;
    if (broken && finished) yield { type: 'block', ...broken };
  }

  private *close(open: OpenBlock): Generator<ModelEvent> {
    switch (open.kind) {
      case 'text':
        if (open.text) yield { type: 'block', block: { type: 'text', text: open.text } };
        return;
      case 'thinking':
        if (open.signature) yield { type: 'block', block: { type: 'thinking', thinking: open.thinking, signature: open.signature } };
        return;
      case 'tool_use': {
        this.hasToolUse = true;
        const input = parseToolInput(open.json);
        const block = { type: 'tool_use' as const, id: open.id, name: open.name, input: input.ok ? input.value : {} };
        if (input.ok) yield { type: 'block', block };
        else {
          const raw = open.json.length > RAW_INPUT_SHOWN ? `${open.json.slice(0, RAW_INPUT_SHOWN)}…` : open.json;
          this.broken = { block, inputError: `${input.problem}; the input began: ${raw}` };
        }
        return;
      }
      case 'complete': {
        const { block } = open;
        if (block.type === 'api_block' && open.json !== undefined) {
          const input = parseToolInput(open.json);
          block.block.input = input.ok ? input.value : open.json;
        }
        yield { type: 'block', block };
        return;
      }
    }
  }

  private *noticeOnce(key: string, message: string): Generator<ModelEvent> {
    if (this.noticed.has(key)) return;
    this.noticed.add(key);
    yield { type: 'notice', level: 'warn', message };
  }
}

function parseToolInput(json: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  // A tool called without arguments streams no input_json_delta at all.
  if (json.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(json);
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return { ok: false, problem: 'the input is not a JSON object' };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, problem: `the input is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}
