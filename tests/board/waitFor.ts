import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls until `condition` holds. The deadline is a safety net for a slow machine, not a measure of
 * speed; past it the test fails with `context()` (what the process printed, what the page showed).
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, context: () => string, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`the condition never held; last seen:\n${context().slice(-4_000)}`);
    await sleep(50);
  }
}
