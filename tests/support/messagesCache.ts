import { createHash } from 'node:crypto';

/**
 * The Messages API's prompt cache, as the local stand-in (messagesServer.ts) plays it, written
 * from the API's documentation (not from orca's own simulation):
 *
 * - A request is read in the API's order: tools, then system blocks, then each message's blocks.
 *   Its cacheable prefix runs up to its last `cache_control` breakpoint.
 * - It reads the longest prefix already cached that ends at one of its breakpoints or at a block
 *   boundary up to 20 blocks before one (the API's lookback); it writes the rest of its prefix, at
 *   each of its breakpoints. What comes after the last breakpoint is plain input.
 * - What a request writes becomes readable only once its response has started (message_start
 *   sent): a request that arrives before that writes the same prefix again, as on the API.
 *
 * Left out: the minimum cacheable length (1,024 or more tokens on the API: here any prefix is
 * cached), the five-minute lifetime, and the per-model, per-organisation separation (one server,
 * one cache). Tokens are estimated at four characters each, of each block's JSON without its
 * `cache_control`.
 */

// biome-ignore lint/suspicious/noExplicitAny: request bodies are read field by field, as the API does.
type Json = any;

/** The API's lookback: how many block boundaries before a breakpoint it checks for a hit. */
const LOOKBACK_BLOCKS = 20;

export interface CacheUsage {
  /** Input after the last breakpoint (the API's `input_tokens`). */
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** What one request read and will write, measured when it arrived. */
export interface CacheLookup {
  usage: CacheUsage;
  /** The prefixes (hash chain links) this request writes, readable once `publish` is called. */
  writes: string[];
}

interface Segment {
  key: string;
  tokens: number;
  breakpoint: boolean;
}

export class PromptCache {
  private readonly readable = new Set<string>();

  /** What `body` reads from the cache as it stands now, and what it would write. */
  lookup(body: Json): CacheLookup {
    const segments = segmentsOf(body);
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
    const breakpoints = segments.flatMap((segment, index) => (segment.breakpoint ? [index] : []));
    const last = breakpoints.at(-1);
    if (last === undefined)
      return { usage: { input_tokens: tokens, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, writes: [] };
    let readEnd = -1;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= Math.max(0, breakpoint - LOOKBACK_BLOCKS); index -= 1) {
        if (index > readEnd && this.readable.has(chain[index]!)) readEnd = index;
      }
    }
    const prefix = through[last]!;
    const read = readEnd < 0 ? 0 : through[readEnd]!;
    return {
      usage: { input_tokens: tokens - prefix, cache_read_input_tokens: read, cache_creation_input_tokens: prefix - read },
      writes: breakpoints.map((index) => chain[index]!),
    };
  }

  /** The request's response started: what it wrote is readable from now on. */
  publish(lookup: CacheLookup): void {
    for (const link of lookup.writes) this.readable.add(link);
  }
}

/** The request's blocks in the API's order, each with its estimate and whether a breakpoint ends it. */
function segmentsOf(body: Json): Segment[] {
  const segments: Segment[] = [];
  const push = (kind: string, block: Json): void => {
    const { cache_control: marker, ...content } = typeof block === 'string' ? { type: 'text', text: block } : (block ?? {});
    const key = `${kind}:${JSON.stringify(content)}`;
    segments.push({ key, tokens: Math.ceil(JSON.stringify(content).length / 4), breakpoint: marker !== undefined && marker !== null });
  };
  for (const tool of Array.isArray(body?.tools) ? body.tools : []) push('tool', tool);
  const system = body?.system;
  if (typeof system === 'string') push('system', system);
  else if (Array.isArray(system)) for (const block of system) push('system', block);
  for (const message of Array.isArray(body?.messages) ? body.messages : []) {
    const content = typeof message?.content === 'string' ? [message.content] : Array.isArray(message?.content) ? message.content : [];
    for (const block of content) push(String(message?.role), block);
  }
  return segments;
}
