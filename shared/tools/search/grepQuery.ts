/**
 * What the two Grep engines (rg and the JS fallback) are given and what they give back. Both
 * return the same shapes, and one formatter (grepOutput.ts) turns them into text, so the model
 * sees the same answer whichever engine ran.
 */

export type GrepMode = 'files_with_matches' | 'content' | 'count';

export interface GrepQuery {
  pattern: string;
  /** The folder result paths are relative to and rg runs in: the workspace root, usually. */
  base: string;
  /** What to search, relative to `base` ('' for `base` itself). */
  target: string;
  /** `target` is one file: searched whatever the glob, type and .gitignore say, as rg does. */
  targetIsFile: boolean;
  /** rg-style globs, already split (see globFilter.ts). */
  globs: string[];
  type?: string;
  mode: GrepMode;
  ignoreCase: boolean;
  /** Context lines before and after each match (content mode). */
  before: number;
  after: number;
  multiline: boolean;
}

/** One line of content-mode output: a matching line, or a context line around one. */
export interface MatchLine {
  /** 1-based line number. */
  n: number;
  text: string;
  match: boolean;
}

/** What one file contributed: always its path; `count` in count mode; `lines` in content mode. */
export interface FileMatches {
  path: string;
  count: number;
  lines?: MatchLine[];
  /**
   * Modification time, files_with_matches mode only (it orders the list). Engines take it while
   * the search still runs, so the stats overlap the search instead of following it.
   */
  mtimeMs?: number;
}

export interface EngineResult {
  files: FileMatches[];
  /** Files that could not be read, and the like: reported with the results, never dropped. */
  warnings: string[];
}
