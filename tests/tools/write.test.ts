import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashBytes } from '../../shared/core/files/readFileState.js';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { editTool } from '../../shared/tools/edit.js';
import { readTool } from '../../shared/tools/read.js';
import { writeTool } from '../../shared/tools/write.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

type Ctx = ReturnType<typeof makeToolContext>;

let calls = 0;
/** One tool call through the whole pipeline: lookup, schema, validate, permission, call, budget. */
async function call(ctx: Ctx, name: string, input: Record<string, unknown>) {
  const registry = new ToolRegistry([readTool, editTool, writeTool]);
  const run = await runToolCall({ id: `call-${++calls}`, name, input }, registry, modeOnlySlots, ctx);
  // Every refusal is a ToolError the model can act on, never a crash reported as unexpected.
  expect(run.block.content).not.toMatch(/failed unexpectedly/);
  return { text: run.block.content, isError: run.block.is_error === true, data: run.output?.data };
}

function setup(files: Record<string, string | Buffer> = {}) {
  const ctx = makeToolContext({ mode: 'workspace-write' });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(ctx.workspace.root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const abs = (name: string) => path.join(ctx.workspace.root, name);
  const bytes = (name: string) => readFileSync(abs(name));
  return { ctx, abs, bytes };
}

describe('Write', () => {
  it('creates a new file with its parent folders, and records it as written', async () => {
    const { ctx, abs, bytes } = setup();
    const result = await call(ctx, 'Write', { file_path: 'src/deep/new.ts', content: 'export const x = 1;\n' });
    expect(result).toMatchObject({ isError: false, text: 'Created src/deep/new.ts (1 line, 20 bytes).' });
    expect(bytes('src/deep/new.ts').toString()).toBe('export const x = 1;\n');
    expect(ctx.fileState.get(abs('src/deep/new.ts'))).toEqual({
      path: abs('src/deep/new.ts'),
      hash: hashBytes(bytes('src/deep/new.ts')),
      mtimeMs: statSync(abs('src/deep/new.ts')).mtimeMs,
      isPartialView: false,
      origin: 'written',
    });
    expect(result.data).toEqual({ type: 'create', filePath: abs('src/deep/new.ts'), content: 'export const x = 1;\n', originalFile: null });
  });

  it('takes an absolute path inside the workspace', async () => {
    const { ctx, abs, bytes } = setup();
    expect((await call(ctx, 'Write', { file_path: abs('abs.txt'), content: 'ok' })).isError).toBe(false);
    expect(bytes('abs.txt').toString()).toBe('ok');
  });

  it('refuses to overwrite an existing file that was not read', async () => {
    const { ctx, bytes } = setup({ 'a.txt': 'precious\n' });
    const result = await call(ctx, 'Write', { file_path: 'a.txt', content: 'gone' });
    expect(result).toMatchObject({
      isError: true,
      text: 'a.txt already exists and has not been read in this session. Read it first (the whole file) before overwriting it, or use Edit to change part of it.',
    });
    expect(bytes('a.txt').toString()).toBe('precious\n');
  });

  it('refuses to overwrite a file seen only in part', async () => {
    const { ctx, bytes } = setup({ 'a.txt': '1\n2\n3\n' });
    await call(ctx, 'Read', { file_path: 'a.txt', limit: 1 });
    const result = await call(ctx, 'Write', { file_path: 'a.txt', content: 'x' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^You have seen only line 1 of a\.txt; overwriting it would drop lines you have not seen\./);
    expect(bytes('a.txt').toString()).toBe('1\n2\n3\n');
  });

  it('refuses to overwrite a file changed since it was read, then allows it after a re-read', async () => {
    const { ctx, abs, bytes } = setup({ 'a.txt': 'v1\n' });
    await call(ctx, 'Read', { file_path: 'a.txt' });
    writeFileSync(abs('a.txt'), 'v2 from the user\n');
    const later = (statSync(abs('a.txt')).mtimeMs + 5_000) / 1000;
    utimesSync(abs('a.txt'), later, later);
    const refused = await call(ctx, 'Write', { file_path: 'a.txt', content: 'v3\n' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^a\.txt has changed on disk since you last read it .* Re-read it before overwriting it, so those changes are not lost\.$/,
    );
    expect(bytes('a.txt').toString()).toBe('v2 from the user\n');

    await call(ctx, 'Read', { file_path: 'a.txt' });
    expect((await call(ctx, 'Write', { file_path: 'a.txt', content: 'v3\n' })).isError).toBe(false);
    expect(bytes('a.txt').toString()).toBe('v3\n');
  });

  it('allows an overwrite when only the mtime moved', async () => {
    const { ctx, abs, bytes } = setup({ 'a.txt': 'same\n' });
    await call(ctx, 'Read', { file_path: 'a.txt' });
    const later = (statSync(abs('a.txt')).mtimeMs + 5_000) / 1000;
    utimesSync(abs('a.txt'), later, later);
    expect((await call(ctx, 'Write', { file_path: 'a.txt', content: 'new\n' })).isError).toBe(false);
    expect(bytes('a.txt').toString()).toBe('new\n');
  });

  it('refuses an inherited entry: a whole-file write needs the agent’s own read', async () => {
    const { ctx, abs, bytes } = setup({ 'a.txt': 'from the parent\n' });
    ctx.fileState.set({
      path: abs('a.txt'),
      hash: hashBytes(bytes('a.txt')),
      mtimeMs: statSync(abs('a.txt')).mtimeMs,
      isPartialView: false,
      origin: 'inherited',
    });
    const result = await call(ctx, 'Write', { file_path: 'a.txt', content: 'x' });
    expect(result).toMatchObject({
      isError: true,
      text: 'a.txt is known to you only from the agent that started you. Read it yourself before replacing all of it, or use Edit to change part of it.',
    });
    expect(bytes('a.txt').toString()).toBe('from the parent\n');
  });

  it('after a Write, Edit needs no Read; after an Edit, Write needs no Read', async () => {
    const { ctx, bytes } = setup();
    await call(ctx, 'Write', { file_path: 'w.txt', content: 'a\n' });
    expect((await call(ctx, 'Edit', { file_path: 'w.txt', old_string: 'a', new_string: 'b' })).isError).toBe(false);
    expect((await call(ctx, 'Write', { file_path: 'w.txt', content: 'c\n' })).isError).toBe(false);
    expect(bytes('w.txt').toString()).toBe('c\n');
  });

  it('writes content as given: LF content makes a CRLF file LF', async () => {
    const { ctx, bytes } = setup({ 'win.txt': 'a\r\nb\r\n' });
    await call(ctx, 'Read', { file_path: 'win.txt' });
    const result = await call(ctx, 'Write', { file_path: 'win.txt', content: 'x\ny\n' });
    expect(result.text).toBe('Wrote win.txt: its whole content is now what you gave (2 lines, 4 bytes).');
    expect(bytes('win.txt').toString()).toBe('x\ny\n');
  });

  it('keeps an existing file’s UTF-16LE encoding and BOM', async () => {
    const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { ctx, bytes } = setup({ 'u16.txt': utf16('old\r\n') });
    await call(ctx, 'Read', { file_path: 'u16.txt' });
    await call(ctx, 'Write', { file_path: 'u16.txt', content: 'neu ü\r\n' });
    expect(bytes('u16.txt').equals(utf16('neu ü\r\n'))).toBe(true);
  });

  it('keeps the permission bits of the file it replaces', async () => {
    const { ctx, abs } = setup({ 'run.sh': '#!/bin/sh\n' });
    chmodSync(abs('run.sh'), 0o755);
    await call(ctx, 'Read', { file_path: 'run.sh' });
    await call(ctx, 'Write', { file_path: 'run.sh', content: '#!/bin/sh\necho hi\n' });
    expect(statSync(abs('run.sh')).mode & 0o777).toBe(0o755);
  });

  it('refuses a directory, and a path whose parent is a file', async () => {
    const { ctx } = setup({ 'dir/x': 'x', plain: 'p' });
    expect((await call(ctx, 'Write', { file_path: 'dir', content: 'x' })).text).toMatch(/^dir is a directory/);
    const under = await call(ctx, 'Write', { file_path: 'plain/child.txt', content: 'x' });
    expect(under).toMatchObject({ isError: true, text: expect.stringMatching(/^Could not write plain\/child\.txt \((ENOTDIR|EEXIST)/) });
  });

  it('refuses a symlink out of the workspace, a dangling one whose target is outside, and .. escapes', async () => {
    const outside = realpathSync(tempDir('orca-outside-'));
    writeFileSync(path.join(outside, 'exists.txt'), 'outside\n');
    const { ctx, abs } = setup();
    symlinkSync(path.join(outside, 'exists.txt'), abs('link.txt'));
    symlinkSync(path.join(outside, 'not-yet.txt'), abs('dangling.txt'));
    for (const filePath of ['link.txt', 'dangling.txt', '../escape.txt', path.join(outside, 'direct.txt')]) {
      const result = await call(ctx, 'Write', { file_path: filePath, content: 'pwned' });
      expect(result.isError).toBe(true);
      expect(result.text).toContain(`${filePath} is outside the workspace`);
    }
    expect(readFileSync(path.join(outside, 'exists.txt'), 'utf8')).toBe('outside\n');
    expect(readdirSync(outside)).toEqual(['exists.txt']);
    expect(existsSync(path.join(path.dirname(ctx.workspace.root), 'escape.txt'))).toBe(false);
  });

  it('writes through a symlink that stays inside, replacing the target and keeping the link', async () => {
    const { ctx, abs, bytes } = setup({ 'real.txt': 'old\n' });
    symlinkSync(abs('real.txt'), abs('alias.txt'));
    await call(ctx, 'Read', { file_path: 'alias.txt' });
    expect((await call(ctx, 'Write', { file_path: 'alias.txt', content: 'new\n' })).isError).toBe(false);
    expect(bytes('real.txt').toString()).toBe('new\n');
    expect(readFileSync(abs('alias.txt'), 'utf8')).toBe('new\n');
  });

  it('refuses bad input with the field named', async () => {
    const { ctx } = setup();
    expect((await call(ctx, 'Write', { file_path: 'a.txt' })).text).toMatch(/^Write input is invalid: content: /);
    expect((await call(ctx, 'Write', { file_path: '', content: 'x' })).text).toMatch(/^Write input is invalid: file_path: /);
  });
});
