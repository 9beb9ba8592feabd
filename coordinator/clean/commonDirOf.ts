import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from '../../shared/core/git/git.js';

/** The git common dir of the repository `dir` is in (its `.git`, or a bare repository), if any. */
export async function commonDirOf(dir: string): Promise<string | undefined> {
  if (!existsSync(dir)) return undefined;
  try {
    return realpathSync(path.resolve(dir, (await gitAt(dir).raw(['rev-parse', '--git-common-dir'])).trim()));
  } catch {
    return undefined;
  }
}
