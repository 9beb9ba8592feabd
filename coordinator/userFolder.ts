import { existsSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../shared/core/runtime/compiledEntry.js';

/**
 * The folder the user ran orca from. `npm run orca -- …` (from a checkout, e.g. with
 * `npm --prefix ~/orca run orca`) runs the CLI in orca's own package folder and says where the
 * user was in INIT_CWD; every "current folder" default (`--repo`, `orca clean`, `orca memory`)
 * and every relative path given means that folder. Only when the CLI runs in orca's package
 * folder: an `orca` an npm script of the user's project starts in a folder of its own stays there.
 */
export function userFolder(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const initial = env.INIT_CWD;
  if (!initial || !path.isAbsolute(initial) || !existsSync(initial)) return cwd;
  return path.resolve(cwd) === packageRoot() ? initial : cwd;
}
