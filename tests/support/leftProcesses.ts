import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Vitest's global setup: every process a test starts inherits ORCA_TEST_SUITE, a marker of this
 * `npm test` alone (another suite on the machine has its own). When the suite ends, a process
 * still carrying it outlived its test: the suite fails, naming each one. The wait for stragglers
 * (a worker still unwinding) is a safety net, not a measure of speed.
 */
const MARKER = 'ORCA_TEST_SUITE';
const STRAGGLERS_MS = 15_000;

export function setup(): void {
  process.env[MARKER] = randomUUID();
}

export async function teardown(): Promise<void> {
  const marker = process.env[MARKER];
  if (!marker) return;
  const deadline = Date.now() + STRAGGLERS_MS;
  let left = processesMarked(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(250);
    left = processesMarked(marker);
  }
  if (left.length === 0) return;
  // Vitest prints an error thrown here but keeps its exit code: the suite must fail.
  process.exitCode = 1;
  throw new Error(
    `${left.length} process(es) started by the tests still run after them (a test must stop what it starts):\n${left.map((one) => `  ${one.pid} ${one.command}`).join('\n')}`,
  );
}

/** Live processes (not zombies) with the marker in their environment, but this one and its own helpers (esbuild). */
function processesMarked(marker: string): Array<{ pid: number; command: string }> {
  const needle = Buffer.from(`${MARKER}=${marker}\0`);
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X' || Number(parent) === process.pid) continue;
      if (!readFileSync(`/proc/${entry}/environ`).includes(needle)) continue;
      found.push({ pid: Number(entry), command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // Gone since the listing, or not ours to read: not a process of this suite.
    }
  }
  return found;
}
