import type { TaskStatus } from './runEvent.js';

/**
 * The task statuses (runEvent.ts) grouped by what a reader decides on them, so the coordinator,
 * the board and the CLI mean the same thing by "done" or "not started".
 */

/** Its work is in the integration branch: its dependants may start, and the run may pass. */
export const DONE_WELL: readonly TaskStatus[] = ['merged', 'verified'];

/** The coordinator has nothing more to do for it (completed still waits for its merge). */
export const SETTLED: readonly TaskStatus[] = [...DONE_WELL, 'failed', 'blocked', 'aborted', 'cancelled'];

/** Settled without its work merged: its dependants can never start. */
export const SETTLED_UNMERGED: readonly TaskStatus[] = SETTLED.filter((status) => !DONE_WELL.includes(status));

/** It does nothing more until a retry queues it again: its agent has ended, or it never will run. */
export const ENDED: readonly TaskStatus[] = ['completed', ...SETTLED];

/** No agent has begun on it yet. */
export const NOT_STARTED: readonly TaskStatus[] = ['pending', 'queued'];

/** Its job is waiting for a worker or its agent is at work. */
export const IN_FLIGHT: readonly TaskStatus[] = ['queued', 'running'];

/** Its job may still be waited for, or has its result: a resumed coordinator adopts that job instead of starting another. */
export const ADOPTABLE: readonly TaskStatus[] = [...IN_FLIGHT, 'completed'];
