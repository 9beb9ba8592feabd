import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileCycles, folderCycles, readImportGraph, upwardImports } from './support/importGraph.js';
import { tempDir } from './support/tempDir.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the layers of the source tree (README, Layout)', () => {
  const edges = readImportGraph(ROOT);

  it('reads the imports (a sanity check that the walk found the tree)', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual(expect.objectContaining({ from: 'shared/harness/harness.ts', to: 'shared/core/loop/session.ts' }));
  });

  it('has no import from a lower layer to a higher one, type imports included', () => {
    expect(upwardImports(edges)).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(fileCycles(edges)).toEqual([]);
  });

  it('has no import cycle between folders of shared/', () => {
    expect(folderCycles(edges)).toEqual([]);
  });
});

describe('the layer check itself', () => {
  /** A copy of a few real files with one bad import planted, so the check is shown to catch it. */
  function plantedTree(files: Record<string, string>): string {
    const dir = tempDir('orca-layers-');
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    return dir;
  }

  it('names the file and the import of an upward type import', () => {
    const dir = tempDir('orca-layers-copy-');
    for (const folder of ['shared', 'roles', 'workers', 'coordinator'])
      cpSync(path.join(ROOT, folder), path.join(dir, folder), { recursive: true });
    const file = path.join(dir, 'shared/core/tool/tool.ts');
    writeFileSync(file, `import type { HooksConfig } from '../../policy/hooks/hooksConfig.js';\n${readFileSync(file, 'utf8')}`);
    expect(upwardImports(readImportGraph(dir))).toEqual([
      'shared/core/tool/tool.ts:1 imports ../../policy/hooks/hooksConfig.js (shared/policy/hooks/hooksConfig.ts): shared/core/ may not import shared/policy/',
    ]);
  });

  it('catches shared/ importing roles/, roles/ importing workers/, and workers/ importing coordinator/', () => {
    const dir = plantedTree({
      'shared/core/a.ts': "export { b } from '../../roles/b.js';\n",
      'roles/b.ts': "export const b = await import('../workers/c.js');\n",
      'workers/c.ts': "import '../coordinator/d.js';\nexport const c = 1;\n",
      'coordinator/d.ts': 'export const d = 1;\n',
    });
    const found = upwardImports(readImportGraph(dir));
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/^shared\/core\/a\.ts:1 imports \.\.\/\.\.\/roles\/b\.js .*shared\/core\/ may not import roles\/$/);
    expect(found[1]).toMatch(/^roles\/b\.ts:1 .* roles\/ may not import workers\/$/);
    expect(found[2]).toMatch(/^workers\/c\.ts:1 .* workers\/ may not import coordinator\/$/);
  });

  it('finds a cycle between two files, and between two folders of shared/', () => {
    const dir = plantedTree({
      'shared/core/x/a.ts': "import type { B } from '../y/b.js';\nexport type A = B;\n",
      'shared/core/y/b.ts': "import { c } from './c.js';\nexport type B = typeof c;\n",
      'shared/core/y/c.ts': "import type { A } from '../x/a.js';\nexport const c: A | 1 = 1;\n",
      'shared/core/z/d.ts': "import { e } from './e.js';\nexport const d = e;\n",
      'shared/core/z/e.ts': "import { d } from './d.js';\nexport const e = () => d;\n",
    });
    const edges = readImportGraph(dir);
    expect(fileCycles(edges)).toEqual([
      ['shared/core/x/a.ts', 'shared/core/y/b.ts', 'shared/core/y/c.ts'],
      ['shared/core/z/d.ts', 'shared/core/z/e.ts'],
    ]);
    expect(folderCycles(edges)).toEqual([['shared/core/x', 'shared/core/y']]);
  });
});
