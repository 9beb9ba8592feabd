import { randomBytes } from 'node:crypto';

/** A run id that sorts by time and reads well in branch names: `r20261130-041512-a3f9`. */
export function newRunId(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}-${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `r${stamp}-${randomBytes(2).toString('hex')}`;
}

/** When a run id made by `newRunId` says its run started; 0 for an id made otherwise. */
export function runIdStartedAt(runId: string): number {
  const match = /^r(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(runId);
  if (!match) return 0;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}
