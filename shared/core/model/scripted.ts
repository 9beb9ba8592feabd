import { createHash } from 'node:crypto';
import type { Model, ModelEvent, ModelRequest } from './model.js';
import { ModelError } from './modelError.js';
import type { Script, ScriptAgent, ScriptTurn } from './scriptFile.js';
import { estimateTokens, requestSegments } from './tokenEstimate.js';
import type { Usage } from './usage.js';

/** Who the model speaks for: what a script's `when` is matched against. */
export interface ScriptedAgentIdentity {
  role: string;
  /** The plan subtask id, for workers. */
  task?: string;
  /** The agent's task prompt, which `prompt_includes` searches. */
  prompt: string;
}

/**
 * A deterministic stand-in for the LLM: it plays one agent's turns from a script file, one per
 * model call, whatever the tool results say. Usage is estimated (and prompt caching simulated)
 * so budgets and compaction behave as they would with a real model; it costs nothing.
 */
export class ScriptedModel implements Model {
  readonly id = 'scripted';
  readonly scripted = true;
  /** The agent's script, chosen once: a script with no match fails here, before any turn. */
  readonly agent: ScriptAgent;
  /** How messages name this agent's script: `worker/t1`. */
  readonly label: string;
  private turnsPlayed = 0;
  private readonly cache = new PromptCacheSimulation();

  constructor(
    private readonly script: Script,
    private readonly identity: ScriptedAgentIdentity,
  ) {
    this.agent = selectScriptAgent(script, identity);
    this.label = identity.task === undefined ? identity.role : `${identity.role}/${identity.task}`;
  }

  cost(_usage: Usage): number {
    return 0;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const index = this.turnsPlayed;
    const scripted = this.agent.turns[index];
    const turn: ScriptTurn = scripted ?? {
      text: `[scripted model] The script for ${this.label} (${this.script.source}) ran out after ${this.agent.turns.length} turns; this agent stops here without a Report.`,
    };
    if (signal.aborted) await abortableSleep(0, signal);
    // Its response starts as the call is taken: its cache is simulated per process, so an agent
    // held behind it (the fan-out hold) would gain nothing by waiting out its latency.
    request.onResponseStart?.();
    await abortableSleep(turn.latency_ms ?? this.script.latency_ms ?? 0, signal);
    // Counted only once delivered: a call aborted during its latency leaves the turn unplayed.
    this.turnsPlayed = index + 1;

    const usage = this.cache.measure(request);
    const text = turn.text ?? '';
    const tools = turn.tools ?? [];
    const thinking = turn.thinking ?? '';
    usage.thinking_tokens = estimateTokens(thinking);
    usage.output_tokens =
      usage.thinking_tokens +
      estimateTokens(text) +
      tools.reduce((sum, tool) => sum + estimateTokens(tool.name + JSON.stringify(tool.input)), 0);

    if (turn.thinking !== undefined) {
      const signature = `scripted-${createHash('sha256').update(thinking).digest('base64url').slice(0, 32)}`;
      yield { type: 'block', block: { type: 'thinking', thinking, signature } };
    }
    for (const piece of deltas(text)) yield { type: 'text_delta', text: piece };
    if (text) yield { type: 'block', block: { type: 'text', text } };
    for (const [position, tool] of tools.entries()) {
      yield {
        type: 'block',
        block: { type: 'tool_use', id: this.toolUseId(index, position), name: tool.name, input: structuredClone(tool.input) },
      };
    }
    yield { type: 'message_end', stopReason: tools.length > 0 ? 'tool_use' : 'end_turn', usage };
  }

  /** Stable across runs, so transcripts of the same script compare equal. */
  private toolUseId(turn: number, position: number): string {
    const seed = [this.identity.role, this.identity.task ?? '', String(turn), String(position)].join('\u0000');
    return `toolu_${createHash('sha256').update(seed).digest('hex').slice(0, 24)}`;
  }
}

/**
 * The agent script whose `when` fits: `role` must match, `task` and `prompt_includes` narrow.
 * The most specific match (most narrowing fields that match) wins; on a tie, the first in the file.
 */
export function selectScriptAgent(script: Script, identity: ScriptedAgentIdentity): ScriptAgent {
  let best: { agent: ScriptAgent; score: number } | undefined;
  for (const agent of script.agents) {
    const { role, task, prompt_includes: includes } = agent.when;
    if (role !== identity.role) continue;
    if (task !== undefined && task !== identity.task) continue;
    if (includes !== undefined && !identity.prompt.includes(includes)) continue;
    const score = (task === undefined ? 0 : 1) + (includes === undefined ? 0 : 1);
    if (!best || score > best.score) best = { agent, score };
  }
  if (best) return best.agent;
  const task = identity.task === undefined ? 'no task' : `task "${identity.task}"`;
  const known = script.agents.map(({ when }) => describeWhen(when)).join('; ');
  throw new ModelError(
    'script',
    `${script.source} has no agent for role "${identity.role}" with ${task}: add an agent whose "when" matches it (the script has: ${known})`,
  );
}

function describeWhen(when: ScriptAgent['when']): string {
  const parts = [`role "${when.role}"`];
  if (when.task !== undefined) parts.push(`task "${when.task}"`);
  if (when.prompt_includes !== undefined) parts.push(`prompt_includes ${JSON.stringify(when.prompt_includes)}`);
  return parts.join(', ');
}

/** A turn's text in a few pieces, as a streamed answer would arrive. */
function deltas(text: string): string[] {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / 3));
  const pieces: string[] = [];
  for (let start = 0; start < chars.length; start += size) pieces.push(chars.slice(start, start + size).join(''));
  return pieces;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  const aborted = () => new ModelError('aborted', 'the scripted model call was aborted', undefined, { cause: signal.reason });
  if (signal.aborted) return Promise.reject(aborted());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Prompt caching as the API does it: a request's cacheable prefix runs up to its last cache
 * breakpoint; the longest part of it that an earlier call cached (at one of that call's
 * breakpoints) is read from cache, the rest of the prefix is written, everything after it is
 * plain input. Prefixes are compared by a hash chain over the segments' exact content. The API's
 * minimum cacheable length and its five-minute lifetime are left out: a script is short.
 */
class PromptCacheSimulation {
  private readonly cached = new Set<string>();

  measure(request: ModelRequest): Usage {
    const segments = requestSegments(request);
    const chain: string[] = [];
    const through: number[] = [];
    let hash = '';
    let tokens = 0;
    for (const segment of segments) {
      hash = createHash('sha256').update(hash).update('\u0000').update(segment.key).digest('hex');
      tokens += segment.tokens;
      chain.push(hash);
      through.push(tokens);
    }
    const prefixEnd = segments.findLastIndex((segment) => segment.cacheBreakpoint);
    let readEnd = -1;
    for (let index = prefixEnd; index >= 0; index -= 1) {
      if (this.cached.has(chain[index]!)) {
        readEnd = index;
        break;
      }
    }
    const read = readEnd < 0 ? 0 : through[readEnd]!;
    const prefix = prefixEnd < 0 ? 0 : through[prefixEnd]!;
    segments.forEach((segment, index) => {
      if (segment.cacheBreakpoint) this.cached.add(chain[index]!);
    });
    return {
      input_tokens: tokens - prefix,
      output_tokens: 0,
      cache_read_tokens: read,
      cache_creation_tokens: prefix - read,
      thinking_tokens: 0,
    };
  }
}
