import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitignoreFilter, IgnoreRules } from '../../shared/tools/search/gitignore.js';
import { tempDir } from '../support/tempDir.js';

function tree(files: Record<string, string>): string {
  const root = tempDir('orca-ignore-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe('IgnoreRules', () => {
  const root = () =>
    tree({
      '.gitignore': 'build/\n*.log\n!keep.log\n/only-top.txt\n',
      'src/.gitignore': 'gen.ts\n!important.log\n',
    });

  it('reads patterns relative to their own .gitignore, deeper files winning', () => {
    const base = root();
    const top = IgnoreRules.forDir(base, '');
    expect(top.ignores('build', true)).toBe(true);
    expect(top.ignores('build', false)).toBe(false);
    expect(top.ignores('a.log', false)).toBe(true);
    expect(top.ignores('keep.log', false)).toBe(false);
    expect(top.ignores('only-top.txt', false)).toBe(true);
    const src = IgnoreRules.forDir(base, 'src');
    expect(src.ignores('src/only-top.txt', false)).toBe(false);
    expect(src.ignores('src/gen.ts', false)).toBe(true);
    expect(src.ignores('src/x.log', false)).toBe(true);
    expect(src.ignores('src/important.log', false)).toBe(false);
    expect(src.ignores('src/build', true)).toBe(true);
  });

  it('judges the entries of an ignored folder that was entered anyway by their own paths', () => {
    const base = root();
    // The folder the search starts in is searched even when ignored (rg does the same).
    const inBuild = IgnoreRules.forDir(base, 'build');
    expect(inBuild.ignores('build/out.js', false)).toBe(false);
    expect(inBuild.ignores('build/sub', true)).toBe(false);
    // Name patterns still apply inside it.
    expect(inBuild.ignores('build/trace.log', false)).toBe(true);
    expect(inBuild.ignores('build/build', true)).toBe(true);
  });
});

describe('GitignoreFilter', () => {
  it('ignores a file under an ignored folder, except in the folder the search started in', () => {
    const base = tree({ '.gitignore': 'dist/\n', 'src/.gitignore': '*.gen.ts\n' });
    const filter = new GitignoreFilter(base);
    expect(filter.ignores('dist/a/b.js')).toBe(true);
    expect(filter.ignores('src/a.gen.ts')).toBe(true);
    expect(filter.ignores('src/deep/b.gen.ts')).toBe(true);
    expect(filter.ignores('src/a.ts')).toBe(false);
    const fromDist = new GitignoreFilter(base, 'dist/a');
    expect(fromDist.ignores('dist/a/b.js')).toBe(false);
  });
});
