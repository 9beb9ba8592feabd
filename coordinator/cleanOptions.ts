import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';

/**
 * `orca clean`'s command line, apart from the command itself: every `orca` start defines it, so
 * it stays light (the command's own module pulls in the queue and git layers).
 */

/** The rules `orca clean --help` prints after its options. */
export const CLEAN_RULES = readFileSync(new URL('./clean.txt', import.meta.url), 'utf8');

/** `--older-than`: a whole number with s, m, h or d (`30m`, `12h`, `7d`; `0` for any age). */
export function parseAge(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected a whole number with s, m, h or d, e.g. 30m, 12h, 7d');
  const unit = { '': 1_000, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
