import { readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * A PATH with every program of this one but `program`, for processes that must not find it (a
 * machine without bwrap): links to each program, first of a name wins, in `dir`.
 */
export function pathWithout(program: string, dir: string, pathValue = process.env.PATH ?? ''): string {
  const seen = new Set<string>([program]);
  for (const folder of pathValue.split(path.delimiter)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue; // A PATH entry that is not there holds nothing to link.
    }
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      symlinkSync(path.join(folder, name), path.join(dir, name));
    }
  }
  return dir;
}
