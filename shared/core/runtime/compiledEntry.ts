import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Node 20 cannot load .ts in a child process or a worker thread, so every entry point that starts
 * one (the CLI, worker processes, piscina workers) is launched from the compiled `dist/` tree,
 * which `npm ci` builds (the `prepare` script). This is the one way, in tests and in production.
 */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'orca') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the orca package root above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** The compiled file for a source path like `workers/main.ts` or `shared/tools/grepWorker.ts`. */
export function compiledEntry(sourcePath: string): string {
  const file = path.join(packageRoot(), 'dist', sourcePath.replace(/\.ts$/, '.js'));
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: run \`npm run build\` (npm ci runs it) before starting orca from a checkout.`);
  }
  return file;
}
