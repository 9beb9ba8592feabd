import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { editTool } from '../../shared/tools/edit.js';
import { notebookEditTool } from '../../shared/tools/notebookEdit.js';
import { readTool } from '../../shared/tools/read.js';
import { makeToolContext } from '../support/toolContext.js';

const SALES = readFileSync(new URL('../fixtures/notebooks/sales.ipynb', import.meta.url), 'utf8');

function setup(text = SALES) {
  const ctx = makeToolContext({ mode: 'workspace-write' });
  const file = path.join(ctx.workspace.root, 'sales.ipynb');
  writeFileSync(file, text);
  const registry = new ToolRegistry([readTool, editTool, notebookEditTool]);
  let calls = 0;
  const call = async (name: string, input: Record<string, unknown>) => {
    const run = await runToolCall({ id: `call-${++calls}`, name, input }, registry, modeOnlySlots, ctx);
    expect(run.block.content).not.toMatch(/failed unexpectedly/);
    return { text: run.block.content as string, isError: run.block.is_error === true };
  };
  return { ctx, file, call, now: () => readFileSync(file, 'utf8') };
}

/** The [start, end) offsets of `cells[index]` in a notebook's text. */
function cellSpan(text: string, index: number): [number, number] {
  const node = findNodeAtLocation(parseTree(text)!, ['cells', index])!;
  return [node.offset, node.offset + node.length];
}

/** The region where `after` differs from `before`: [start, end in before, end in after). */
function changedRegion(before: string, after: string): { start: number; endBefore: number; endAfter: number } {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start += 1;
  let tail = 0;
  while (tail < before.length - start && tail < after.length - start && before[before.length - 1 - tail] === after[after.length - 1 - tail])
    tail += 1;
  return { start, endBefore: before.length - tail, endAfter: after.length - tail };
}

describe('Read of a notebook', () => {
  it('shows the cells with their ids, sources and outputs: long text cut, images summarised, tracebacks without colour codes', async () => {
    const { call } = setup();
    const read = await call('Read', { file_path: 'sales.ipynb' });
    expect(read.isError).toBe(false);
    expect(read.text).toContain('sales.ipynb: a Jupyter notebook, 5 cells, language python, nbformat 4.5.');
    expect(read.text).toContain(
      '<cell 2 of 5 · id load · code · execution_count 1>\n     1\trows = [1, 2, 3]\n     2\tprint(f"loaded {len(rows)} rows")\n<output 1 · stream · stdout>\nloaded 3 rows\n</cell>',
    );
    expect(read.text).toMatch(
      /<output 1 · display_data · text\/plain · also image\/png \(an image, 96 characters, not shown\)>\n<Figure size 640x480 with 1 Axes>/,
    );
    expect(read.text).toContain('<output 1 · error · ZeroDivisionError: division by zero>\n---');
    expect(read.text).not.toContain('\u001b[');
    expect(read.text).toMatch(/more characters of this output not shown\)/);
    expect(read.text).not.toContain('line 399');
  });

  it('refuses offset and limit, and a file that is not a notebook, saying what to do', async () => {
    const { call, file } = setup();
    expect((await call('Read', { file_path: 'sales.ipynb', offset: 3 })).text).toBe(
      'sales.ipynb is a notebook: it is read whole, as its cells. Read it without offset and limit.',
    );
    writeFileSync(file, '{"cells": [');
    expect((await call('Read', { file_path: 'sales.ipynb' })).text).toMatch(
      /^sales\.ipynb is not a valid notebook: its JSON does not parse/,
    );
  });
});

describe('NotebookEdit', () => {
  it('replaces one cell and leaves every other byte as it was; a code cell loses its stale outputs', async () => {
    const { call, now } = setup();
    await call('Read', { file_path: 'sales.ipynb' });
    const result = await call('NotebookEdit', {
      notebook_path: 'sales.ipynb',
      cell_id: 'plot',
      new_source: 'total = sum(rows) * 2\ntotal',
    });
    expect(result).toEqual({
      isError: false,
      text: 'Replaced the source of cell plot in sales.ipynb (2 lines); its outputs and execution count were cleared.',
    });
    const after = now();
    const region = changedRegion(SALES, after);
    const [cellStart, cellEnd] = cellSpan(SALES, 2);
    expect(region.start).toBeGreaterThanOrEqual(cellStart);
    expect(region.endBefore).toBeLessThanOrEqual(cellEnd);
    const cells = JSON.parse(after).cells;
    expect(cells[2]).toEqual({
      cell_type: 'code',
      execution_count: null,
      id: 'plot',
      metadata: {},
      outputs: [],
      source: ['total = sum(rows) * 2\n', 'total'],
    });
    expect(cells.filter((_: unknown, i: number) => i !== 2)).toEqual(JSON.parse(SALES).cells.filter((_: unknown, i: number) => i !== 2));
  });

  it("inserts a cell after another (or first) in the notebook's own formatting, touching nothing else", async () => {
    const { call, now } = setup();
    await call('Read', { file_path: 'sales.ipynb' });
    const inserted = await call('NotebookEdit', {
      notebook_path: 'sales.ipynb',
      cell_id: 'load',
      edit_mode: 'insert',
      cell_type: 'markdown',
      new_source: '## Totals',
    });
    expect(inserted.isError).toBe(false);
    const id = /id ([0-9a-f]{8})\)/.exec(inserted.text)?.[1];
    expect(inserted.text).toBe(
      `Inserted a markdown cell (id ${id}) after cell load in sales.ipynb (1 line); the notebook now has 6 cells.`,
    );
    const after = now();
    // Exactly the original with the new cell spliced in after the cell `load`.
    const [, loadEnd] = cellSpan(SALES, 1);
    const added = after.length - SALES.length;
    expect(after.slice(0, loadEnd)).toBe(SALES.slice(0, loadEnd));
    expect(after.slice(loadEnd + added)).toBe(SALES.slice(loadEnd));
    expect(after.slice(...cellSpan(after, 2))).toBe(
      `{\n   "cell_type": "markdown",\n   "id": "${id}",\n   "metadata": {},\n   "source": [\n    "## Totals"\n   ]\n  }`,
    );

    // The edit refreshed the file state: a second edit needs no Read; with no cell_id the cell goes first.
    const first = await call('NotebookEdit', {
      notebook_path: 'sales.ipynb',
      edit_mode: 'insert',
      cell_type: 'code',
      new_source: 'import math\n',
    });
    expect(first.isError).toBe(false);
    expect(JSON.parse(now()).cells[0]).toMatchObject({ cell_type: 'code', execution_count: null, outputs: [], source: ['import math\n'] });
  });

  it('deletes a cell, keeping the others byte for byte', async () => {
    const { call, now } = setup();
    await call('Read', { file_path: 'sales.ipynb' });
    expect((await call('NotebookEdit', { notebook_path: 'sales.ipynb', cell_id: 'boom', edit_mode: 'delete', new_source: '' })).text).toBe(
      'Deleted cell boom (code) from sales.ipynb; 4 cells left.',
    );
    const after = now();
    const [start, end] = cellSpan(SALES, 3);
    expect(after).toBe(SALES.slice(0, cellSpan(SALES, 2)[1]) + SALES.slice(end));
    expect(start).toBeGreaterThan(0);
  });

  it('refuses a notebook not read, changed since its Read, or a cell id it does not have; Edit points to NotebookEdit', async () => {
    const { call, file, now } = setup();
    expect((await call('NotebookEdit', { notebook_path: 'sales.ipynb', cell_id: 'plot', new_source: 'x' })).text).toBe(
      'sales.ipynb has not been read in this session. Read it first (the whole notebook), then edit it.',
    );
    await call('Read', { file_path: 'sales.ipynb' });
    expect((await call('NotebookEdit', { notebook_path: 'sales.ipynb', cell_id: 'nope', new_source: 'x' })).text).toBe(
      'sales.ipynb has no cell with id "nope". Its cells are: intro, load, plot, boom, long.',
    );
    // Someone (a kernel, a person) saves the notebook after the Read.
    const changed = SALES.replace('A short analysis.', 'A longer analysis.');
    writeFileSync(file, changed);
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const refused = await call('NotebookEdit', { notebook_path: 'sales.ipynb', cell_id: 'plot', new_source: 'x' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^sales\.ipynb has changed on disk since you last read it .*Re-read it/);
    expect(now()).toBe(changed);
    expect((await call('Edit', { file_path: 'sales.ipynb', old_string: 'A longer', new_string: 'B' })).text).toBe(
      'sales.ipynb is a Jupyter notebook: change its cells with NotebookEdit (Read shows their ids).',
    );
  });

  it('keeps a notebook written with other indentation and CRLF line endings in its own style, and names cells by index when they have no ids', async () => {
    const old = JSON.stringify(
      {
        cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: 'a = 1' }],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 4,
      },
      null,
      2,
    ).replaceAll('\n', '\r\n');
    const { call, now } = setup(old);
    expect((await call('Read', { file_path: 'sales.ipynb' })).text).toContain('<cell 1 of 1 · id cell-0 · code · execution_count none>');
    const inserted = await call('NotebookEdit', {
      notebook_path: 'sales.ipynb',
      cell_id: 'cell-0',
      edit_mode: 'insert',
      cell_type: 'code',
      new_source: 'b = 2',
    });
    expect(inserted.text).toBe('Inserted a code cell (id cell-1) after cell cell-0 in sales.ipynb (1 line); the notebook now has 2 cells.');
    const after = now();
    expect(after.slice(...cellSpan(after, 1))).toBe(
      '{\r\n      "cell_type": "code",\r\n      "execution_count": null,\r\n      "metadata": {},\r\n      "outputs": [],\r\n      "source": "b = 2"\r\n    }',
    );
    expect(after.startsWith(old.slice(0, cellSpan(old, 0)[1]))).toBe(true);
  });
});
