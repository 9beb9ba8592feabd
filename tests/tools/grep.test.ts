import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../shared/core/boundary/toolError.js';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { inputSchema, ToolRegistry } from '../../shared/core/tool/registry.js';
import { type GrepInput, grepTool, makeGrepTool } from '../../shared/tools/grep.js';
import { grepPool } from '../../shared/tools/search/grepPool.js';
import { ensureBuilt, makeSearchFixture } from '../search/searchFixture.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

beforeAll(ensureBuilt);

describe.each(['rg', 'js'] as const)('Grep with the %s engine', (engine) => {
  const tool = makeGrepTool({ engine });
  const grep = async (input: GrepInput, root = makeSearchFixture()) => (await tool.call(input, makeToolContext({ root }))).content;
  const refusal = async (input: GrepInput, root = makeSearchFixture()) => {
    const error = await tool.call(input, makeToolContext({ root })).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ToolError);
    return (error as ToolError).message;
  };

  it('lists matching files newest first, skipping gitignored, binary, symlinked and .git files', async () => {
    // Fixture files get increasing mtimes in the order they are listed, so newest first is the reverse.
    expect(await grep({ pattern: 'handler' })).toBe(
      [
        'Found 14 files',
        'multi/span.txt',
        'weird/a:b-1.ts',
        'notes/long.txt',
        'notes/utf16.txt',
        'notes/bom.txt',
        'notes/crlf.txt',
        '.hidden/secret.ts',
        'keep.log',
        'docs/readme.md',
        'lib/tool.py',
        'src/nested/real.ts',
        'src/legacy.js',
        'src/view.tsx',
        'src/app.ts',
      ].join('\n'),
    );
  });

  it('shows matching lines as path:line:text, ordered by path, and drops line numbers on request', async () => {
    // Path order goes folder by folder: src/app.ts, src/legacy.js, src/nested/real.ts, src/view.tsx.
    expect(await grep({ pattern: 'handler', path: 'src', output_mode: 'content' })).toBe(
      [
        'src/app.ts:3:export function handler(request: Request) {',
        'src/app.ts:9:export const HANDLER_NAME = "handler";',
        'src/legacy.js:1:module.exports = function handler() {};',
        'src/nested/real.ts:1:export const realHandler = 2; // handler',
        'src/view.tsx:1:export const View = () => <div>handler view</div>;',
      ].join('\n'),
    );
    expect(await grep({ pattern: 'handler', path: 'src/app.ts', output_mode: 'content', '-n': false })).toBe(
      'src/app.ts:export function handler(request: Request) {\nsrc/app.ts:export const HANDLER_NAME = "handler";',
    );
  });

  it('counts matching lines per file, with the total', async () => {
    expect(await grep({ pattern: 'handler', path: 'src', output_mode: 'count' })).toBe(
      ['src/app.ts:2', 'src/legacy.js:1', 'src/nested/real.ts:1', 'src/view.tsx:1', '', 'Found 5 matching lines in 4 files.'].join('\n'),
    );
  });

  it('matches case-insensitively with -i', async () => {
    expect(await grep({ pattern: 'todo', path: 'src', output_mode: 'content' })).toBe('src/util.ts:4:// todo: more helpers');
    expect(await grep({ pattern: 'todo', path: 'src', output_mode: 'content', '-i': true })).toBe(
      'src/app.ts:4:  // TODO: validate the request\nsrc/util.ts:4:// todo: more helpers',
    );
  });

  it('adds context lines in rg form, with -- between separate groups', async () => {
    const file = 'multi/context.txt';
    expect(await grep({ pattern: 'match', path: file, output_mode: 'content', '-C': 1 })).toBe(
      [
        `${file}-2-two`,
        `${file}:3:three match`,
        `${file}-4-four`,
        '--',
        `${file}-6-six`,
        `${file}:7:seven match`,
        `${file}-8-eight`,
        '--',
        `${file}-11-eleven`,
        `${file}:12:twelve match`,
      ].join('\n'),
    );
    // Groups that touch merge; -A beats -C.
    expect(await grep({ pattern: 'match', path: file, output_mode: 'content', '-C': 3, '-A': 0 })).toBe(
      [
        `${file}-1-one`,
        `${file}-2-two`,
        `${file}:3:three match`,
        `${file}-4-four`,
        `${file}-5-five`,
        `${file}-6-six`,
        `${file}:7:seven match`,
        '--',
        `${file}-9-nine`,
        `${file}-10-ten`,
        `${file}-11-eleven`,
        `${file}:12:twelve match`,
      ].join('\n'),
    );
    expect(await grep({ pattern: 'three', path: file, output_mode: 'content', '-B': 2, '-n': false })).toBe(
      `${file}-one\n${file}-two\n${file}:three match`,
    );
    // Context belongs to content mode only.
    expect(await grep({ pattern: 'three', path: file, output_mode: 'count', '-C': 2 })).toBe(
      `${file}:1\n\nFound 1 matching line in 1 file.`,
    );
  });

  it('filters by glob (rg semantics, including braces, lists and exclusions) and by type', async () => {
    const root = makeSearchFixture();
    // A glob decides before .gitignore, as in rg: it brings back src/nested/generated.ts (but
    // not build/out.ts: the folder build/ matches no glob, so .gitignore keeps it out).
    expect(await grep({ pattern: 'handler', glob: '**/*.{ts,tsx}', output_mode: 'count' }, root)).toBe(
      [
        '.hidden/secret.ts:1',
        'src/app.ts:2',
        'src/nested/generated.ts:1',
        'src/nested/real.ts:1',
        'src/view.tsx:1',
        'weird/a:b-1.ts:1',
        '',
        'Found 7 matching lines in 6 files.',
      ].join('\n'),
    );
    expect(await grep({ pattern: 'handler', glob: 'src/*.js, *.py', output_mode: 'count' }, root)).toBe(
      'lib/tool.py:1\nsrc/legacy.js:1\n\nFound 2 matching lines in 2 files.',
    );
    expect(await grep({ pattern: 'handler', glob: '!*.{ts,tsx,txt}', output_mode: 'count' }, root)).toBe(
      'docs/readme.md:1\nkeep.log:1\nlib/tool.py:1\nsrc/legacy.js:1\n\nFound 4 matching lines in 4 files.',
    );
    // *.log brings back the ignored app.log the same way.
    expect(await grep({ pattern: 'handler', glob: '*.log', output_mode: 'count' }, root)).toBe(
      'app.log:1\nkeep.log:1\n\nFound 2 matching lines in 2 files.',
    );
    expect(await grep({ pattern: 'handler', type: 'py' }, root)).toBe('Found 1 file\nlib/tool.py');
    // A type does not override .gitignore.
    expect(await grep({ pattern: 'handler', type: 'ts', output_mode: 'count' }, root)).toBe(
      [
        '.hidden/secret.ts:1',
        'src/app.ts:2',
        'src/nested/real.ts:1',
        'src/view.tsx:1',
        'weird/a:b-1.ts:1',
        '',
        'Found 6 matching lines in 5 files.',
      ].join('\n'),
    );
  });

  it('says clearly when a type is unknown', async () => {
    expect(await refusal({ pattern: 'handler', type: 'klingon' })).toMatch(/^Unknown file type "klingon".*Use one of js, ts, py/);
  });

  it('keeps the first head_limit entries and says how many there were', async () => {
    const root = makeSearchFixture();
    expect(await grep({ pattern: 'handler', head_limit: 2 }, root)).toBe(
      'Found 14 files\nmulti/span.txt\nweird/a:b-1.ts\n' +
        '[head_limit 2: showing the first 2 of 14 files. Raise head_limit or narrow the search to see the rest.]',
    );
    expect(await grep({ pattern: 'handler', path: 'src', output_mode: 'content', head_limit: 1 }, root)).toBe(
      'src/app.ts:3:export function handler(request: Request) {\n' +
        '[head_limit 1: showing the first 1 of 5 lines. Raise head_limit or narrow the search to see the rest.]',
    );
    expect(await grep({ pattern: 'handler', path: 'src', output_mode: 'count', head_limit: 1 }, root)).toBe(
      'src/app.ts:2\n' +
        '[head_limit 1: showing the first 1 of 4 files. Raise head_limit or narrow the search to see the rest.]\n\n' +
        'Found 5 matching lines in 4 files.',
    );
    // 0 means no limit.
    expect(await grep({ pattern: 'handler', path: 'src', output_mode: 'count', head_limit: 0 }, root)).not.toContain('head_limit');
  });

  it('matches across lines in multiline mode, and refuses \\n without it', async () => {
    const root = makeSearchFixture();
    expect(await grep({ pattern: 'struct \\w+ \\{.*?handler', multiline: true, output_mode: 'content' }, root)).toBe(
      'multi/span.txt:1:struct Config {\nmulti/span.txt:2:  name: string,\nmulti/span.txt:3:  handler: Fn,',
    );
    expect(await grep({ pattern: '\\{\\n\\s+\\w+', multiline: true, output_mode: 'count' }, root)).toBe(
      'multi/span.txt:2\nsrc/util.ts:1\n\nFound 3 matches in 2 files.',
    );
    expect(await grep({ pattern: 'struct \\w+ \\{.*?handler', output_mode: 'content' }, root)).toBe('No matches found');
    expect(await refusal({ pattern: 'Config \\{\\n', output_mode: 'content' }, root)).toMatch(/set multiline: true/);
  });

  it('honours nested .gitignore files, but searches a file or folder it is pointed at', async () => {
    const root = makeSearchFixture();
    expect(await grep({ pattern: 'handler', path: 'src/nested' }, root)).toBe('Found 1 file\nsrc/nested/real.ts');
    expect(await grep({ pattern: 'generatedHandler', path: 'src/nested/generated.ts' }, root)).toBe(
      'Found 1 file\nsrc/nested/generated.ts',
    );
    expect(await grep({ pattern: 'handler', path: 'dist', output_mode: 'content' }, root)).toBe('dist/bundle.js:1:function handler(){}');
    expect(await grep({ pattern: 'generatedHandler' }, root)).toBe('No matches found');
  });

  it('skips binary files and says so when pointed at one', async () => {
    const root = makeSearchFixture();
    expect(await grep({ pattern: 'handler', path: 'bin' }, root)).toBe('No matches found');
    expect(await grep({ pattern: 'handler', path: 'bin/data.bin' }, root)).toBe(
      'bin/data.bin is a binary file; Grep does not search binary files.',
    );
  });

  it('reads BOM, UTF-16 and CRLF text as rg does, and cuts very long lines', async () => {
    const root = makeSearchFixture();
    expect(await grep({ pattern: 'handler', path: 'notes', output_mode: 'content' }, root)).toBe(
      [
        'notes/bom.txt:1:handler after a BOM',
        'notes/crlf.txt:1:first handler line',
        'notes/crlf.txt:3:third handler',
        `notes/long.txt:1:${'x'.repeat(1000)} … [line cut: 3009 characters]`,
        'notes/utf16.txt:1:utf16 handler',
      ].join('\n'),
    );
  });

  it('parses paths holding ":" and "-"', async () => {
    expect(await grep({ pattern: 'colon', output_mode: 'content', '-C': 1 })).toBe('weird/a:b-1.ts:1:export const colon = "handler:1-2";');
  });

  it('reports an invalid regex as an error, never as no matches', async () => {
    expect(await refusal({ pattern: 'handler(' })).toMatch(
      /^The pattern is not a valid regular expression: .*(unclosed group|Unterminated group)/s,
    );
    const ctx = makeToolContext({ root: makeSearchFixture() });
    const result = await runToolCall(
      { id: 'call-1', name: 'Grep', input: { pattern: '[unclosed' } },
      new ToolRegistry([tool]),
      modeOnlySlots,
      ctx,
    );
    expect(result.block.is_error).toBe(true);
    expect(result.block.content).not.toContain('No matches');
  });

  it('refuses a path that does not exist or leads outside the workspace', async () => {
    expect(await refusal({ pattern: 'x', path: 'no/such/folder' })).toMatch(/^Path does not exist: no\/such\/folder/);
    const outside = tempDir('orca-outside-');
    writeFileSync(path.join(outside, 'secret.txt'), 'handler\n');
    expect(await refusal({ pattern: 'handler', path: outside })).toMatch(/is outside the workspace/);
    expect(await refusal({ pattern: 'handler', path: '../' })).toMatch(/is outside the workspace/);
  });

  it('refuses to search inside .git', async () => {
    expect(await refusal({ pattern: 'handler', path: '.git' })).toMatch(/^Grep does not search \.git/);
  });

  it("searches the session's saved tool results, outside the workspace, showing absolute paths", async () => {
    const ctx = makeToolContext({ root: makeSearchFixture() });
    const saved = path.join(ctx.session.dir, 'tool-results');
    mkdirSync(saved, { recursive: true });
    writeFileSync(path.join(saved, 'call-9.txt'), 'line one\nthe handler failed\n');
    const out = await tool.call({ pattern: 'handler', path: saved, output_mode: 'content' }, ctx);
    expect(out.content).toBe(`${path.join(ctx.workspace.resolve(saved, 'read'), 'call-9.txt')}:2:the handler failed`);
  });

  it('answers plainly when nothing matches', async () => {
    expect(await grep({ pattern: 'zebra-crossing' })).toBe('No matches found');
    const empty = tempDir('orca-empty-');
    mkdirSync(path.join(empty, 'sub'));
    expect(await grep({ pattern: 'anything' }, empty)).toBe('No matches found');
  });
});

describe('Grep input', () => {
  it("has Claude Code's field names in the schema the model sees", () => {
    const schema = inputSchema(grepTool.input) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(
      ['-A', '-B', '-C', '-i', '-n', 'glob', 'head_limit', 'multiline', 'output_mode', 'path', 'pattern', 'type'].sort(),
    );
    expect(schema.required).toEqual(['pattern']);
  });

  it('refuses a bad field through the pipeline, naming it', async () => {
    const result = await runToolCall(
      { id: 'c2', name: 'Grep', input: { pattern: 'x', output_mode: 'lines', '-A': -1 } },
      new ToolRegistry([grepTool]),
      modeOnlySlots,
      makeToolContext(),
    );
    expect(result.block.is_error).toBe(true);
    expect(result.block.content).toMatch(/output_mode/);
    expect(result.block.content).toMatch(/-A/);
  });
});

describe('Grep engine choice', () => {
  const saved = process.env.ORCA_GREP;
  afterEach(() => {
    if (saved === undefined) delete process.env.ORCA_GREP;
    else process.env.ORCA_GREP = saved;
  });

  it('runs the JS fallback in the worker pool when ORCA_GREP=js', async () => {
    process.env.ORCA_GREP = 'js';
    const before = (await grepPool()).completed;
    const out = await grepTool.call({ pattern: 'handler', type: 'py' }, makeToolContext({ root: makeSearchFixture() }));
    expect(out.content).toBe('Found 1 file\nlib/tool.py');
    expect((await grepPool()).completed).toBeGreaterThan(before);
  });

  it('uses rg when it is on PATH and ORCA_GREP is unset, leaving the pool alone', async () => {
    delete process.env.ORCA_GREP;
    const before = (await grepPool()).completed;
    const out = await grepTool.call({ pattern: 'handler', type: 'py' }, makeToolContext({ root: makeSearchFixture() }));
    expect(out.content).toBe('Found 1 file\nlib/tool.py');
    expect((await grepPool()).completed).toBe(before);
  });

  it('refuses an ORCA_GREP value it does not know', async () => {
    process.env.ORCA_GREP = 'grep';
    await expect(grepTool.call({ pattern: 'x' }, makeToolContext())).rejects.toThrow(/ORCA_GREP must be one of auto, rg, js/);
  });
});
