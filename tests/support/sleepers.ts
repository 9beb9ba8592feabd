import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach } from 'vitest';
import { processesMatching } from './processTable.js';

/**
 * Long sleeps an agent's shell runs, each with a marker no other process on the machine shows
 * (`sleep 600.4242<random><n>`), so a test can find them with `ps`, wait for them, and see them
 * gone. Whatever a test leaves running is killed after it (a SIGKILLed worker cannot kill its
 * unsandboxed shells; a failed test may leave any).
 */
const made: string[] = [];

export function sleepMarker(): string {
  const marker = `600.4242${randomInt(1_000_000, 9_999_999)}${made.length}`;
  made.push(marker);
  return marker;
}

/** A Bash command whose grandchild sleeps: the tool's shell runs bash, which runs sleep. */
export function sleeperCommand(marker: string): string {
  return `bash -c "sleep ${marker}; echo unreachable"`;
}

/**
 * Polls until each marker's `sleep` itself runs (not merely a parent whose command line names
 * it, such as bwrap's): whatever the command did before the sleep is done by then. The deadline
 * is a safety net, not a measure of speed.
 */
export async function waitForSleeps(markers: string[], deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const missing = markers.filter((marker) => !processesMatching(marker).some((row) => row.args.startsWith(`sleep ${marker}`)));
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(`these sleeps never started: ${missing.join(', ')}`);
    await sleep(50);
  }
}

afterEach(() => {
  for (const marker of made.splice(0)) {
    for (const row of processesMatching(marker)) {
      try {
        process.kill(row.pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error; // gone since the listing
      }
    }
  }
});
