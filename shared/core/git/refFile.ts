import { readFileSync } from 'node:fs';
import path from 'node:path';

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The commit a ref names, read from the repository's files (`refs/…` loose, then `packed-refs`)
 * instead of a `git rev-parse` process: a loop that reads a ref before each step (the merge
 * loop) saves a process each time. `commonDir` is the repository's common git folder (`git
 * rev-parse --git-common-dir`). Undefined when the files do not answer plainly (a symbolic ref,
 * a reftable repository, a ref being rewritten): the caller asks git then.
 */
export function refFromFiles(commonDir: string, ref: string): string | undefined {
  try {
    const loose = readFileSync(path.join(commonDir, ref), 'utf8').trim();
    return SHA.test(loose) ? loose : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  let packed: string;
  try {
    packed = readFileSync(path.join(commonDir, 'packed-refs'), 'utf8');
  } catch {
    return undefined;
  }
  for (const line of packed.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(space + 1) === ref && SHA.test(line.slice(0, space))) return line.slice(0, space);
  }
  return undefined;
}
