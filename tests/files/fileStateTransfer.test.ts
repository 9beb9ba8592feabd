import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportFileState, rebaseFileState } from '../../shared/core/files/fileStateTransfer.js';
import { hashBytes, ReadFileState } from '../../shared/core/files/readFileState.js';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { editTool } from '../../shared/tools/edit.js';
import { writeTool } from '../../shared/tools/write.js';
import { writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

describe('a parent file state cloned into a child worktree', () => {
  it('keeps entries whose bytes match, drops the rest, and lets Edit but not Write use them', async () => {
    const parentRoot = tempDir();
    const childRoot = tempDir();
    const files = {
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 2;\n',
      'src/d.ts': 'export const d = 4;\n',
      'docs/c.md': '# c\n',
    };
    writeFiles(parentRoot, files);
    writeFiles(childRoot, { ...files, 'src/b.ts': 'export const b = 3;\n' });
    const parent = new ReadFileState();
    for (const [name, content] of Object.entries(files)) {
      parent.set({ path: path.join(parentRoot, name), hash: hashBytes(content), mtimeMs: 1, isPartialView: false, origin: 'read' });
    }

    const handed = exportFileState(parent, parentRoot, ['src/**']);
    expect(handed.map((e) => e.path).sort()).toEqual(['src/a.ts', 'src/b.ts', 'src/d.ts']);
    const { state, dropped } = rebaseFileState(handed, childRoot);
    expect(dropped).toEqual(['src/b.ts']);
    expect(state.get(path.join(childRoot, 'src/a.ts'))).toMatchObject({ origin: 'inherited', isPartialView: false });

    const ctx = makeToolContext({ root: childRoot, fileState: state });
    const registry = new ToolRegistry([editTool, writeTool]);
    const edit = await runToolCall(
      { id: 'e1', name: 'Edit', input: { file_path: 'src/a.ts', old_string: 'a = 1', new_string: 'a = 10' } },
      registry,
      modeOnlySlots,
      ctx,
    );
    expect(edit.block.is_error).toBeUndefined();
    // d.ts is inherited and unchanged: enough for Edit, not for overwriting the whole file.
    const write = await runToolCall(
      { id: 'w1', name: 'Write', input: { file_path: 'src/d.ts', content: 'x' } },
      registry,
      modeOnlySlots,
      ctx,
    );
    expect(write.block.is_error).toBe(true);
    expect(write.block.content).toMatch(/inherited|Read it/i);

    // The child's reads and writes never reach the parent's state.
    writeFileSync(path.join(childRoot, 'docs/c.md'), 'changed');
    expect(parent.get(path.join(parentRoot, 'src/a.ts'))!.hash).toBe(hashBytes(files['src/a.ts']));
    expect(parent.size).toBe(4);
  });

  it('carries the lines a parent saw of a partial view, and the child edits only inside them', async () => {
    const parentRoot = tempDir();
    const childRoot = tempDir();
    const content = Array.from({ length: 50 }, (_, i) => `const v${i + 1} = ${i + 1};`).join('\n');
    writeFiles(parentRoot, { 'src/long.ts': content });
    writeFiles(childRoot, { 'src/long.ts': content });
    const parent = new ReadFileState();
    parent.set({
      path: path.join(parentRoot, 'src/long.ts'),
      hash: hashBytes(content),
      mtimeMs: 1,
      isPartialView: true,
      seen: [[1, 20]],
      origin: 'read',
    });
    const handed = exportFileState(parent, parentRoot);
    expect(handed).toEqual([{ path: 'src/long.ts', hash: hashBytes(content), partial: true, seen: [[1, 20]] }]);
    const { state } = rebaseFileState(handed, childRoot);
    const ctx = makeToolContext({ root: childRoot, fileState: state });
    const registry = new ToolRegistry([editTool, writeTool]);
    const edit = (old: string) =>
      runToolCall(
        { id: `e-${old}`, name: 'Edit', input: { file_path: 'src/long.ts', old_string: old, new_string: `${old} ` } },
        registry,
        modeOnlySlots,
        ctx,
      );
    expect((await edit('const v10 =')).block.is_error).toBeUndefined();
    const refused = await edit('const v40 =');
    expect(refused.block.is_error).toBe(true);
    expect(refused.block.content).toContain(
      'old_string is at line 40 of src/long.ts, which you have not seen (you have seen only lines 1–20)',
    );
  });
});
