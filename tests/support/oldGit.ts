import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './tempDir.js';

/**
 * A folder holding a `git` that answers as an older git does to an option it does not know: `message`
 * on stderr and exit 129 (git's usage error) whenever `option` is among its arguments; the real git
 * otherwise. Put it first on PATH to take the old-git path of the code under test.
 */
export function oldGitBin(option: string, message: string): string {
  const bin = tempDir('orca-old-git-');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const quoted = message.replace(/'/g, `'\\''`);
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\nfor arg; do [ "$arg" = "${option}" ] && { echo '${quoted}' >&2; exit 129; }; done\nexec ${real} "$@"\n`,
    { mode: 0o755 },
  );
  return bin;
}
