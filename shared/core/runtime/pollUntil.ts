import { setTimeout as sleep } from 'node:timers/promises';

/** The first pause, doubled after each look up to the caller's longest. */
const FIRST_PAUSE_MS = 1;

/**
 * Looks until `done()` says yes or `ms` have passed; whether it did. The pauses start at 1 ms and
 * double up to `maxPauseMs`: what is looked for (a process gone after its signal, a cgroup
 * emptied) mostly comes within a few milliseconds, which a fixed pause of 20–25 ms would add to
 * every wait (an agent's close took 53–81 ms with one, on the job's path to its result).
 */
export async function pollUntil(done: () => boolean, ms: number, maxPauseMs: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    if (done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(pause);
    pause = Math.min(pause * 2, maxPauseMs);
  }
}
