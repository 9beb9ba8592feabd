import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compiledEntry } from '../../shared/core/runtime/compiledEntry.js';

describe('front matter parsing', () => {
  it('loads gray-matter (with js-yaml and esprima) only when a file has front matter', () => {
    // A worker loads this module at start; most jobs read no file with front matter (issue 35).
    const entry = pathToFileURL(compiledEntry('shared/context/instructions/frontMatter.ts')).href;
    const script = `
      import { createRequire } from 'node:module';
      const { parseFrontMatter } = await import(${JSON.stringify(entry)});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/gray-matter/'));
      console.log('at import', loaded());
      parseFrontMatter('no front matter here\\n', 'a.md');
      console.log('without front matter', loaded());
      console.log(JSON.stringify(parseFrontMatter('---\\nname: x\\n---\\nbody\\n', 'b.md')));
      console.log('with front matter', loaded());
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      'at import false',
      'without front matter false',
      JSON.stringify({ data: { name: 'x' }, body: 'body\n' }),
      'with front matter true',
    ]);
  });
});
