import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { ToolError } from '../../core/boundary/toolError.js';
import { loadTextFile, statIfExists } from '../../core/files/textFile.js';
import type { Workspace } from '../../core/files/workspace.js';
import { isNotebookPath, type Notebook, notebookLanguage, parseNotebook } from '../notebook/notebook.js';
import { notebookCode } from '../notebook/notebookCode.js';
import { type LanguageServerSpec, serverForPath } from './languageServers.js';

/**
 * A file as a language server sees it. For a source file: its path and text. For a notebook: its
 * code cells as one document (notebookCode.ts) under a path of its own beside the notebook
 * (`analysis.ipynb.py`, never written to disk), with positions mapped back to the cells.
 */
export interface LspDocument {
  /** The file the tools name. */
  file: string;
  /** The path the server knows the document by. */
  path: string;
  spec: LanguageServerSpec;
  languageId: string;
  text: string;
  /** Where a diagnostic is, as the model should read it: `src/a.ts:3:7`, `nb.ipynb (cell a1):2:5`. */
  where(diagnostic: Diagnostic): string;
}

/**
 * The document for `file` as it is on disk now, served by one of `servers`; undefined when none
 * serves its language, or it is not there, or it is not text a server can read (binary, not a
 * notebook). An empty text stands in for a file that does not exist yet.
 */
export function documentFor(
  file: string,
  workspace: Workspace,
  servers: readonly LanguageServerSpec[],
  options: { missingAsEmpty?: boolean } = {},
): LspDocument | undefined {
  const shown = workspace.display(file);
  const exists = statIfExists(file)?.isFile() ?? false;
  if (!exists && !options.missingAsEmpty) return undefined;
  const text = exists ? readText(file, shown) : '';
  if (text === undefined) return undefined;
  if (isNotebookPath(file)) {
    const served = serverForPath(servers, `${file}.py`);
    if (!served) return undefined;
    let notebook: Notebook;
    try {
      notebook = text === '' ? { cells: [], nbformat: 4, nbformat_minor: 5 } : parseNotebook(text, shown);
    } catch (error) {
      if (error instanceof ToolError) return undefined; // not a notebook the tools could read: nothing to check
      throw error;
    }
    if (!notebookLanguage(notebook).startsWith('python')) return undefined;
    const code = notebookCode(notebook);
    return {
      file,
      path: `${file}.py`,
      ...served,
      text: code.text,
      where: (d) => {
        const at = code.locate(d.range.start.line);
        return at ? `${shown} (cell ${at.cellId}):${at.line + 1}:${d.range.start.character + 1}` : `${shown}`;
      },
    };
  }
  const served = serverForPath(servers, file);
  if (!served) return undefined;
  return { file, path: file, ...served, text, where: (d) => `${shown}:${d.range.start.line + 1}:${d.range.start.character + 1}` };
}

function readText(file: string, shown: string): string | undefined {
  try {
    return loadTextFile(file, shown).text;
  } catch (error) {
    if (error instanceof ToolError) return undefined; // binary, too large, not a regular file: no server reads it
    throw error;
  }
}
