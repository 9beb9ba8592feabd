import { createHash } from 'node:crypto';
import type { Model, ModelEvent, ModelRequest } from '../../core/model/model.js';
import { isAbort } from '../../core/model/modelError.js';
import type { Usage } from '../../core/model/usage.js';
import type { FanoutGate } from './fanoutGate.js';

/**
 * A model whose first call passes the run's fan-out gate (fanoutGate.ts) before it goes out: agents
 * of one role started together share the static prompt prefix (the tools and the system prompt up
 * to its cache breakpoint), and a follower's first request waits until the leader's response has
 * started, so it reads the prompt cache the leader wrote. Every later call goes straight through.
 */
export class FanoutModel implements Model {
  readonly id: string;
  readonly scripted: boolean;
  readonly nativeToolSearch?: boolean;
  private first = true;

  constructor(
    private readonly inner: Model,
    private readonly gate: FanoutGate,
    /** The agent's role: agents of different roles never wait on each other. */
    private readonly role: string,
  ) {
    this.id = inner.id;
    this.scripted = inner.scripted;
    if (inner.nativeToolSearch !== undefined) this.nativeToolSearch = inner.nativeToolSearch;
  }

  cost(usage: Usage): number {
    return this.inner.cost(usage);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const prefix = this.first ? staticPrefixHash(this.inner.id, request) : undefined;
    this.first = false;
    if (prefix === undefined) {
      yield* this.inner.stream(request, signal);
      return;
    }
    let pass: Awaited<ReturnType<FanoutGate['pass']>>;
    try {
      pass = await this.gate.pass(`${this.role}:${prefix}`, signal);
    } catch (error) {
      if (isAbort(error)) throw error;
      // The hold only saves cache writes: without Redis' answer the call goes on, and says why.
      yield { type: 'notice', level: 'warn', message: `fan-out hold skipped: ${describe(error)}` };
      yield* this.inner.stream(request, signal);
      return;
    }
    if (pass.kind === 'follower') {
      yield* this.inner.stream(request, signal);
      return;
    }
    yield* this.lead(request, signal, pass.release);
  }

  /** The leader's call: the others are let go when its response starts, or as soon as it ends without starting. */
  private async *lead(
    request: ModelRequest,
    signal: AbortSignal,
    release: (how: 'started' | 'failed') => Promise<void>,
  ): AsyncGenerator<ModelEvent> {
    let released: Promise<void> | undefined;
    const letGo = (how: 'started' | 'failed'): void => {
      released ??= release(how);
    };
    const outer = request.onResponseStart;
    const started: ModelRequest = {
      ...request,
      onResponseStart: () => {
        letGo('started');
        outer?.();
      },
    };
    let failed: unknown;
    try {
      for await (const event of this.inner.stream(started, signal)) {
        // A model that does not report its start has started once anything arrives.
        if (event.type !== 'notice') letGo('started');
        yield event;
      }
    } finally {
      letGo('failed');
      try {
        await released;
      } catch (error) {
        failed = error;
      }
    }
    // Only reached when the call itself succeeded: the waiters then went on after their bound.
    if (failed !== undefined)
      yield {
        type: 'notice',
        level: 'warn',
        message: `fan-out hold: the waiting agents were not told this call started (${describe(failed)}); they went after the hold's bound`,
      };
  }
}

/**
 * What agents share at the head of their first request, hashed: the model, the tools up to the
 * static ones and the system blocks up to the last cache breakpoint among them. Undefined when
 * the request marks no breakpoint there: nothing is cached for others to read.
 */
export function staticPrefixHash(modelId: string, request: ModelRequest): string | undefined {
  const lastCached = request.system.findLastIndex((block) => block.cache === true);
  if (lastCached < 0 && !request.cacheTools) return undefined;
  const tools = request.tools.slice(0, request.staticTools ?? request.tools.length);
  const system = lastCached < 0 ? [] : request.system.slice(0, lastCached + 1);
  return createHash('sha256')
    .update(JSON.stringify({ model: modelId, cacheTools: request.cacheTools === true, tools, system }))
    .digest('hex')
    .slice(0, 32);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
