import { createHash } from 'node:crypto';
import path from 'node:path';

/** A repository's folder name under ORCA_HOME (views, pools): readable, and unique by its full path. */
export function repoKey(repo: string): string {
  return `${path.basename(repo).replace(/[^A-Za-z0-9._-]/g, '_')}-${createHash('sha256').update(repo).digest('hex').slice(0, 12)}`;
}
