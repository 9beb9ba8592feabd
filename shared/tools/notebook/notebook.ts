import { z } from 'zod';
import { ToolError } from '../../core/boundary/toolError.js';
import { describeZodError } from '../../core/boundary/zodIssues.js';

/**
 * A Jupyter notebook (nbformat 4), as far as orca reads it: the cells with their ids, types,
 * sources and outputs, and the notebook's language. Every other field is kept as it is (loose
 * objects): orca never rewrites what it does not edit (notebookEdits.ts splices the text).
 */
const SourceSchema = z.union([z.string(), z.array(z.string())]);

export const NotebookOutputSchema = z.looseObject({
  output_type: z.string(),
  name: z.string().optional(),
  text: SourceSchema.optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  ename: z.string().optional(),
  evalue: z.string().optional(),
  traceback: z.array(z.string()).optional(),
});
export type NotebookOutput = z.infer<typeof NotebookOutputSchema>;

export const NotebookCellSchema = z.looseObject({
  cell_type: z.enum(['code', 'markdown', 'raw']),
  id: z.string().optional(),
  source: SourceSchema,
  metadata: z.record(z.string(), z.unknown()).optional(),
  outputs: z.array(NotebookOutputSchema).optional(),
  execution_count: z.number().int().nullable().optional(),
});
export type NotebookCell = z.infer<typeof NotebookCellSchema>;

export const NotebookSchema = z.looseObject({
  cells: z.array(NotebookCellSchema),
  metadata: z.record(z.string(), z.unknown()).optional(),
  nbformat: z.number().int(),
  nbformat_minor: z.number().int(),
});
export type Notebook = z.infer<typeof NotebookSchema>;

export function isNotebookPath(file: string): boolean {
  return file.toLowerCase().endsWith('.ipynb');
}

/** Parses a notebook's text, or throws a ToolError naming `shown` and what is wrong with it. */
export function parseNotebook(text: string, shown: string): Notebook {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ToolError(
      `${shown} is not a valid notebook: its JSON does not parse (${(error as Error).message}). Inspect it with Bash (e.g. \`jq . ${shown}\`).`,
    );
  }
  const nbformat = (json as { nbformat?: unknown } | null)?.nbformat;
  if (typeof nbformat === 'number' && nbformat < 4) {
    throw new ToolError(
      `${shown} is an nbformat ${nbformat} notebook; only nbformat 4 is read and edited. Convert it with \`jupyter nbconvert --to notebook --nbformat 4\`.`,
    );
  }
  const parsed = NotebookSchema.safeParse(json);
  if (!parsed.success) throw new ToolError(describeZodError(parsed.error, `${shown} as a Jupyter notebook`));
  return parsed.data;
}

/** A source as one string (nbformat stores it as a string or as a list of lines that keep their line breaks). */
export function sourceText(source: string | readonly string[]): string {
  return typeof source === 'string' ? source : source.join('');
}

/** The id the tools name a cell by: its own `id`, or `cell-N` (0-based) in a notebook older than nbformat 4.5. */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return cell.id ?? `cell-${index}`;
}

/** The index of the cell `id` names (its own id, or else `cell-N` for the Nth cell, 0-based), or -1. */
export function findCell(notebook: Notebook, id: string): number {
  const own = notebook.cells.findIndex((cell) => cell.id === id);
  if (own !== -1) return own;
  const numbered = /^cell-(\d+)$/.exec(id);
  if (!numbered) return -1;
  const index = Number(numbered[1]);
  return index < notebook.cells.length ? index : -1;
}

/** The notebook's programming language (its kernel's), python when it does not say. */
export function notebookLanguage(notebook: Notebook): string {
  const meta = notebook.metadata ?? {};
  const info = meta.language_info as { name?: unknown } | undefined;
  const kernel = meta.kernelspec as { language?: unknown } | undefined;
  const name = typeof info?.name === 'string' ? info.name : typeof kernel?.language === 'string' ? kernel.language : 'python';
  return name.toLowerCase();
}
