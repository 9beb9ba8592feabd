import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkFiles } from '../../shared/tools/search/fileWalk.js';
import { comparePaths } from '../../shared/tools/search/pathOrder.js';
import { tempDir } from '../support/tempDir.js';

/** A tree whose .gitignore files use every kind of rule, nested and negated. */
const FILES: Record<string, string> = {
  '.gitignore': 'build/\n*.log\n!keep.log\n/top-only.txt\nsecret*\n!secret-ok.md\ndocs/**/draft.md\n',
  'top-only.txt': '',
  'sub/top-only.txt': '',
  'a.log': '',
  'keep.log': '',
  'src/x.log': '',
  'build/out.js': '',
  'src/build/out.js': '',
  'secret.txt': '',
  'secret-ok.md': '',
  'docs/a/b/draft.md': '',
  'docs/final.md': '',
  '.env': '',
  '.config/tool.json': '',
  'src/.gitignore': '*.gen.ts\n!keep.gen.ts\n',
  'src/a.ts': '',
  'src/a.gen.ts': '',
  'src/keep.gen.ts': '',
  'src/deep/b.gen.ts': '',
  'pkg/.gitignore': '!build/\n',
  'pkg/build/kept.js': '',
  'pkg/dist/x.js': '',
  'weird name [1].txt': '',
  'unicodé/ñ.ts': '',
};

function repo(): string {
  const root = tempDir('orca-walk-');
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: root });
  return root;
}

async function walk(root: string, options: { start?: string; globs?: string[]; typeGlobs?: string[] } = {}): Promise<string[]> {
  const found: string[] = [];
  await walkFiles(
    {
      base: root,
      start: options.start ?? '',
      globs: options.globs ?? [],
      typeGlobs: options.typeGlobs,
      signal: new AbortController().signal,
    },
    (batch) => found.push(...batch),
  );
  return found.sort(comparePaths);
}

function rgFiles(root: string, args: string[] = [], target = '.'): string[] {
  const out = execFileSync(
    'rg',
    [
      '--files',
      '--hidden',
      '--no-require-git',
      '--no-ignore-dot',
      '--no-ignore-exclude',
      '--no-ignore-global',
      ...args,
      '--glob=!.git',
      '--',
      target,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((file) => file.replace(/^\.\//, ''))
    .sort(comparePaths);
}

describe('walkFiles', () => {
  it('chooses the same files as git and as rg', async () => {
    const root = repo();
    const mine = await walk(root);
    const git = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean)
      .sort(comparePaths);
    expect(mine).toEqual(git);
    expect(mine).toEqual(rgFiles(root));
    expect(mine).toContain('pkg/build/kept.js');
    expect(mine).not.toContain('src/build/out.js');
  });

  it('agrees with rg on globs, types and a start folder that .gitignore leaves out', async () => {
    const root = repo();
    expect(await walk(root, { globs: ['*.ts'] })).toEqual(rgFiles(root, ['--glob=*.ts']));
    expect(await walk(root, { globs: ['!src/', '*.{js,md}'] })).toEqual(rgFiles(root, ['--glob=!src/', '--glob=*.{js,md}']));
    expect(await walk(root, { typeGlobs: ['*.js'] })).toEqual(rgFiles(root, ['--type-clear=js', '--type-add=js:*.js', '--type=js']));
    expect(await walk(root, { start: 'build' })).toEqual(rgFiles(root, [], 'build'));
    expect(await walk(root, { start: 'build' })).toEqual(['build/out.js']);
    expect(await walk(root, { start: 'src' })).toEqual(rgFiles(root, [], 'src'));
  });

  it('stops when the search is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(walkFiles({ base: repo(), start: '', globs: [], signal: controller.signal }, () => {})).rejects.toThrow('stop');
  });
});
