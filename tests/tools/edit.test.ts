import { mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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

function setup(files: Record<string, string | Buffer> = {}, mode: 'workspace-write' | 'read-only' = 'workspace-write') {
  const ctx = makeToolContext({ mode });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(ctx.workspace.root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const abs = (name: string) => path.join(ctx.workspace.root, name);
  const bytes = (name: string) => readFileSync(abs(name));
  return { ctx, abs, bytes };
}

/** Rewrites a file as another program would, with an mtime strictly newer than before. */
function changeOnDisk(file: string, content: string | Buffer, mtime = statSync(file).mtimeMs + 5_000) {
  writeFileSync(file, content);
  utimesSync(file, mtime / 1000, mtime / 1000);
}

describe('Edit', () => {
  it('replaces a unique match, shows the edited lines numbered, and records the write', async () => {
    const { ctx, abs } = setup({ 'src/a.ts': 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n' });
    await call(ctx, 'Read', { file_path: 'src/a.ts' });
    const result = await call(ctx, 'Edit', { file_path: 'src/a.ts', old_string: 'five', new_string: 'FIVE\nFIVE-B' });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      'Edited src/a.ts: 1 replacement.\n' +
        [
          '     2\ttwo',
          '     3\tthree',
          '     4\tfour',
          '     5\tFIVE',
          '     6\tFIVE-B',
          '     7\tsix',
          '     8\tseven',
          '     9\teight',
        ].join('\n'),
    );
    const after = readFileSync(abs('src/a.ts'));
    expect(after.toString()).toBe('one\ntwo\nthree\nfour\nFIVE\nFIVE-B\nsix\nseven\neight\n');
    expect(ctx.fileState.get(abs('src/a.ts'))).toEqual({
      path: abs('src/a.ts'),
      hash: hashBytes(after),
      mtimeMs: statSync(abs('src/a.ts')).mtimeMs,
      isPartialView: false,
      origin: 'written',
    });
    expect(result.data).toMatchObject({ filePath: abs('src/a.ts'), replacements: 1, replaceAll: false });
  });

  it('allows a second edit without re-reading', async () => {
    const { ctx, bytes } = setup({ 'a.txt': 'alpha beta\n' });
    await call(ctx, 'Read', { file_path: 'a.txt' });
    expect((await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' })).isError).toBe(false);
    expect((await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' })).isError).toBe(false);
    expect(bytes('a.txt').toString()).toBe('ALPHA BETA\n');
  });

  it('works with absolute and relative paths to the same file', async () => {
    const { ctx, abs, bytes } = setup({ 'dir/a.txt': 'x = 1\n' });
    await call(ctx, 'Read', { file_path: abs('dir/a.txt') });
    expect((await call(ctx, 'Edit', { file_path: 'dir/../dir/a.txt', old_string: '1', new_string: '2' })).isError).toBe(false);
    expect(bytes('dir/a.txt').toString()).toBe('x = 2\n');
  });

  it('refuses a file that was never read, and leaves it alone', async () => {
    const { ctx, bytes } = setup({ 'a.txt': 'content\n' });
    const result = await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'content', new_string: 'changed' });
    expect(result).toMatchObject({
      isError: true,
      text: 'a.txt has not been read in this session. Read it first (the whole file, without offset or limit), then edit it.',
    });
    expect(bytes('a.txt').toString()).toBe('content\n');
  });

  it('refuses an edit in lines a partial Read did not show, naming the line and the offset to read', async () => {
    const { ctx, bytes } = setup({ 'a.txt': 'l1\nl2\nl3\nl4\n' });
    await call(ctx, 'Read', { file_path: 'a.txt', offset: 2, limit: 2 });
    const result = await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'l4', new_string: 'L4' });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      'old_string is at line 4 of a.txt, which you have not seen (you have seen only lines 2–3). Read it with offset=4 to see that match, then edit it.',
    );
    expect(bytes('a.txt').toString()).toBe('l1\nl2\nl3\nl4\n');
    // Inside the lines it saw, the same partial view is enough.
    expect((await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'l2', new_string: 'L2' })).isError).toBe(false);
    expect(bytes('a.txt').toString()).toBe('l1\nL2\nl3\nl4\n');
  });

  it('refuses a file changed on disk since the Read (newer mtime, other bytes), then works after a re-read', async () => {
    const { ctx, abs, bytes } = setup({ 'a.txt': 'value = 1\n' });
    await call(ctx, 'Read', { file_path: 'a.txt' });
    changeOnDisk(abs('a.txt'), 'value = 1\nadded = 2\n');
    const result = await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'value = 1', new_string: 'value = 3' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^a\.txt has changed on disk since you last read it \(modified .+\), by a command, a formatter or someone else\. Re-read it/,
    );
    expect(bytes('a.txt').toString()).toBe('value = 1\nadded = 2\n');

    await call(ctx, 'Read', { file_path: 'a.txt' });
    expect((await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'value = 1', new_string: 'value = 3' })).isError).toBe(false);
    expect(bytes('a.txt').toString()).toBe('value = 3\nadded = 2\n');
  });

  it('refuses other bytes even when the mtime did not move (a rewrite within one timestamp tick)', async () => {
    const { ctx, abs, bytes } = setup({ 'a.txt': 'v1\n' });
    await call(ctx, 'Read', { file_path: 'a.txt' });
    changeOnDisk(abs('a.txt'), 'v2\n', statSync(abs('a.txt')).mtimeMs);
    expect((await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'v', new_string: 'w' })).text).toMatch(/has changed on disk/);
    expect(bytes('a.txt').toString()).toBe('v2\n');
  });

  it('allows an edit when only the mtime moved, refreshing the entry', async () => {
    const { ctx, abs, bytes } = setup({ 'a.txt': 'same\n' });
    await call(ctx, 'Read', { file_path: 'a.txt' });
    changeOnDisk(abs('a.txt'), 'same\n');
    expect((await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'same', new_string: 'new' })).isError).toBe(false);
    expect(bytes('a.txt').toString()).toBe('new\n');
  });

  it('refuses old_string equal to new_string before touching anything', async () => {
    const { ctx } = setup({ 'a.txt': 'x\n' });
    await call(ctx, 'Read', { file_path: 'a.txt' });
    expect(await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'x', new_string: 'x' })).toMatchObject({
      isError: true,
      text: 'old_string and new_string are the same, so this edit would change nothing. Put the new text in new_string.',
    });
  });

  it('refuses a missing match with the whitespace hint, and a line-number prefix hint', async () => {
    const { ctx, bytes } = setup({ 'a.py': 'def f():\n    return 1\n' });
    await call(ctx, 'Read', { file_path: 'a.py' });
    const indent = await call(ctx, 'Edit', { file_path: 'a.py', old_string: 'def f():\n  return 1', new_string: 'def f():\n  return 2' });
    expect(indent.isError).toBe(true);
    expect(indent.text).toBe(
      'old_string was not found in a.py. It must match the file exactly, including whitespace, indentation (tabs or spaces) and line breaks. ' +
        'Text that differs only in indentation or trailing spaces is in the file: copy the whitespace exactly. ' +
        'If you are not sure of the current text, Read the file again.',
    );
    const prefixed = await call(ctx, 'Edit', { file_path: 'a.py', old_string: '     2\t    return 1', new_string: '    return 2' });
    expect(prefixed.text).toContain("old_string seems to start with Read's line-number prefix");
    expect(bytes('a.py').toString()).toBe('def f():\n    return 1\n');
  });

  it('refuses several matches without replace_all, saying how many and where', async () => {
    const { ctx, bytes } = setup({ 'c.yaml': 'a:\n  retry: 1\nb:\n  retry: 1\nc:\n  retry: 1\n' });
    await call(ctx, 'Read', { file_path: 'c.yaml' });
    const result = await call(ctx, 'Edit', { file_path: 'c.yaml', old_string: 'retry: 1', new_string: 'retry: 2' });
    expect(result).toMatchObject({
      isError: true,
      text:
        'old_string matches 3 places in c.yaml (lines 2, 4, 6). Include more surrounding lines in old_string so it matches exactly one place, ' +
        'or set replace_all to true to change all 3.',
    });
    expect(bytes('c.yaml').toString()).toBe('a:\n  retry: 1\nb:\n  retry: 1\nc:\n  retry: 1\n');
  });

  it('replaces every match with replace_all and counts them', async () => {
    const { ctx, bytes } = setup({ 'r.ts': 'foo(); foo(); bar(foo);\n' });
    await call(ctx, 'Read', { file_path: 'r.ts' });
    const result = await call(ctx, 'Edit', { file_path: 'r.ts', old_string: 'foo', new_string: 'baz', replace_all: true });
    expect(result.text).toBe('Edited r.ts: 3 replacements (the first shown).\n     1\tbaz(); baz(); bar(baz);');
    expect(result.data).toMatchObject({ replacements: 3, replaceAll: true });
    expect(bytes('r.ts').toString()).toBe('baz(); baz(); bar(baz);\n');
  });

  it('inserts new_string literally: $& and $1 stay as written', async () => {
    const { ctx, bytes } = setup({ 'p.js': 'const price = X;\n' });
    await call(ctx, 'Read', { file_path: 'p.js' });
    await call(ctx, 'Edit', { file_path: 'p.js', old_string: 'X', new_string: "'$&' + '$1' + '$$'" });
    expect(bytes('p.js').toString()).toBe("const price = '$&' + '$1' + '$$';\n");
  });

  it('refuses an empty old_string on a non-empty file', async () => {
    const { ctx, bytes } = setup({ 'a.txt': 'keep me\n' });
    await call(ctx, 'Read', { file_path: 'a.txt' });
    const result = await call(ctx, 'Edit', { file_path: 'a.txt', old_string: '', new_string: 'replace' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^old_string is empty, but a\.txt is not: an empty old_string only creates a missing file or fills an empty one\./,
    );
    expect(bytes('a.txt').toString()).toBe('keep me\n');
  });

  it('creates a missing file (and its folders) from an empty old_string, and fills an empty file', async () => {
    const { ctx, abs, bytes } = setup({ 'empty.txt': '' });
    const created = await call(ctx, 'Edit', { file_path: 'new/dir/n.txt', old_string: '', new_string: 'hello\n' });
    expect(created).toMatchObject({ isError: false, text: 'Created new/dir/n.txt with new_string (1 line).' });
    expect(bytes('new/dir/n.txt').toString()).toBe('hello\n');
    expect(ctx.fileState.get(abs('new/dir/n.txt'))).toMatchObject({ origin: 'written', isPartialView: false });

    const filled = await call(ctx, 'Edit', { file_path: 'empty.txt', old_string: '', new_string: 'a\nb\n' });
    expect(filled).toMatchObject({ isError: false, text: 'Filled the empty file empty.txt with new_string (2 lines).' });
    expect(bytes('empty.txt').toString()).toBe('a\nb\n');
  });

  it('refuses a non-empty old_string on a missing file', async () => {
    const { ctx } = setup();
    const result = await call(ctx, 'Edit', { file_path: 'ghost.txt', old_string: 'x', new_string: 'y' });
    expect(result).toMatchObject({ isError: true, text: expect.stringMatching(/^ghost\.txt does not exist\./) });
  });

  it('keeps a CRLF file CRLF: matches with \\n, writes back \\r\\n', async () => {
    const { ctx, bytes } = setup({ 'win.txt': 'line one\r\nline two\r\nline three\r\n' });
    await call(ctx, 'Read', { file_path: 'win.txt' });
    const result = await call(ctx, 'Edit', { file_path: 'win.txt', old_string: 'line one\nline two', new_string: 'first\nsecond\nthird' });
    expect(result.isError).toBe(false);
    expect(bytes('win.txt').toString()).toBe('first\r\nsecond\r\nthird\r\nline three\r\n');
  });

  it('leaves every untouched line ending of a mixed file as it was', async () => {
    const { ctx, bytes } = setup({ 'mixed.txt': 'a\r\nb\nc\r\nd\n' });
    await call(ctx, 'Read', { file_path: 'mixed.txt' });
    await call(ctx, 'Edit', { file_path: 'mixed.txt', old_string: 'b\nc', new_string: 'B\nC' });
    expect(bytes('mixed.txt').toString()).toBe('a\r\nB\nC\r\nd\n');
  });

  it('keeps a UTF-8 BOM', async () => {
    const { ctx, bytes } = setup({ 'bom.cs': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('class A {}\r\n')]) });
    await call(ctx, 'Read', { file_path: 'bom.cs' });
    await call(ctx, 'Edit', { file_path: 'bom.cs', old_string: 'class A', new_string: 'class B' });
    expect(bytes('bom.cs').equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('class B {}\r\n')]))).toBe(true);
  });

  it('round-trips UTF-16LE with its BOM', async () => {
    const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { ctx, bytes } = setup({ 'u16.txt': utf16('Grüße\r\nmonde\r\n') });
    await call(ctx, 'Read', { file_path: 'u16.txt' });
    expect((await call(ctx, 'Edit', { file_path: 'u16.txt', old_string: 'monde', new_string: 'wörld 😀' })).isError).toBe(false);
    expect(bytes('u16.txt').equals(utf16('Grüße\r\nwörld 😀\r\n'))).toBe(true);
  });

  it('refuses a non-UTF-8 file and leaves it byte-identical', async () => {
    const latin1 = Buffer.from('na\xefve = 1\n', 'latin1');
    const { ctx, bytes } = setup({ 'l1.txt': latin1 });
    expect((await call(ctx, 'Read', { file_path: 'l1.txt' })).isError).toBe(true);
    const result = await call(ctx, 'Edit', { file_path: 'l1.txt', old_string: '1', new_string: '2' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^l1\.txt is not valid UTF-8: byte 0xEF on line 1 \(byte offset 2\)\. It was left as it is/);
    expect(bytes('l1.txt').equals(latin1)).toBe(true);
  });

  it('refuses a binary file and a directory', async () => {
    const { ctx } = setup({ 'bin.dat': Buffer.from([1, 2, 0, 4]), 'dir/x': 'x' });
    expect((await call(ctx, 'Edit', { file_path: 'bin.dat', old_string: 'a', new_string: 'b' })).text).toMatch(
      /^bin\.dat looks like binary data: it contains NUL bytes/,
    );
    expect((await call(ctx, 'Edit', { file_path: 'dir', old_string: 'a', new_string: 'b' })).text).toMatch(/^dir is a directory/);
  });

  it('allows an edit on an inherited entry whose hash matches', async () => {
    const { ctx, abs, bytes } = setup({ 'a.txt': 'parent knew this\n' });
    ctx.fileState.set({ path: abs('a.txt'), hash: hashBytes(bytes('a.txt')), mtimeMs: 0, isPartialView: false, origin: 'inherited' });
    expect((await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'knew', new_string: 'knows' })).isError).toBe(false);
    expect(bytes('a.txt').toString()).toBe('parent knows this\n');
  });

  it('holds an inherited partial entry to the lines its parent saw', async () => {
    const { ctx, abs, bytes } = setup({ 'a.txt': 'one\ntwo\nthree\nfour\n' });
    const hash = hashBytes(bytes('a.txt'));
    ctx.fileState.set({ path: abs('a.txt'), hash, mtimeMs: 0, isPartialView: true, seen: [[1, 2]], origin: 'inherited' });
    const unseen = await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'four', new_string: 'FOUR' });
    expect(unseen).toMatchObject({
      isError: true,
      text: expect.stringContaining('old_string is at line 4 of a.txt, which you have not seen'),
    });
    expect((await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' })).isError).toBe(false);
    expect(ctx.fileState.get(abs('a.txt'))).toMatchObject({ isPartialView: true, seen: [[1, 2]], origin: 'inherited' });
  });

  it('refuses a symlink pointing out of the workspace and .. escapes, leaving the outside file alone', async () => {
    const outside = tempDir('orca-outside-');
    const target = path.join(realpathSync(outside), 'target.txt');
    writeFileSync(target, 'outside\n');
    const { ctx, abs } = setup();
    symlinkSync(target, abs('link.txt'));
    for (const filePath of ['link.txt', path.relative(ctx.workspace.root, target), target]) {
      const result = await call(ctx, 'Edit', { file_path: filePath, old_string: '', new_string: 'pwned' });
      expect(result.isError).toBe(true);
      expect(result.text).toContain(`${filePath} is outside the workspace`);
    }
    expect(readFileSync(target, 'utf8')).toBe('outside\n');
  });

  it('is denied by the permission slot in a read-only session', async () => {
    const { ctx, bytes } = setup({ 'a.txt': 'x\n' }, 'read-only');
    await call(ctx, 'Read', { file_path: 'a.txt' });
    const result = await call(ctx, 'Edit', { file_path: 'a.txt', old_string: 'x', new_string: 'y' });
    expect(result).toMatchObject({
      isError: true,
      text: 'Permission to use Edit was denied: Edit needs workspace-write and this session runs in read-only',
    });
    expect(bytes('a.txt').toString()).toBe('x\n');
  });
});

/** Numbered output as Read shows it: this many lines of `width` characters, each its number first. */
function numberedFile(lines: number, width: number): string[] {
  return Array.from({ length: lines }, (_, i) => `line ${i + 1}:`.padEnd(width, '.'));
}

describe('Edit after a partial Read of a long file', () => {
  // 2,790 lines whose numbered output is 39 characters a line: 108,810 characters in all, past
  // one Read's 100,000, so a Read with limit 4000 shows lines 1–2564 (as commander's 88 KB
  // lib/command.js showed 1–2599).
  function longFile() {
    const lines = numberedFile(2790, 31);
    lines[7] = 'MARK'.padEnd(31, '-');
    lines[2322] = 'MARK'.padEnd(31, '-');
    lines[2699] = 'LATE'.padEnd(31, '-');
    return setup({ 'lib/command.js': `${lines.join('\n')}\n` });
  }

  it('edits every match inside the lines seen, keeps the view partial, and refuses the unseen part and a Write', async () => {
    const { ctx, abs, bytes } = longFile();
    const read = await call(ctx, 'Read', { file_path: 'lib/command.js', limit: 4000 });
    expect(read.text.split('\n\n[')[0]!.length).toBeGreaterThan(99_000);
    expect(read.text).toContain('[Showing lines 1–2564 of 2790 (the rest of the range asked for did not fit');
    expect(ctx.fileState.get(abs('lib/command.js'))).toMatchObject({ isPartialView: true, seen: [[1, 2564]] });

    // Both matches (lines 8 and 2323) lie in lines 1–2564: replace_all goes through.
    const edit = await call(ctx, 'Edit', {
      file_path: 'lib/command.js',
      old_string: 'MARK',
      new_string: 'MARKED\n// added',
      replace_all: true,
    });
    expect(edit).toMatchObject({ isError: false, text: expect.stringContaining('2 replacements') });
    const after = bytes('lib/command.js').toString().split('\n');
    expect(after[7]).toBe('MARKED');
    expect(after[8]).toBe('// added---------------------------');
    expect(after[2324]).toBe('// added---------------------------');
    // Two lines were added inside the seen part: it grows by two, what follows is renumbered.
    expect(ctx.fileState.get(abs('lib/command.js'))).toMatchObject({ isPartialView: true, seen: [[1, 2566]], origin: 'read' });

    // LATE was at line 2700, now 2702: unseen, so refused with where to read.
    const late = await call(ctx, 'Edit', { file_path: 'lib/command.js', old_string: 'LATE', new_string: 'EARLY' });
    expect(late.isError).toBe(true);
    expect(late.text).toBe(
      'old_string is at line 2702 of lib/command.js, which you have not seen (you have seen only lines 1–2566). Read it with offset=2702 to see that match, then edit it.',
    );
    // A match that runs from a seen line into an unseen one is refused from its first unseen line.
    const straddle = await call(ctx, 'Edit', {
      file_path: 'lib/command.js',
      old_string: `${after[2565]}\n${after[2566]}`,
      new_string: 'joined',
    });
    expect(straddle.text).toMatch(/^old_string is at lines 2566–2567 of lib\/command\.js, which you have not seen .* offset=2567 /);
    // A whole-file Write still needs a full view.
    const write = await call(ctx, 'Write', { file_path: 'lib/command.js', content: 'gone\n' });
    expect(write).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^You have seen only lines 1–2566 of lib\/command\.js; overwriting it/),
    });
    expect(bytes('lib/command.js').toString().split('\n')[2701]).toBe('LATE'.padEnd(31, '-'));

    // Reading the rest makes the view whole: the edit then goes through.
    await call(ctx, 'Read', { file_path: 'lib/command.js', offset: 2567 });
    expect(ctx.fileState.get(abs('lib/command.js'))).toMatchObject({ isPartialView: false });
    expect((await call(ctx, 'Edit', { file_path: 'lib/command.js', old_string: 'LATE', new_string: 'EARLY' })).isError).toBe(false);
  });

  it('counts a replace_all with one match in the unseen part as refused, naming only that line', async () => {
    const { ctx, bytes } = longFile();
    const before = bytes('lib/command.js');
    await call(ctx, 'Read', { file_path: 'lib/command.js', limit: 2000 });
    const result = await call(ctx, 'Edit', { file_path: 'lib/command.js', old_string: 'MARK', new_string: 'X', replace_all: true });
    expect(result.text).toBe(
      '1 of the 2 matches of old_string is at line 2323 of lib/command.js, which you have not seen (you have seen only lines 1–2000). Read it with offset=2323 to see that match, then edit it.',
    );
    expect(bytes('lib/command.js').equals(before)).toBe(true);
  });
});
