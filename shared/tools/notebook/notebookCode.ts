import { normalizeLineEndings } from '../../core/files/textCodec.js';
import { cellIdOf, type Notebook, sourceText } from './notebook.js';

/** Where a line of the notebook's code document comes from: a code cell, and the 0-based line in it. */
export interface CellLine {
  cellId: string;
  line: number;
}

/**
 * A notebook's code cells as one document for a language server, in order (a later cell sees what
 * an earlier one defined, as when the notebook runs top to bottom). Each cell starts with a marker
 * line of its own, so every line maps back to its cell. IPython's own syntax is not the
 * language's: a line magic or shell escape (`%time`, `!pip …`) becomes `pass` at its indentation,
 * and a cell magic (`%%bash`) blanks the whole cell, so the server reports only real code.
 */
export interface NotebookCode {
  text: string;
  /** The cell line behind a 0-based line of `text`, or undefined for a marker line. */
  locate(line: number): CellLine | undefined;
}

export function notebookCode(notebook: Notebook): NotebookCode {
  const lines: string[] = [];
  const origins: (CellLine | undefined)[] = [];
  notebook.cells.forEach((cell, index) => {
    if (cell.cell_type !== 'code') return;
    const cellId = cellIdOf(cell, index);
    lines.push(`# %% cell ${cellId}`);
    origins.push(undefined);
    const source = normalizeLineEndings(sourceText(cell.source)).split('\n');
    const cellMagic = /^\s*%%/.test(source[0] ?? '');
    source.forEach((line, n) => {
      const magic = /^(\s*)[%!]/.exec(line);
      lines.push(cellMagic ? '' : magic ? `${magic[1]}pass` : line);
      origins.push({ cellId, line: n });
    });
  });
  return { text: `${lines.join('\n')}\n`, locate: (line) => origins[line] };
}
