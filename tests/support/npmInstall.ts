import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * Installs one pinned npm package into `dir` (npm's cache makes a second install quick) and
 * returns the folder of its programs. For agent CLIs that are not orca's dependencies: a package
 * whose platform binaries the registry here lacks for other systems cannot be in orca's lock file
 * (`npm ci` refuses a lock without them), and the tests need only this machine's.
 */
export async function npmInstall(dir: string, spec: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const child = spawn('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel', 'error', spec], {
    cwd: dir,
    env: process.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`npm could not install ${spec} (exit ${code}): ${stderr.trim()}`);
  return path.join(dir, 'node_modules', '.bin');
}

/**
 * The folder of the programs of `spec`, installed (npmInstall) into a temp folder of the test
 * file's own before its tests and removed after them: call at the file's top level; read `bin()`
 * in a test.
 */
export function npmInstallForFile(spec: string, timeoutMs: number): { bin(): string } {
  let root: string | undefined;
  let bin: string | undefined;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'orca-npm-'));
    bin = await npmInstall(root, spec);
  }, timeoutMs);
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return {
    bin: () => {
      if (!bin) throw new Error(`${spec} is not installed: bin() is read in a test, after the file's beforeAll`);
      return bin;
    },
  };
}
