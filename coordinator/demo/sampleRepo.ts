import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';

/**
 * Makes the demo's sample repository: a small TypeScript library with tests, committed in a
 * fresh git repo at `dir`. Its dev dependencies, typescript and @types/node, are linked from orca's own install
 * so `npm test` works offline.
 */
export function createSampleRepo(dir: string): { dir: string; base: string } {
  const root = packageRoot();
  const template = path.join(root, 'dist', 'coordinator', 'demo', 'sample-repo');
  cpSync(template, dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'demo@orca.invalid');
  git('config', 'user.name', 'orca demo');
  git('add', '-A');
  git('commit', '-q', '-m', 'shop-lib: initial version');
  linkTypescript(dir, root);
  return { dir, base: git('rev-parse', 'HEAD') };
}

function linkTypescript(dir: string, orcaRoot: string): void {
  const modules = path.join(dir, 'node_modules');
  mkdirSync(path.join(modules, '.bin'), { recursive: true });
  mkdirSync(path.join(modules, '@types'), { recursive: true });
  symlinkSync(path.join(orcaRoot, 'node_modules', 'typescript'), path.join(modules, 'typescript'), 'dir');
  symlinkSync(path.join(orcaRoot, 'node_modules', '@types', 'node'), path.join(modules, '@types', 'node'), 'dir');
  symlinkSync('../typescript/bin/tsc', path.join(modules, '.bin', 'tsc'));
}
