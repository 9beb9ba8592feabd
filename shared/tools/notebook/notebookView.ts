import { numberLines, splitLines } from '../../core/files/numberedLines.js';
import { normalizeLineEndings } from '../../core/files/textCodec.js';
import { groupedNumber } from '../../core/text/groupedNumber.js';
import { cellIdOf, type Notebook, type NotebookOutput, notebookLanguage, sourceText } from './notebook.js';

/** Characters of one output shown; the rest is summarised. */
export const OUTPUT_CHARS = 2_000;

/** Text-like output types, best first; anything else (images, widgets) is summarised. */
const TEXT_TYPES = ['text/plain', 'text/markdown', 'application/json', 'text/html', 'text/latex'];

/**
 * A notebook as the model reads it: a header, then each cell with its id (the id NotebookEdit
 * takes), type and execution count, its source as numbered lines (numbered per cell, as
 * diagnostics in notebooks are), and its outputs: text capped at OUTPUT_CHARS, errors with their
 * traceback (terminal colours removed), images and other binary data summarised by type and size.
 */
export function renderNotebook(notebook: Notebook, shown: string): string {
  const count = notebook.cells.length;
  const header =
    `${shown}: a Jupyter notebook, ${count} cell${count === 1 ? '' : 's'}, language ${notebookLanguage(notebook)}, ` +
    `nbformat ${notebook.nbformat}.${notebook.nbformat_minor}. Edit it with NotebookEdit, naming a cell by its id.`;
  const cells = notebook.cells.map((cell, index) => {
    const parts = [`${index + 1} of ${count}`, `id ${cellIdOf(cell, index)}`, cell.cell_type];
    if (cell.cell_type === 'code') parts.push(`execution_count ${cell.execution_count ?? 'none'}`);
    const lines = splitLines(normalizeLineEndings(sourceText(cell.source)));
    const body = lines.length === 0 ? '(empty)' : numberLines(lines, 1);
    const outputs = (cell.outputs ?? []).map((output, n) => renderOutput(output, n + 1));
    return [`<cell ${parts.join(' · ')}>`, body, ...outputs, '</cell>'].join('\n');
  });
  return [header, ...cells].join('\n\n');
}

function renderOutput(output: NotebookOutput, n: number): string {
  const label = `<output ${n} · ${output.output_type}`;
  if (output.output_type === 'stream') {
    return `${label} · ${output.name ?? 'stdout'}>\n${capped(joined(output.text))}`;
  }
  if (output.output_type === 'error') {
    const traceback = (output.traceback ?? []).map(stripAnsi).join('\n');
    return `${label} · ${output.ename ?? 'Error'}: ${output.evalue ?? ''}>\n${capped(traceback)}`;
  }
  const data = output.data ?? {};
  const types = Object.keys(data);
  const textType = TEXT_TYPES.find((type) => type in data);
  const others = types.filter((type) => type !== textType);
  const summary = others.map((type) => summarise(type, data[type])).join('; ');
  const head = `${label}${textType ? ` · ${textType}` : ''}${summary ? ` · also ${summary}` : ''}>`;
  if (!textType) return head;
  const value = data[textType];
  const text = typeof value === 'string' || Array.isArray(value) ? joined(value as string | string[]) : JSON.stringify(value, null, 1);
  return `${head}\n${capped(text)}`;
}

function summarise(type: string, value: unknown): string {
  const size =
    typeof value === 'string' ? value.length : Array.isArray(value) ? value.join('').length : JSON.stringify(value ?? null).length;
  const what = type.startsWith('image/') ? 'an image' : 'data';
  return `${type} (${what}, ${groupedNumber(size)} characters, not shown)`;
}

function joined(text: string | readonly string[] | undefined): string {
  if (text === undefined) return '';
  return normalizeLineEndings(typeof text === 'string' ? text : text.join('')).replace(/\n$/, '');
}

function capped(text: string): string {
  if (text.length <= OUTPUT_CHARS) return text;
  return `${text.slice(0, OUTPUT_CHARS)}\n… (${groupedNumber(text.length - OUTPUT_CHARS)} more characters of this output not shown)`;
}

// Tracebacks carry terminal colour codes (ESC [ … m): noise to a model.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g');
function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}
