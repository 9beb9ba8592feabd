import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../shared/core/runtime/compiledEntry.js';

/** orca's version, as its package.json says (`orca --version`). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8'));
  return z.object({ version: z.string() }).parse(manifest).version;
}
