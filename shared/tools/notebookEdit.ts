import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { writeFileAtomic } from '../core/files/atomicWrite.js';
import { splitLines } from '../core/files/numberedLines.js';
import { checkFreshness, describeView, recordWritten } from '../core/files/staleness.js';
import { encodeText, normalizeLineEndings } from '../core/files/textCodec.js';
import { loadTextFile } from '../core/files/textFile.js';
import { defineTool, loadDescription } from '../core/tool/tool.js';
import { cellIdOf, findCell, isNotebookPath, parseNotebook } from './notebook/notebook.js';
import { NotebookText } from './notebook/notebookEdits.js';

export const NOTEBOOK_EDIT_TOOL = 'NotebookEdit';

export const NotebookEditInputSchema = z.strictObject({
  notebook_path: z.string().min(1).describe('The notebook (.ipynb) to edit: an absolute path, or a path relative to the workspace root.'),
  cell_id: z
    .string()
    .min(1)
    .optional()
    .describe('The id of the cell, as Read shows it. For insert: the new cell goes after this one (at the start when omitted).'),
  new_source: z.string().describe('The new source of the cell (ignored by delete).'),
  cell_type: z.enum(['code', 'markdown']).optional().describe('The type of the cell: required for insert; for replace, changes the type.'),
  edit_mode: z.enum(['replace', 'insert', 'delete']).optional().describe('replace (the default), insert or delete.'),
});
export type NotebookEditInput = z.infer<typeof NotebookEditInputSchema>;

/**
 * NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook the session has read.
 *
 * The rules, in order:
 * - The path must be an `.ipynb` inside the workspace for writing, and exist.
 * - The session must have read the notebook whole, itself (an inherited entry is not enough: a
 *   cell id proves nothing about the cell's content), and the bytes must be the ones it read:
 *   unread, partial, changed since are refused with what to do.
 * - replace and delete need `cell_id`; insert needs `cell_type`, and puts the cell after
 *   `cell_id` (first when there is none). An id no cell has is refused, naming the ids there are.
 * - Only the edited cell changes: every other byte (cells, outputs, metadata, indentation, key
 *   order, line endings) stays as it was (notebookEdits.ts). A replaced code cell's outputs and
 *   execution count are cleared: they belong to the old code. A new cell gets an id when the
 *   notebook's format has them (nbformat 4.5).
 * - Synchronous from the freshness check to the atomic write; afterwards the entry is refreshed,
 *   so the next NotebookEdit needs no Read.
 */
export const notebookEditTool = defineTool({
  name: NOTEBOOK_EDIT_TOOL,
  description: loadDescription(import.meta.url, './notebookEdit.txt'),
  input: NotebookEditInputSchema,
  level: 'workspace-write',
  readOnly: false,
  family: 'edit',
  rule: { kind: 'path', field: 'notebook_path' },
  untrustedOutput: false,
  validate(input) {
    const mode = input.edit_mode ?? 'replace';
    if (!isNotebookPath(input.notebook_path)) {
      return `${input.notebook_path} is not a notebook (.ipynb). Use Edit or Write for other files.`;
    }
    if (mode !== 'insert' && input.cell_id === undefined) return `${mode} needs cell_id: the id of the cell, as Read shows it.`;
    if (mode === 'insert' && input.cell_type === undefined) return 'insert needs cell_type: code or markdown.';
    return undefined;
  },
  async call(input, ctx) {
    const mode = input.edit_mode ?? 'replace';
    const abs = ctx.workspace.resolve(input.notebook_path, 'write');
    const shown = ctx.workspace.display(abs);
    const file = loadTextFile(abs, shown);
    const freshness = checkFreshness(ctx.fileState, file);
    if (freshness.kind === 'unread') {
      throw new ToolError(`${shown} has not been read in this session. Read it first (the whole notebook), then edit it.`);
    }
    if (freshness.kind === 'partial')
      throw new ToolError(`You have seen ${describeView(freshness.entry)} of ${shown}. Read it whole first.`);
    if (freshness.kind === 'changed') {
      throw new ToolError(
        `${shown} has changed on disk since you last read it (modified ${new Date(freshness.mtimeMs).toISOString()}), ` +
          'by a command, a kernel saving it or someone else. Re-read it, then make your edit against its current cells.',
      );
    }
    if (freshness.entry.origin === 'inherited') {
      throw new ToolError(`${shown} is known to you only from the agent that started you. Read it yourself before editing its cells.`);
    }

    const notebook = parseNotebook(file.text, shown);
    const ids = () => notebook.cells.map((cell, index) => cellIdOf(cell, index));
    const index = input.cell_id === undefined ? -1 : findCell(notebook, input.cell_id);
    if (input.cell_id !== undefined && index === -1) {
      const known = ids();
      throw new ToolError(
        `${shown} has no cell with id ${JSON.stringify(input.cell_id)}. ` +
          (known.length === 0 ? 'It has no cells: insert one without cell_id.' : `Its cells are: ${known.join(', ')}.`),
      );
    }

    const edit = new NotebookText(file.text, notebook);
    const source = normalizeLineEndings(input.new_source);
    const lines = splitLines(source).length;
    const size = `${lines} line${lines === 1 ? '' : 's'}`;
    let summary: string;
    let cellId = input.cell_id;
    if (mode === 'replace') {
      const cell = notebook.cells[index]!;
      edit.replace(index, source, input.cell_type);
      const type = input.cell_type ?? cell.cell_type;
      const retyped = type !== cell.cell_type ? ` (now a ${type} cell, was ${cell.cell_type})` : '';
      summary = `Replaced the source of cell ${input.cell_id}${retyped} in ${shown} (${size})${type === 'code' ? '; its outputs and execution count were cleared' : ''}.`;
    } else if (mode === 'insert') {
      const at = index + 1;
      cellId = edit.insert(at, source, input.cell_type!) ?? `cell-${at}`;
      const where = index === -1 ? 'as the first cell' : `after cell ${input.cell_id}`;
      summary = `Inserted a ${input.cell_type} cell (id ${cellId}) ${where} in ${shown} (${size}); the notebook now has ${notebook.cells.length + 1} cells.`;
    } else {
      const cell = notebook.cells[index]!;
      edit.delete(index);
      summary = `Deleted cell ${input.cell_id} (${cell.cell_type}) from ${shown}; ${notebook.cells.length - 1} cell${notebook.cells.length === 2 ? '' : 's'} left.`;
    }

    const bytes = encodeText(edit.current, file.format);
    const written = writeFileAtomic(abs, bytes, { label: shown });
    recordWritten(ctx.fileState, abs, bytes, written.mtimeMs);
    return {
      content: summary,
      data: { notebook_path: abs, cell_id: cellId, edit_mode: mode, cell_type: input.cell_type, new_source: input.new_source },
    };
  },
});
