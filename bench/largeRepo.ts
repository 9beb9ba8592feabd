import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A generated repository of `files` small TypeScript files (default 20,000) in folders of 100,
 * committed on main: the shape of a large monorepo for the start-latency and grep benchmarks.
 * Every 50th file calls `legacyTotal`, the pattern the grep benchmark looks for.
 */
export function makeLargeRepo(dir: string, files = 20_000): { dir: string; base: string; files: number } {
  mkdirSync(dir, { recursive: true });
  for (let index = 0; index < files; index += 1) {
    const folder = path.join(
      dir,
      'packages',
      `pkg${String(Math.floor(index / 1_000)).padStart(2, '0')}`,
      'src',
      `mod${String(Math.floor(index / 100) % 10)}`,
    );
    if (index % 100 === 0) mkdirSync(folder, { recursive: true });
    const name = `file${String(index).padStart(5, '0')}.ts`;
    const body = [
      `// Generated module ${index}.`,
      `export interface Item${index} { id: number; cents: number; qty: number }`,
      '',
      `export function total${index}(items: Item${index}[]): number {`,
      index % 50 === 0
        ? `  return legacyTotal(items.map((item) => item.cents * item.qty));`
        : `  return items.reduce((sum, item) => sum + item.cents * item.qty, 0);`,
      '}',
      '',
    ].join('\n');
    writeFileSync(path.join(folder, name), body);
  }
  writeFileSync(path.join(dir, 'README.md'), `# large\n\n${files} generated modules.\n`);
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@orca.invalid', 'commit', '-q', '-m', 'generated large repository');
  return { dir, base: git('rev-parse', 'HEAD'), files: files + 1 };
}
