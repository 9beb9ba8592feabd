import { readdirSync } from 'node:fs';

/** The names in a folder; none when the folder is missing (any other failure is thrown). */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
