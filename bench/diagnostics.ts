import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ReadFileState } from '../shared/core/files/readFileState.js';
import { Workspace } from '../shared/core/files/workspace.js';
import { modeOnlySlots, runToolCall, type ToolPipelineSlots } from '../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../shared/core/tool/registry.js';
import type { ToolContext } from '../shared/core/tool/tool.js';
import { editTool } from '../shared/tools/edit.js';
import { EditDiagnostics } from '../shared/tools/lsp/editDiagnostics.js';
import { TYPESCRIPT_SERVER } from '../shared/tools/lsp/languageServers.js';
import { LspService } from '../shared/tools/lsp/lspService.js';
import { readTool } from '../shared/tools/read.js';
import { benchTempRoot } from './benchEnv.js';
import { median, round } from './stats.js';

export interface DiagnosticsBenchmark {
  files: number;
  /** Median ms an Edit takes with diagnostics once the server is up and the project loaded. */
  warm_ms: number;
  /** Median ms the first Edit takes in a fresh session: server start, project load, both diagnostics. */
  cold_ms: number;
  /** Median ms of the same Edit without diagnostics: what the two figures add to. */
  plain_ms: number;
  warm_samples: number[];
  cold_samples: number[];
  typescript: string | undefined;
}

/** The module the edits change: in the middle of the import chain, imported by the two after it. */
const EDITED = 100;

/**
 * What diagnostics add to an Edit on a 200-file TypeScript project (strict tsconfig, each module
 * importing the two before it, so the project is one connected program). The agent has read the
 * edited module and the two that import it (so they are open in the server and checked after
 * each edit, as in a session). Each Edit alternates between adding a call to a function the
 * module does not have (one new error) and removing it (none). Cold: a fresh session each time,
 * the Read not warming the server, so the first Edit pays the whole start. The servers run
 * unsandboxed here; in a sandboxed session bwrap adds its own start (a few ms).
 */
export async function diagnosticsBenchmark(options: { warm: number; cold: number }): Promise<DiagnosticsBenchmark> {
  const root = mkdtempSync(path.join(benchTempRoot(), 'orca-bench-lsp-'));
  try {
    const project = path.join(root, 'project');
    // Every session starts from the same clean project.
    const reset = () => writeProject(project, 200);
    reset();
    const plain: number[] = [];
    const warm: number[] = [];
    const cold: number[] = [];
    let typescript: string | undefined;

    {
      const session = startSession(project, false);
      await session.readAll();
      for (let i = 0; i < options.warm; i += 1) plain.push(await session.edit(i));
    }
    for (let i = 0; i < options.cold; i += 1) {
      reset();
      const session = startSession(project, true);
      try {
        await session.readAll();
        cold.push(await session.edit(0));
      } finally {
        await session.close();
      }
    }
    {
      reset();
      const session = startSession(project, true);
      try {
        await session.readAll();
        await session.edit(0); // the cold one, not counted
        for (let i = 1; i <= options.warm; i += 1) warm.push(await session.edit(i));
        typescript = await session.detail();
      } finally {
        await session.close();
      }
    }
    return {
      files: 200,
      warm_ms: round(median(warm), 1),
      cold_ms: round(median(cold)),
      plain_ms: round(median(plain), 2),
      warm_samples: warm.map((ms) => round(ms, 1)),
      cold_samples: cold.map((ms) => round(ms)),
      typescript,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function startSession(project: string, withDiagnostics: boolean) {
  const sessionDir = path.join(project, '..', `session-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  mkdirSync(sessionDir, { recursive: true });
  const ctx: ToolContext = {
    workspace: new Workspace(project),
    fileState: new ReadFileState(),
    signal: new AbortController().signal,
    session: { id: 'bench', role: 'worker', dir: sessionDir },
    shell: { env: {}, defaultTimeoutMs: 120_000, maxTimeoutMs: 600_000 },
    mode: 'workspace-write',
    emit: () => {},
    services: {},
  };
  const lsp = new LspService({ enabled: true });
  const diagnostics = new EditDiagnostics(lsp);
  const slots: ToolPipelineSlots = withDiagnostics ? diagnostics.wrap(modeOnlySlots, { warmOnRead: false }) : modeOnlySlots;
  const registry = new ToolRegistry([readTool, editTool]);
  let calls = 0;
  const call = async (name: string, input: Record<string, unknown>) => {
    const started = performance.now();
    const run = await runToolCall({ id: `b${++calls}`, name, input }, registry, slots, ctx);
    const ms = performance.now() - started;
    if (run.block.is_error) throw new Error(`${name} failed in the benchmark: ${String(run.block.content)}`);
    return { ms, text: String(run.block.content) };
  };
  const edited = `src/${moduleName(EDITED)}.ts`;
  return {
    readAll: async () => {
      for (const n of [EDITED, EDITED + 1, EDITED + 2]) await call('Read', { file_path: `src/${moduleName(n)}.ts` });
    },
    /** Edit number `i`: even ones add an error, odd ones remove it. */
    edit: async (i: number) => {
      const broken = `export const extra${EDITED} = helper${EDITED}(1) + notThere${EDITED}(2);`;
      const clean = `export const extra${EDITED} = helper${EDITED}(1);`;
      const [from, to] = i % 2 === 0 ? [clean, broken] : [broken, clean];
      const result = await call('Edit', { file_path: edited, old_string: from, new_string: to });
      if (withDiagnostics && i % 2 === 0 && !result.text.includes(`Cannot find name 'notThere${EDITED}'`)) {
        throw new Error(`the benchmark's broken edit got no diagnostic: ${result.text}`);
      }
      return result.ms;
    },
    detail: async () => (await lsp.server(TYPESCRIPT_SERVER, ctx))?.detail,
    close: () => lsp.close(),
  };
}

function moduleName(n: number): string {
  return `mod${String(n).padStart(3, '0')}`;
}

/** `count` modules, each importing the two before it, with an interface, a class and functions to type-check. */
function writeProject(dir: string, count: number): void {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    `${JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true }, include: ['src'] }, null, 2)}\n`,
  );
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'bench-project', type: 'module', private: true }, null, 2)}\n`);
  for (let n = 0; n < count; n += 1) {
    const deps = [n - 1, n - 2].filter((d) => d >= 0);
    const imports = deps.map((d) => `import { helper${d}, Record${d} } from './${moduleName(d)}.js';`).join('\n');
    const uses = deps.map((d) => `helper${d}(value)`).join(' + ') || 'value';
    const fields = deps.map((d) => `  previous${d}?: Record${d};`).join('\n');
    const body = `${imports}

export interface Record${n} {
  id: number;
  name: string;
  tags: readonly string[];
${fields}
}

export class Store${n} {
  private readonly items = new Map<number, Record${n}>();

  add(record: Record${n}): void {
    this.items.set(record.id, record);
  }

  find(id: number): Record${n} | undefined {
    return this.items.get(id);
  }

  names(): string[] {
    return [...this.items.values()].map((item) => item.name.toUpperCase());
  }
}

export function helper${n}(value: number): number {
  return ${uses} + ${n};
}

export function describe${n}(record: Record${n}): string {
  return \`\${record.id}: \${record.name} [\${record.tags.join(', ')}]\`;
}

export const extra${n} = helper${n}(1);
`;
    writeFileSync(path.join(dir, 'src', `${moduleName(n)}.ts`), body);
  }
}
