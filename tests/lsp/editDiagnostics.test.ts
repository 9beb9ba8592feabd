import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { editTool } from '../../shared/tools/edit.js';
import { EditDiagnostics } from '../../shared/tools/lsp/editDiagnostics.js';
import { LspService } from '../../shared/tools/lsp/lspService.js';
import { notebookEditTool } from '../../shared/tools/notebookEdit.js';
import { readTool } from '../../shared/tools/read.js';
import { writeTool } from '../../shared/tools/write.js';
import { makeToolContext } from '../support/toolContext.js';

const services: LspService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

function project(files: Record<string, string>) {
  const ctx = makeToolContext({ mode: 'workspace-write' });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(ctx.workspace.root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const lsp = new LspService({ enabled: true });
  services.push(lsp);
  const diagnostics = new EditDiagnostics(lsp);
  const slots = diagnostics.wrap(modeOnlySlots, { warmOnRead: true });
  const registry = new ToolRegistry([readTool, editTool, writeTool, notebookEditTool]);
  let calls = 0;
  const call = async (name: string, input: Record<string, unknown>) => {
    const run = await runToolCall({ id: `call-${++calls}`, name, input }, registry, slots, ctx);
    expect(run.block.content).not.toMatch(/failed unexpectedly/);
    return { text: run.block.content as string, isError: run.block.is_error === true };
  };
  return { ctx, call, diagnostics };
}

const TS_PROJECT = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true },
  }),
  'package.json': JSON.stringify({ name: 'fixture', type: 'module' }),
  'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/main.ts':
    "import { add } from './math.js';\n\nexport const total: number = add(1, 2);\nconst wrong: string = 5;\nexport { wrong };\n",
};

describe('diagnostics after an edit (TypeScript)', () => {
  it('names the new error at its line, says nothing once it is fixed, and never repeats an error that was there before', async () => {
    const { call } = project(TS_PROJECT);
    expect((await call('Read', { file_path: 'src/main.ts' })).isError).toBe(false);

    const broken = await call('Edit', {
      file_path: 'src/main.ts',
      old_string: "import { add } from './math.js';",
      new_string: "import { add, subtract } from './math.js';\n\nexport const diff: number = subtract(3, 1);",
    });
    expect(broken.isError).toBe(false);
    expect(broken.text).toMatch(/\[diagnostics\] 1 new error after this edit, from TypeScript 5\.9\.3/);
    expect(broken.text).toContain(`src/main.ts:1:15 Module '"./math.js"' has no exported member 'subtract'. [ts 2305]`);
    // The error that was there before (line 4, now line 6) is not reported as new.
    expect(broken.text).not.toMatch(/not assignable/);

    const fixed = await call('Edit', {
      file_path: 'src/main.ts',
      old_string: "import { add, subtract } from './math.js';\n\nexport const diff: number = subtract(3, 1);",
      new_string: "import { add } from './math.js';",
    });
    expect(fixed.isError).toBe(false);
    expect(fixed.text).not.toContain('[diagnostics]');
  });
});

describe('diagnostics in the files that import the edited one', () => {
  it('reports the error an edit causes in another open file, and only the new one', async () => {
    const { call } = project(TS_PROJECT);
    await call('Read', { file_path: 'src/main.ts' });
    await call('Read', { file_path: 'src/math.ts' });
    const renamed = await call('Edit', {
      file_path: 'src/math.ts',
      old_string: 'export function add(',
      new_string: 'export function sum(',
    });
    expect(renamed.isError).toBe(false);
    expect(renamed.text).toContain('[diagnostics] 1 new error after this edit');
    expect(renamed.text).toContain(`src/main.ts:1:10 Module '"./math.js"' has no exported member 'add'. [ts 2305]`);
    expect(renamed.text).not.toMatch(/not assignable/);
  });
});

const PY_PROJECT = {
  'util.py': 'def add(a: int, b: int) -> int:\n    return a + b\n',
  'main.py': 'from util import add\n\ntotal: int = add(1, 2)\nwrong: str = 5\n',
};

describe('diagnostics after an edit (Python, pyright)', () => {
  it('names the new error at its line, says nothing once it is fixed, and never repeats an error that was there before', async () => {
    const { call } = project(PY_PROJECT);
    expect((await call('Read', { file_path: 'main.py' })).isError).toBe(false);

    const broken = await call('Edit', {
      file_path: 'main.py',
      old_string: 'from util import add\n',
      new_string: 'from util import add, subtract\n\ndiff: int = subtract(3, 1)\n',
    });
    expect(broken.isError).toBe(false);
    expect(broken.text).toMatch(/\[diagnostics\] 1 new error after this edit, from pyright 1\.1\.414/);
    expect(broken.text).toContain('main.py:1:23 "subtract" is unknown import symbol');
    expect(broken.text).not.toMatch(/"Literal\[5\]" is not assignable/);

    const fixed = await call('Edit', {
      file_path: 'main.py',
      old_string: 'from util import add, subtract\n\ndiff: int = subtract(3, 1)\n',
      new_string: 'from util import add\n',
    });
    expect(fixed.isError).toBe(false);
    expect(fixed.text).not.toContain('[diagnostics]');
  });
});

function notebook(cells: { id: string; source: string }[]): string {
  return `${JSON.stringify(
    {
      cells: cells.map((cell) => ({
        cell_type: 'code',
        execution_count: null,
        id: cell.id,
        metadata: {},
        outputs: [],
        source: cell.source.split(/(?<=\n)/),
      })),
      metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  )}\n`;
}

describe('diagnostics after a NotebookEdit (pyright)', () => {
  it('checks the code cells as one program and names the new error by cell and line; magics are not errors', async () => {
    const { call } = project({
      'analysis.ipynb': notebook([
        { id: 'setup', source: '%matplotlib inline\nimport math\nradius = 2.0\n' },
        { id: 'old', source: 'broken: int = "not a number"\n' },
        { id: 'area', source: 'area = math.pi * radius ** 2\narea' },
      ]),
    });
    expect((await call('Read', { file_path: 'analysis.ipynb' })).isError).toBe(false);
    const edited = await call('NotebookEdit', {
      notebook_path: 'analysis.ipynb',
      cell_id: 'area',
      new_source: 'area = math.pi * radius ** 2\ncircumference = 2 * math.pi * radiuss\narea',
    });
    expect(edited.isError).toBe(false);
    expect(edited.text).toMatch(/\[diagnostics\] 1 new error after this edit, from pyright/);
    expect(edited.text).toContain('analysis.ipynb (cell area):2:31 "radiuss" is not defined');
    expect(edited.text).not.toContain('not a number');

    const fixed = await call('NotebookEdit', {
      notebook_path: 'analysis.ipynb',
      cell_id: 'area',
      new_source: 'area = math.pi * radius ** 2\narea',
    });
    expect(fixed.text).not.toContain('[diagnostics]');
  });
});
