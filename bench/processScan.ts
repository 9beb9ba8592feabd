import { readdirSync, readFileSync } from 'node:fs';

/**
 * Live processes whose command line contains `marker`, read straight from /proc: cheap enough to
 * poll every few milliseconds, unlike a `ps` per poll. Zombies are left out: they run nothing.
 */
export function pidsWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1');
      if (!cmdline.includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') found.push(Number(name));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

/** A process's peak resident set (VmHWM) and current one (VmRSS), in MB. */
export function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
}

/** CPU a process has spent itself (user + system, its children not counted), in ms. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Linux's USER_HZ: 100 on every architecture Node runs on (sysconf(_SC_CLK_TCK)). */
const CLOCK_TICKS_PER_SECOND = 100;
