import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../shared/core/boundary/toolError.js';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { type GlobInput, globTool } from '../../shared/tools/glob.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

const T0 = Date.UTC(2024, 0, 1) / 1000;

/** Writes files with the given mtimes (seconds after T0) into a fresh workspace. */
function workspace(files: Record<string, { text?: string; age?: number }>): string {
  const root = tempDir('orca-glob-');
  for (const [rel, spec] of Object.entries(files)) {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, spec.text ?? 'x\n');
    const when = T0 + (spec.age ?? 0);
    utimesSync(file, when, when);
  }
  return root;
}

async function glob(input: GlobInput, root: string): Promise<string> {
  return (await globTool.call(input, makeToolContext({ root }))).content;
}

async function refusal(input: GlobInput, root: string): Promise<string> {
  const error = await globTool.call(input, makeToolContext({ root })).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe('Glob', () => {
  it('lists matching files newest first, then by path, relative to the workspace root', async () => {
    const root = workspace({
      'src/old.ts': { age: 10 },
      'src/new.ts': { age: 300 },
      'src/deep/mid.ts': { age: 200 },
      'src/b-tie.ts': { age: 100 },
      'src/a-tie.ts': { age: 100 },
      'src/notes.md': { age: 999 },
      'top.ts': { age: 50 },
    });
    expect(await glob({ pattern: '**/*.ts' }, root)).toBe(
      ['src/new.ts', 'src/deep/mid.ts', 'src/a-tie.ts', 'src/b-tie.ts', 'top.ts', 'src/old.ts'].join('\n'),
    );
    // A pattern is relative to path; "*" does not cross folders.
    expect(await glob({ pattern: '*.ts', path: 'src' }, root)).toBe(
      ['src/new.ts', 'src/a-tie.ts', 'src/b-tie.ts', 'src/old.ts'].join('\n'),
    );
    expect(await glob({ pattern: 'src/*.{md,ts}' }, root)).toBe(
      ['src/notes.md', 'src/new.ts', 'src/a-tie.ts', 'src/b-tie.ts', 'src/old.ts'].join('\n'),
    );
    // An absolute pattern inside the workspace works too; results are still relative.
    expect(await glob({ pattern: path.join(root, 'src', 'deep', '*.ts') }, root)).toBe('src/deep/mid.ts');
    // A pattern without wildcards names one file.
    expect(await glob({ pattern: 'src/deep/mid.ts' }, root)).toBe('src/deep/mid.ts');
  });

  it('shows the 100 newest and says how many more there were', async () => {
    const files: Record<string, { age: number }> = {};
    // More than twice the 100 shown: the newest are kept and cut back in batches as files are dated.
    for (let i = 0; i < 530; i++) files[`gen/file${String(i).padStart(3, '0')}.txt`] = { age: i };
    const root = workspace(files);
    const lines = (await glob({ pattern: 'gen/*.txt' }, root)).split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe('gen/file529.txt');
    expect(lines[99]).toBe('gen/file430.txt');
    expect(lines[100]).toBe(
      '[Showing the 100 most recently modified of 530 matching files; 430 more not shown. Narrow the pattern or the path to see them.]',
    );
    const exact = workspace(Object.fromEntries(Object.entries(files).slice(0, 100)));
    expect(await glob({ pattern: 'gen/*.txt' }, exact)).not.toContain('[Showing');
  });

  it('leaves out .git and gitignored files (nested .gitignore files and negations too), keeps hidden files', async () => {
    const root = workspace({
      '.gitignore': { text: 'dist/\n*.log\n!keep.log\n' },
      'src/.gitignore': { text: 'generated.ts\n/local.ts\n' },
      'src/app.ts': { age: 1 },
      'src/generated.ts': {},
      'src/local.ts': {},
      'src/sub/local.ts': { age: 2 },
      'dist/out.ts': {},
      'app.log': {},
      'keep.log': { age: 3 },
      '.hidden/h.ts': { age: 4 },
      '.git/config.ts': {},
    });
    expect(await glob({ pattern: '**/*' }, root)).toBe(
      ['.hidden/h.ts', 'keep.log', 'src/sub/local.ts', 'src/app.ts', '.gitignore', 'src/.gitignore'].join('\n'),
    );
    // A folder asked for by name is listed even when .gitignore leaves it out, as Grep searches it.
    expect(await glob({ pattern: '*.ts', path: 'dist' }, root)).toBe('dist/out.ts');
    expect(await refusal({ pattern: '*', path: '.git' }, root)).toMatch(/^Glob does not list \.git/);
    expect(await refusal({ pattern: '.git/*' }, root)).toMatch(/^Glob does not list \.git/);
  });

  it('does not follow symlinks', async () => {
    const root = workspace({ 'real/a.ts': {} });
    symlinkSync('real/a.ts', path.join(root, 'link.ts'));
    symlinkSync('real', path.join(root, 'linkdir'));
    expect(await glob({ pattern: '**/*.ts' }, root)).toBe('real/a.ts');
  });

  it('answers plainly when nothing matches', async () => {
    const root = workspace({ 'a.ts': {} });
    expect(await glob({ pattern: '**/*.rs' }, root)).toBe('No files match "**/*.rs" in the workspace root.');
    expect(await glob({ pattern: 'missing/**/*.ts' }, root)).toBe('No files match "missing/**/*.ts" in the workspace root.');
  });

  it('refuses a path outside the workspace, however it is written', async () => {
    const root = workspace({ 'a.ts': {} });
    const outside = tempDir('orca-outside-');
    writeFileSync(path.join(outside, 'secret.ts'), 'x');
    expect(await refusal({ pattern: '*.ts', path: outside }, root)).toMatch(/is outside the workspace/);
    expect(await refusal({ pattern: '../*.ts' }, root)).toMatch(/is outside the workspace/);
    expect(await refusal({ pattern: path.join(outside, '*.ts') }, root)).toMatch(/is outside the workspace/);
    symlinkSync(outside, path.join(root, 'escape'));
    expect(await refusal({ pattern: '*.ts', path: 'escape' }, root)).toMatch(/is outside the workspace/);
    // Through the pipeline the refusal is an error result.
    const result = await runToolCall(
      { id: 'g1', name: 'Glob', input: { pattern: '*.ts', path: outside } },
      new ToolRegistry([globTool]),
      modeOnlySlots,
      makeToolContext({ root }),
    );
    expect(result.block.is_error).toBe(true);
  });

  it('refuses a path that does not exist or is not a folder', async () => {
    const root = workspace({ 'a.ts': {} });
    expect(await refusal({ pattern: '*.ts', path: 'nope' }, root)).toMatch(/^Path does not exist: nope/);
    expect(await refusal({ pattern: '*.ts', path: 'a.ts' }, root)).toMatch(/^a\.ts is not a folder/);
  });
});
