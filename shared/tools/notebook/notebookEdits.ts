import { randomBytes } from 'node:crypto';
import { applyEdits, type FormattingOptions, type JSONPath, modify } from 'jsonc-parser';
import type { Notebook } from './notebook.js';

export type CellType = 'code' | 'markdown';

/**
 * Changes to a notebook's text that leave every byte outside the change as it was: jsonc-parser
 * computes the edit of one JSON path and formats only what it inserts, in the notebook's own
 * indentation and line endings (nbformat writes one space per level; others differ). A rewrite
 * through JSON.stringify would reorder nothing but still reformat every cell, its outputs and
 * metadata: diffs and reviews of notebooks would show changes no one made.
 */
export class NotebookText {
  private readonly formatting: FormattingOptions;
  /** Whether sources are stored as lists of lines (nbformat's way) rather than one string. */
  private readonly sourceAsLines: boolean;

  constructor(
    private text: string,
    private readonly notebook: Notebook,
  ) {
    const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? ' ';
    this.formatting = {
      insertSpaces: !indent.startsWith('\t'),
      tabSize: indent.startsWith('\t') ? 1 : indent.length,
      eol: text.includes('\r\n') ? '\r\n' : '\n',
    };
    const stored = notebook.cells.find((cell) => cell.source !== undefined)?.source;
    this.sourceAsLines = stored === undefined || Array.isArray(stored);
  }

  get current(): string {
    return this.text;
  }

  /** New source for cell `index`, its type changed to `type` when given; a code cell's outputs and count are cleared (they belong to the old code). */
  replace(index: number, source: string, type: CellType | undefined): void {
    const cell = this.notebook.cells[index]!;
    const becomes = type ?? cell.cell_type;
    this.set(['cells', index, 'source'], this.sourceValue(source));
    if (becomes !== cell.cell_type) this.set(['cells', index, 'cell_type'], becomes);
    if (becomes === 'code') {
      this.set(['cells', index, 'execution_count'], null);
      this.set(['cells', index, 'outputs'], []);
    } else if (cell.cell_type === 'code') {
      this.set(['cells', index, 'execution_count'], undefined);
      this.set(['cells', index, 'outputs'], undefined);
    }
  }

  /** A new cell at `index` (0: the first); returns its id, when the notebook's format has cell ids. */
  insert(index: number, source: string, type: CellType): string | undefined {
    const withIds = this.notebook.nbformat > 4 || this.notebook.nbformat_minor >= 5;
    const id = withIds ? this.freshId() : undefined;
    // Keys in nbformat's (sorted) order.
    const cell: Record<string, unknown> = { cell_type: type };
    if (type === 'code') cell.execution_count = null;
    if (id !== undefined) cell.id = id;
    cell.metadata = {};
    if (type === 'code') cell.outputs = [];
    cell.source = this.sourceValue(source);
    this.text = applyEdits(
      this.text,
      modify(this.text, ['cells', index], cell, { formattingOptions: this.formatting, isArrayInsertion: true }),
    );
    return id;
  }

  delete(index: number): void {
    this.set(['cells', index], undefined);
  }

  private set(at: JSONPath, value: unknown): void {
    this.text = applyEdits(this.text, modify(this.text, at, value, { formattingOptions: this.formatting }));
  }

  private sourceValue(source: string): string | string[] {
    if (!this.sourceAsLines) return source;
    return source === '' ? [] : (source.match(/[^\n]*\n|[^\n]+$/g) ?? []);
  }

  private freshId(): string {
    const taken = new Set(this.notebook.cells.map((cell) => cell.id));
    for (;;) {
      const id = randomBytes(4).toString('hex');
      if (!taken.has(id)) return id;
    }
  }
}
