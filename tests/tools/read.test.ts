import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashBytes } from '../../shared/core/files/readFileState.js';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { readTool } from '../../shared/tools/read.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

type Ctx = ReturnType<typeof makeToolContext>;

let calls = 0;
/** One Read through the whole pipeline: lookup, schema, permission, call, result budget. */
async function read(ctx: Ctx, input: Record<string, unknown>) {
  const registry = new ToolRegistry([readTool]);
  const run = await runToolCall({ id: `read-${++calls}`, name: 'Read', input }, registry, modeOnlySlots, ctx);
  // Every refusal is a ToolError the model can act on, never a crash reported as unexpected.
  expect(run.block.content).not.toMatch(/failed unexpectedly/);
  return { text: run.block.content, isError: run.block.is_error === true, data: run.output?.data };
}

function setup(files: Record<string, string | Buffer> = {}) {
  const ctx = makeToolContext({ mode: 'read-only' });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(ctx.workspace.root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const abs = (name: string) => path.join(ctx.workspace.root, name);
  return { ctx, abs };
}

const numbered = (lines: string[], first = 1) => lines.map((line, i) => `${String(first + i).padStart(6)}\t${line}`).join('\n');

describe('Read', () => {
  it('shows a file as numbered lines in a read-only session and records a full view', async () => {
    const { ctx, abs } = setup({ 'src/a.ts': 'const a = 1;\n\tindented\n' });
    const result = await read(ctx, { file_path: 'src/a.ts' });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(numbered(['const a = 1;', '\tindented']));
    expect(ctx.fileState.get(abs('src/a.ts'))).toEqual({
      path: abs('src/a.ts'),
      hash: hashBytes(readFileSync(abs('src/a.ts'))),
      mtimeMs: statSync(abs('src/a.ts')).mtimeMs,
      isPartialView: false,
      origin: 'read',
    });
    expect(result.data).toMatchObject({ type: 'text', file: { filePath: abs('src/a.ts'), numLines: 2, startLine: 1, totalLines: 2 } });
  });

  it('takes absolute and relative paths to the same file, recorded under one real path', async () => {
    const { ctx, abs } = setup({ 'a.txt': 'x\n' });
    expect((await read(ctx, { file_path: abs('a.txt') })).text).toBe(numbered(['x']));
    expect((await read(ctx, { file_path: './sub/../a.txt', offset: 1, limit: 1 })).text).toContain('unchanged since your earlier Read');
    expect(ctx.fileState.size).toBe(1);
  });

  it('shows 2,000 lines by default and says how to read on', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`);
    const { ctx, abs } = setup({ 'long.txt': `${lines.join('\n')}\n` });
    const result = await read(ctx, { file_path: 'long.txt' });
    expect(result.text).toBe(
      `${numbered(lines.slice(0, 2000))}\n\n[Showing lines 1–2000 of 2500. 500 more lines: Read with offset=2001 to continue.]`,
    );
    expect(ctx.fileState.get(abs('long.txt'))).toMatchObject({ isPartialView: true, seen: [[1, 2000]] });
  });

  it('reads a range with offset and limit, and adjoining ranges add up to a full view', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`);
    const { ctx, abs } = setup({ 'rows.txt': lines.join('\n') });
    const middle = await read(ctx, { file_path: 'rows.txt', offset: 11, limit: 10 });
    expect(middle.text).toBe(
      `${numbered(lines.slice(10, 20), 11)}\n\n[Showing lines 11–20 of 30. 10 more lines: Read with offset=21 to continue.]`,
    );
    expect(ctx.fileState.get(abs('rows.txt'))).toMatchObject({ isPartialView: true, seen: [[11, 20]] });
    await read(ctx, { file_path: 'rows.txt', offset: 21 });
    expect(ctx.fileState.get(abs('rows.txt'))).toMatchObject({ isPartialView: true, seen: [[11, 30]] });
    await read(ctx, { file_path: 'rows.txt', offset: 0, limit: 10 }); // offset 0 counts as 1
    const entry = ctx.fileState.get(abs('rows.txt'));
    expect(entry).toMatchObject({ isPartialView: false, origin: 'read' });
    expect(entry).not.toHaveProperty('seen');
  });

  it('adds up partial reads of the same bytes that do not touch, and forgets them once the bytes change', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`);
    const { ctx, abs } = setup({ 'rows.txt': lines.join('\n') });
    await read(ctx, { file_path: 'rows.txt', offset: 21, limit: 5 });
    await read(ctx, { file_path: 'rows.txt', offset: 1, limit: 5 });
    expect(ctx.fileState.get(abs('rows.txt'))).toMatchObject({
      isPartialView: true,
      seen: [
        [1, 5],
        [21, 25],
      ],
    });
    writeFileSync(abs('rows.txt'), lines.join('\n').replace('row 3', 'ROW 3'));
    await read(ctx, { file_path: 'rows.txt', offset: 10, limit: 2 });
    expect(ctx.fileState.get(abs('rows.txt'))).toMatchObject({ isPartialView: true, seen: [[10, 11]] });
  });

  it('keeps a full view when the same unchanged file is then read in part', async () => {
    const { ctx, abs } = setup({ 'f.txt': 'a\nb\nc\n' });
    await read(ctx, { file_path: 'f.txt' });
    expect((await read(ctx, { file_path: 'f.txt', offset: 2, limit: 1 })).text).toBe(
      `${numbered(['b'], 2)}\n\n[Showing lines 2–2 of 3. 1 more line: Read with offset=3 to continue.]`,
    );
    expect(ctx.fileState.get(abs('f.txt'))?.isPartialView).toBe(false);
  });

  it('refuses an offset past the end, naming the number of lines', async () => {
    const { ctx, abs } = setup({ 'short.txt': 'one\ntwo\n' });
    const result = await read(ctx, { file_path: 'short.txt', offset: 5 });
    expect(result).toMatchObject({
      isError: true,
      text: 'short.txt has 2 lines, so offset 5 is past its end. Read it with a smaller offset, or none.',
    });
    expect(ctx.fileState.get(abs('short.txt'))).toBeUndefined();
  });

  it('cuts lines over 2,000 characters with a visible marker', async () => {
    const { ctx } = setup({ 'min.js': `short\n${'x'.repeat(2500)}\n` });
    const result = await read(ctx, { file_path: 'min.js' });
    expect(result.text).toBe(`${numbered(['short'])}\n     2\t${'x'.repeat(2000)}… [line cut: 2500 characters in all]`);
  });

  it('caps one Read at 100,000 characters and says where to continue', async () => {
    const lines = Array.from({ length: 150 }, (_, i) => `${i + 1}`.padEnd(1000, '.'));
    const { ctx, abs } = setup({ 'wide.txt': lines.join('\n') });
    const result = await read(ctx, { file_path: 'wide.txt' });
    const shownLines = result.text.split('\n\n[')[0]!.split('\n');
    expect(shownLines.length).toBe(99); // 99 numbered lines of 1,008 characters fit in 100,000
    expect(result.text).toContain(
      "[Showing lines 1–99 of 150 (the rest of the range asked for did not fit in one Read's 100000 characters). 51 more lines: Read with offset=100 to continue.]",
    );
    expect(ctx.fileState.get(abs('wide.txt'))).toMatchObject({ isPartialView: true, seen: [[1, 99]] });
  });

  it('says an empty file is empty and records a full view of it', async () => {
    const { ctx, abs } = setup({ 'empty.txt': '' });
    const result = await read(ctx, { file_path: 'empty.txt' });
    expect(result).toMatchObject({ isError: false, text: 'empty.txt exists but is empty.' });
    expect(ctx.fileState.get(abs('empty.txt'))).toMatchObject({ isPartialView: false, origin: 'read' });
  });

  it('shows CRLF files without the \\r, and UTF-8 BOM and UTF-16LE files as their text', async () => {
    const { ctx } = setup({
      'win.txt': 'first\r\nsecond\r\n',
      'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('with bom\n')]),
      'utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ünïcode\r\nline two\r\n', 'utf16le')]),
    });
    expect((await read(ctx, { file_path: 'win.txt' })).text).toBe(numbered(['first', 'second']));
    expect((await read(ctx, { file_path: 'bom.txt' })).text).toBe(numbered(['with bom']));
    expect((await read(ctx, { file_path: 'utf16.txt' })).text).toBe(numbered(['ünïcode', 'line two']));
  });

  it('returns a short stub for an unchanged range read again, and the content once the file changed', async () => {
    const { ctx, abs } = setup({ 'a.txt': 'alpha\nbeta\n' });
    await read(ctx, { file_path: 'a.txt' });
    const again = await read(ctx, { file_path: 'a.txt' });
    expect(again.text).toBe(
      'a.txt is unchanged since your earlier Read of the whole file in this conversation: that result is still current, so it is not repeated here.',
    );
    expect(again.data).toEqual({ type: 'file_unchanged', file: { filePath: abs('a.txt') } });

    await read(ctx, { file_path: 'a.txt', offset: 2, limit: 1 }); // a different range: shown
    writeFileSync(abs('a.txt'), 'alpha\nBETA\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(abs('a.txt'), later, later);
    expect((await read(ctx, { file_path: 'a.txt' })).text).toBe(numbered(['alpha', 'BETA']));
  });

  it('gives a stub for the same partial range, but not for a different one', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `l${i + 1}`);
    const { ctx } = setup({ 'p.txt': lines.join('\n') });
    await read(ctx, { file_path: 'p.txt', offset: 3, limit: 2 });
    expect((await read(ctx, { file_path: 'p.txt', offset: 3, limit: 2 })).text).toContain('unchanged since your earlier Read of lines 3–4');
    expect((await read(ctx, { file_path: 'p.txt', offset: 3, limit: 3 })).text).toContain(numbered(['l3', 'l4', 'l5'], 3));
  });

  it('refuses a directory, pointing at Glob and ls', async () => {
    const { ctx } = setup({ 'src/a.ts': 'x' });
    const result = await read(ctx, { file_path: 'src' });
    expect(result).toMatchObject({
      isError: true,
      text: 'src is a directory, not a file: use Glob, or `ls` in Bash, to see what it contains.',
    });
  });

  it('refuses a binary file, saying what it looks like', async () => {
    const { ctx, abs } = setup({ 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48]) });
    const result = await read(ctx, { file_path: 'logo.png' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^logo\.png looks like a PNG image, not text\. It was left as it is/);
    expect(ctx.fileState.get(abs('logo.png'))).toBeUndefined();
  });

  it('refuses text that is not UTF-8 and says Bash can inspect it', async () => {
    const latin1 = Buffer.from('caf\xe9 cr\xe8me\n', 'latin1');
    const { ctx, abs } = setup({ 'menu.txt': latin1 });
    const result = await read(ctx, { file_path: 'menu.txt' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('menu.txt is not valid UTF-8: byte 0xE9 on line 1 (byte offset 3).');
    expect(result.text).toContain('Inspect it with Bash');
    expect(readFileSync(abs('menu.txt')).equals(latin1)).toBe(true);
  });

  it('refuses a FIFO instead of blocking on it', async () => {
    const { ctx, abs } = setup();
    execFileSync('mkfifo', [abs('pipe')]);
    const result = await read(ctx, { file_path: 'pipe' });
    expect(result).toMatchObject({ isError: true, text: expect.stringContaining('pipe is not a regular file') });
  });

  it('refuses a missing file', async () => {
    const { ctx } = setup();
    expect(await read(ctx, { file_path: 'nope.txt' })).toMatchObject({ isError: true, text: 'nope.txt does not exist.' });
  });

  it('refuses paths that escape the workspace: .., absolute, and a symlink pointing out', async () => {
    const outside = tempDir('orca-outside-');
    writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
    const { ctx, abs } = setup();
    symlinkSync(path.join(outside, 'secret.txt'), abs('link.txt'));
    const realOutside = realpathSync(outside);
    const relative = path.relative(ctx.workspace.root, path.join(realOutside, 'secret.txt'));

    for (const filePath of [relative, path.join(realOutside, 'secret.txt'), 'link.txt']) {
      const result = await read(ctx, { file_path: filePath });
      expect(result.isError).toBe(true);
      expect(result.text).toContain(`${filePath} is outside the workspace ${ctx.workspace.root}`);
      expect(result.text).not.toContain('secret\n');
    }
    expect(ctx.fileState.size).toBe(0);
  });

  it('follows a symlink that stays inside the workspace, recording the real path', async () => {
    const { ctx, abs } = setup({ 'real/target.txt': 'inside\n' });
    symlinkSync(abs('real/target.txt'), abs('alias.txt'));
    expect((await read(ctx, { file_path: 'alias.txt' })).text).toBe(numbered(['inside']));
    expect(ctx.fileState.get(abs('real/target.txt'))).toBeDefined();
  });

  it('refuses bad input with the field named', async () => {
    const { ctx } = setup({ 'a.txt': 'x' });
    expect((await read(ctx, { file_path: 'a.txt', limit: 0 })).text).toMatch(/^Read input is invalid: limit: /);
    expect((await read(ctx, { file_path: 'a.txt', offset: '2' })).text).toMatch(/^Read input is invalid: offset: /);
    expect((await read(ctx, { path: 'a.txt' })).text).toMatch(/file_path/);
  });
});
