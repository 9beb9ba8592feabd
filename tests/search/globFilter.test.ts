import { describe, expect, it } from 'vitest';
import { GlobFilter, splitGlobInput } from '../../shared/tools/search/globFilter.js';

describe('GlobFilter (rg --glob semantics)', () => {
  it('matches a glob without a slash against the file name at any depth', () => {
    const filter = new GlobFilter(['*.ts']);
    expect(filter.decide('a.ts', false)).toBe('include');
    expect(filter.decide('src/deep/b.ts', false)).toBe('include');
    expect(filter.decide('src/b.js', false)).toBe('exclude');
    // Folders matching no including glob are still entered.
    expect(filter.decide('src', true)).toBeUndefined();
  });

  it('matches a glob with a slash against the whole path, ** spanning folders and braces alternating', () => {
    const filter = new GlobFilter(['src/*.ts', '**/*.{md,txt}']);
    expect(filter.decide('src/a.ts', false)).toBe('include');
    expect(filter.decide('src/deep/a.ts', false)).toBe('exclude');
    expect(filter.decide('lib/src/a.ts', false)).toBe('exclude');
    expect(filter.decide('README.md', false)).toBe('include');
    expect(filter.decide('docs/x/notes.txt', false)).toBe('include');
    expect(new GlobFilter(['/top.ts']).decide('top.ts', false)).toBe('include');
    expect(new GlobFilter(['/top.ts']).decide('sub/top.ts', false)).toBe('exclude');
  });

  it('excludes with !, lets the last matching glob decide, and leaves the rest to other rules', () => {
    const filter = new GlobFilter(['!*.test.ts']);
    expect(filter.decide('a.test.ts', false)).toBe('exclude');
    expect(filter.decide('a.ts', false)).toBeUndefined();
    const both = new GlobFilter(['*.ts', '!*.test.ts']);
    expect(both.decide('a.test.ts', false)).toBe('exclude');
    expect(both.decide('a.ts', false)).toBe('include');
    const reversed = new GlobFilter(['!*.test.ts', '*.ts']);
    expect(reversed.decide('a.test.ts', false)).toBe('include');
  });

  it('applies a trailing-slash glob to folders only, and dir/** to what is inside dir', () => {
    const filter = new GlobFilter(['!build/']);
    expect(filter.decide('build', true)).toBe('exclude');
    expect(filter.decide('build', false)).toBeUndefined();
    const inside = new GlobFilter(['gen/**']);
    expect(inside.decide('gen', true)).toBeUndefined();
    expect(inside.decide('gen/a/b.ts', false)).toBe('include');
  });

  it('matches hidden files and reads [!x] as a negated class', () => {
    expect(new GlobFilter(['*.yml']).decide('.github/ci.yml', false)).toBe('include');
    const filter = new GlobFilter(['[!a]*.ts']);
    expect(filter.decide('b.ts', false)).toBe('include');
    expect(filter.decide('a.ts', false)).toBe('exclude');
  });
});

describe('splitGlobInput', () => {
  it('splits on whitespace and on commas outside braces', () => {
    expect(splitGlobInput('*.ts')).toEqual(['*.ts']);
    expect(splitGlobInput('*.ts,*.tsx  src/**/*.js')).toEqual(['*.ts', '*.tsx', 'src/**/*.js']);
    expect(splitGlobInput('**/*.{ts,tsx}')).toEqual(['**/*.{ts,tsx}']);
    expect(splitGlobInput(' , ')).toEqual([]);
  });
});
