import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { compiledEntry } from '../../shared/core/runtime/compiledEntry.js';
import { grepPool } from '../../shared/tools/search/grepPool.js';
import type { GrepQuery } from '../../shared/tools/search/grepQuery.js';
import { runJsGrep } from '../../shared/tools/search/jsGrep.js';
import { ripgrepArgs, ripgrepPath, runRipgrep } from '../../shared/tools/search/ripgrep.js';
import { ensureBuilt, makeSearchFixture } from './searchFixture.js';

beforeAll(ensureBuilt);

const query = (base: string, over: Partial<GrepQuery> = {}): GrepQuery => ({
  pattern: 'handler',
  base,
  target: '',
  targetIsFile: false,
  globs: [],
  mode: 'files_with_matches',
  ignoreCase: false,
  before: 0,
  after: 0,
  multiline: false,
  ...over,
});

describe('the rg engine', () => {
  it('finds rg on PATH once and passes a pattern that starts with "-" safely', () => {
    expect(ripgrepPath()).toMatch(/\/rg$/);
    const args = ripgrepArgs(query('/x', { pattern: '--files', target: 'src' }));
    expect(args.slice(-3)).toEqual(['--regexp=--files', '--', 'src']);
  });

  it("keeps files mode's paths as strings of their own, not slices of rg's `./path` records", async () => {
    // A slice would hold its whole record for as long as the session's ledger keeps the name.
    const entry = pathToFileURL(compiledEntry('shared/tools/search/ripgrep.ts')).href;
    const script = `
      const { ripgrepPath, runRipgrep } = await import(${JSON.stringify(entry)});
      const query = ${JSON.stringify(query(makeSearchFixture()))};
      const result = await runRipgrep(ripgrepPath(), query, new AbortController().signal);
      for (const file of result.files) { console.log('PATH ' + file.path); %DebugPrint(file.path); }
    `;
    const child = spawn(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const [code] = await new Promise<[number | null]>((resolve) => child.on('close', (c) => resolve([c])));
    expect(code, out).toBe(0);
    const paths = out
      .split('\n')
      .filter((line) => line.startsWith('PATH '))
      .map((line) => line.slice(5));
    // V8 slices only strings of 13 characters or more: the fixture has such paths.
    expect(paths).toContain('docs/readme.md');
    expect(paths.every((file) => !file.startsWith('./'))).toBe(true);
    expect(out).toContain('ONE_BYTE_STRING_TYPE');
    expect(out).not.toContain('SLICED');
  });

  it('stops rg when the search is aborted', async () => {
    const controller = new AbortController();
    const search = runRipgrep(ripgrepPath()!, query(makeSearchFixture()), controller.signal);
    controller.abort(new Error('user abort'));
    await expect(search).rejects.toThrow('user abort');
  });
});

describe('the JS fallback engine', () => {
  it('matches files in the worker pool, off the main thread', async () => {
    const before = (await grepPool()).completed;
    const result = await runJsGrep(query(makeSearchFixture(), { mode: 'count' }), new AbortController().signal);
    expect(result.files.map((file) => file.path).sort()).toContain('src/app.ts');
    expect((await grepPool()).completed).toBeGreaterThan(before);
  });

  it('rejects when the search is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user abort'));
    await expect(runJsGrep(query(makeSearchFixture()), controller.signal)).rejects.toThrow('user abort');
  });

  it('does not keep a process alive once the search is done', async () => {
    const root = makeSearchFixture();
    const entry = pathToFileURL(compiledEntry('shared/tools/search/jsGrep.ts')).href;
    const script = `
      const { runJsGrep } = await import(${JSON.stringify(entry)});
      const result = await runJsGrep(${JSON.stringify(query(root))}, new AbortController().signal);
      console.log('found', result.files.length);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    // A pool that held the process open would hang here: kill it so the test fails instead of hanging.
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    clearTimeout(guard);
    expect({ code, signal, output }).toEqual({ code: 0, signal: null, output: 'found 14\n' });
  });
});
