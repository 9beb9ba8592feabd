import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { ModelError } from '../../core/model/modelError.js';
import type { Keys } from '../redis/keys.js';

/**
 * The fan-out hold across worker processes and hosts: of the agents of a run whose first requests
 * share a static prompt prefix, the first to claim the prefix's leader key (`SET NX`) sends its
 * request at once; the others wait until its response has started (it pushes onto the prefix's
 * started list) or the bound passes, so they read the prompt cache it wrote instead of each
 * writing the prefix again. A leader whose call fails before its response started releases them
 * at once too; an abort releases a waiting agent at once.
 */

/** The default bound on the hold; `ORCA_FANOUT_HOLD_MS` sets another, 0 turns the hold off. */
export const DEFAULT_FANOUT_HOLD_MS = 3_000;

/** How long the gate's keys live: the API's prompt cache lives five minutes after its last use. */
const GATE_TTL_MS = 5 * 60_000;

/** The hold's bound in ms from `ORCA_FANOUT_HOLD_MS` (unset: the default; 0: no hold); another value is an error naming it. */
export function fanoutHoldMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ORCA_FANOUT_HOLD_MS?.trim();
  if (raw === undefined || raw === '') return DEFAULT_FANOUT_HOLD_MS;
  if (!/^\d+$/.test(raw)) {
    throw new ModelError('config', `ORCA_FANOUT_HOLD_MS is "${raw}": give the fan-out hold's bound in milliseconds (0 turns the hold off)`);
  }
  return Number(raw);
}

/** How an agent passed the gate. */
export type GatePass =
  /** It went first; `release` lets the others go (`started`: its response started; `failed`: its call ended before). */
  | { kind: 'leader'; release: (how: 'started' | 'failed') => Promise<void> }
  /** It waited: until the leader's response started or its call failed, or until the bound passed. */
  | { kind: 'follower'; waited: 'started' | 'failed' | 'bound' };

export interface FanoutGateOptions {
  redis: Redis;
  keys: Keys;
  runId: string;
  /** The bound on a follower's wait. */
  holdMs: number;
}

export class FanoutGate {
  constructor(private readonly options: FanoutGateOptions) {}

  get holdMs(): number {
    return this.options.holdMs;
  }

  /**
   * Passes the gate of one static prefix (`gate`: the role and the prefix's hash). Rejects with a
   * ModelError of kind `aborted` as soon as `signal` aborts, without waiting for anything else.
   */
  async pass(gate: string, signal: AbortSignal): Promise<GatePass> {
    const { redis, keys, runId } = this.options;
    throwIfAborted(signal);
    const leaderKey = keys.fanoutLeader(runId, gate);
    const startedKey = keys.fanoutStarted(runId, gate);
    const owner = `${os.hostname()}:${process.pid}:${randomUUID()}`;
    const claimed = await redis.set(leaderKey, owner, 'PX', GATE_TTL_MS, 'NX');
    if (claimed === 'OK') {
      return {
        kind: 'leader',
        release: async (how) => {
          await redis.multi().rpush(startedKey, how).pexpire(startedKey, GATE_TTL_MS).exec();
        },
      };
    }
    // Already started (a later agent of the same role): no wait, no extra connection.
    const seen = await redis.lindex(startedKey, 0);
    if (seen !== null) return { kind: 'follower', waited: asWaited(seen) };
    return { kind: 'follower', waited: await this.waitForStart(startedKey, signal) };
  }

  /**
   * Blocks on the started list on a connection of its own (a blocking command holds its
   * connection): BLMOVE of the list onto itself returns its entry without taking it, so every
   * waiter sees it. An abort closes that connection, which ends the wait at once.
   */
  private async waitForStart(startedKey: string, signal: AbortSignal): Promise<'started' | 'failed' | 'bound'> {
    // BLMOVE's timeout 0 would wait for ever: a bound of 0 is no hold.
    if (this.options.holdMs <= 0) return 'bound';
    const connection = this.options.redis.duplicate();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const waited = connection.blmove(startedKey, startedKey, 'RIGHT', 'LEFT', this.options.holdMs / 1000);
    // Once the abort has won, the closed connection's rejection is expected: the abort is what the caller gets.
    waited.catch(() => undefined);
    try {
      throwIfAborted(signal);
      const entry = await Promise.race([waited, aborted]);
      return entry === null ? 'bound' : asWaited(entry);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
      connection.disconnect();
    }
  }
}

function asWaited(entry: string): 'started' | 'failed' {
  return entry === 'failed' ? 'failed' : 'started';
}

function abortError(signal: AbortSignal): ModelError {
  return new ModelError('aborted', 'the model call was aborted while it waited for the fan-out leader', undefined, {
    cause: signal.reason,
  });
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}
