import { lstatSync } from 'node:fs';

/** Whether anything is at `file`, a dangling symlink included (existsSync follows links, and says no). */
export function entryExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
