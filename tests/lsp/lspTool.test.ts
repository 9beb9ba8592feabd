import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { LspService } from '../../shared/tools/lsp/lspService.js';
import { lspTool } from '../../shared/tools/lsp.js';
import { makeToolContext } from '../support/toolContext.js';

const services: LspService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

function project(files: Record<string, string>, options: { lsp?: LspService } = {}) {
  const ctx = makeToolContext({ mode: 'read-only' });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(ctx.workspace.root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const lsp = options.lsp ?? new LspService({ enabled: true });
  services.push(lsp);
  ctx.services.lsp = lsp;
  const registry = new ToolRegistry([lspTool]);
  let calls = 0;
  const lspCall = async (input: Record<string, unknown>) => {
    const run = await runToolCall({ id: `call-${++calls}`, name: 'LSP', input }, registry, modeOnlySlots, ctx);
    expect(run.block.content).not.toMatch(/failed unexpectedly/);
    return { text: run.block.content as string, isError: run.block.is_error === true };
  };
  return { ctx, lspCall };
}

const FIXTURE = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true },
  }),
  'package.json': JSON.stringify({ name: 'fixture', type: 'module', dependencies: { greeter: '2.3.1' } }),
  'node_modules/greeter/package.json': JSON.stringify({ name: 'greeter', version: '2.3.1', types: 'index.d.ts', main: 'index.js' }),
  'node_modules/greeter/index.d.ts':
    '/** Options of greet. */\nexport interface GreetOptions {\n  shout?: boolean;\n}\n\n/** Greets someone. */\nexport declare function greet(name: string, options?: GreetOptions): string;\n',
  'node_modules/greeter/index.js': 'export function greet(name) { return `hello ${name}`; }\n',
  'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/main.ts':
    "import { greet } from 'greeter';\nimport { add } from './math.js';\n\nexport const total = add(1, 2);\nexport const twice = add(total, total);\nexport const hello = greet('ada');\n",
};

describe('the LSP tool', () => {
  it('goes to the definition and finds the references at their path:line, and lists what a file declares', async () => {
    const { lspCall } = project(FIXTURE);
    const definition = await lspCall({ operation: 'goToDefinition', filePath: 'src/main.ts', line: 4, character: 22 });
    expect(definition.isError).toBe(false);
    expect(definition.text).toContain('Definition of add (at src/main.ts:4:22):');
    expect(definition.text).toContain('src/math.ts:1:17  export function add(a: number, b: number): number {');

    const references = await lspCall({ operation: 'findReferences', filePath: 'src/math.ts', line: 1, character: 17 });
    expect(references.isError).toBe(false);
    const where = references.text
      .split('\n')
      .slice(1)
      .map((line) => line.split('  ')[0]);
    expect(where).toEqual(['src/main.ts:2:10', 'src/main.ts:4:22', 'src/main.ts:5:22', 'src/math.ts:1:17']);

    const symbols = await lspCall({ operation: 'documentSymbol', filePath: 'src/main.ts' });
    expect(symbols.text).toMatch(/^Symbols in src\/main\.ts:\n/);
    expect(symbols.text).toContain('constant total (line 4)');
    expect(symbols.text).toContain('constant hello (line 6)');
  });

  it("shows an imported function's signature from the installed package's .d.ts, naming the package and its version", async () => {
    const { lspCall } = project(FIXTURE);
    const hover = await lspCall({ operation: 'hover', filePath: 'src/main.ts', line: 6, character: 22 });
    expect(hover.isError).toBe(false);
    expect(hover.text).toContain('(alias) greet(name: string, options?: GreetOptions): string');
    expect(hover.text).toContain('Greets someone.');
    expect(hover.text).toContain('Declared in node_modules/greeter/index.d.ts:7, from the installed greeter 2.3.1.');
  });

  it('refuses a position past the end, a missing position, and a file no server serves, saying what to do', async () => {
    const { lspCall } = project({ ...FIXTURE, 'README.md': '# hi\n' });
    expect(await lspCall({ operation: 'hover', filePath: 'src/main.ts', line: 40, character: 1 })).toEqual({
      isError: true,
      text: 'src/main.ts has 7 lines, so line 40 is past its end.',
    });
    expect((await lspCall({ operation: 'hover', filePath: 'src/main.ts' })).text).toMatch(/hover needs line and character/);
    expect((await lspCall({ operation: 'documentSymbol', filePath: 'README.md' })).text).toMatch(
      /^No language server serves README\.md .*Use Grep/,
    );
  });

  it('answers for Python with pyright', async () => {
    const { lspCall } = project({
      'util.py': 'def add(a: int, b: int) -> int:\n    return a + b\n',
      'main.py': 'from util import add\n\ntotal = add(1, 2)\n',
    });
    const definition = await lspCall({ operation: 'goToDefinition', filePath: 'main.py', line: 3, character: 9 });
    expect(definition.text).toContain('util.py:1:5  def add(a: int, b: int) -> int:');
    const hover = await lspCall({ operation: 'hover', filePath: 'main.py', line: 3, character: 9 });
    expect(hover.text).toMatch(/def add\(\s*a: int,\s*b: int\s*\) -> int/);
  });
});
