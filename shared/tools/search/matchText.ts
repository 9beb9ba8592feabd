import type { GrepMode, MatchLine } from './grepQuery.js';

/** How the JS fallback matches one file; mirrors what rg does with the same Grep input. */
export interface TextMatchOptions {
  pattern: string;
  ignoreCase: boolean;
  multiline: boolean;
  mode: GrepMode;
  before: number;
  after: number;
}

/** The regular expression of a Grep pattern, or the JS engine's own message when it is invalid. */
export function compilePattern(pattern: string, ignoreCase: boolean, extraFlags = ''): RegExp {
  const flags = (ignoreCase ? 'i' : '') + extraFlags;
  try {
    // Unicode mode first, like rg; patterns it refuses ("\-", "\_") are still valid without it.
    return new RegExp(pattern, `${flags}u`);
  } catch {
    return new RegExp(pattern, flags);
  }
}

/**
 * Whether a pattern may match a line break in multiline mode (rg -U --multiline-dotall). rg decides
 * this exactly from the compiled regex; this is a close reading of the source: `.`, `\n`, `\s`,
 * `\W`, `\D`, `\x`/`\u` escapes, `\p`/`\P` classes, negated classes and literal newlines. It matters
 * for count mode: rg counts matches for such patterns and matching lines for all others.
 */
export function mayMatchNewline(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if ('nsWDxupP'.includes(next)) return true;
      i++;
    } else if (ch === '\n') {
      return true;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
      if (pattern[i + 1] === '^') return true;
      if (pattern[i + 1] === ']') i++;
    } else if (ch === '.') {
      return true;
    }
  }
  return false;
}

/** Compiled regexes for the patterns of one worker's tasks, so a batch does not recompile. */
export class TextMatcher {
  private readonly lineRegex: RegExp;
  /** The same pattern over the whole text with ^ and $ at line ends: a quick "no match here". */
  private readonly wholeRegex: RegExp;
  private readonly spanRegex: RegExp | undefined;

  constructor(private readonly options: TextMatchOptions) {
    this.lineRegex = compilePattern(options.pattern, options.ignoreCase);
    this.wholeRegex = compilePattern(options.pattern, options.ignoreCase, 'm');
    this.spanRegex =
      options.multiline && mayMatchNewline(options.pattern) ? compilePattern(options.pattern, options.ignoreCase, 'gms') : undefined;
  }

  /** What one file's text gives, or undefined when nothing in it matches. */
  match(text: string): { count: number; lines?: MatchLine[] } | undefined {
    if (!this.spanRegex && !this.wholeRegex.test(text)) return undefined;
    const lines = splitLines(text);
    const matched = this.spanRegex ? this.spanMatches(text, lines) : this.lineMatches(lines);
    if (matched.lines.length === 0) return undefined;
    const result: { count: number; lines?: MatchLine[] } = { count: matched.count };
    if (this.options.mode === 'content') result.lines = withContext(lines, matched.lines, this.options);
    return result;
  }

  /** Line by line, as rg searches any pattern that cannot match a line break. */
  private lineMatches(lines: string[]): { count: number; lines: number[] } {
    const found: number[] = [];
    const firstOnly = this.options.mode === 'files_with_matches';
    for (let i = 0; i < lines.length; i++) {
      if (this.lineRegex.test(lines[i]!)) {
        found.push(i);
        if (firstOnly) break;
      }
    }
    return { count: found.length, lines: found };
  }

  /**
   * Over the whole text, as rg -U does for a pattern that may span lines: every line a match
   * touches is a matching line, and count mode counts matches.
   */
  private spanMatches(text: string, lines: string[]): { count: number; lines: number[] } {
    const regex = this.spanRegex!;
    const starts = lineStarts(lines);
    const touched = new Set<number>();
    let count = 0;
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m; m = regex.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      if (m[0].length === 0) regex.lastIndex = advance(text, end, regex.unicode);
      const first = lineAt(starts, start);
      // An empty match after the last line break is past the last line: rg does not report it.
      if (first >= lines.length) break;
      const last = lineAt(starts, end > start ? end - 1 : start);
      for (let line = first; line <= Math.min(last, lines.length - 1); line++) touched.add(line);
      count++;
      if (this.options.mode === 'files_with_matches') break;
    }
    return { count, lines: [...touched].sort((a, b) => a - b) };
  }
}

/** Lines without their `\n` (a `\r` stays, as rg prints it); no empty line after a final break. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/** Where each line starts, plus one entry past the last line's break (the end marker). */
function lineStarts(lines: string[]): number[] {
  const starts = new Array<number>(lines.length + 1);
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    starts[i] = offset;
    offset += lines[i]!.length + 1;
  }
  starts[lines.length] = offset;
  return starts;
}

/** The index of the line holding `offset`; lines.length when it lies after the last line break. */
function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function advance(text: string, index: number, unicode: boolean): number {
  if (unicode && index < text.length) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) return index + 2;
  }
  return index + 1;
}

/** Matching lines with `before`/`after` lines of context around each, in order. */
function withContext(lines: string[], matched: number[], options: { before: number; after: number }): MatchLine[] {
  const out: MatchLine[] = [];
  const isMatch = new Set(matched);
  let next = 0; // the first line not yet emitted
  for (const m of matched) {
    const from = Math.max(next, m - options.before);
    const to = Math.min(lines.length - 1, m + options.after);
    for (let i = from; i <= to; i++) out.push({ n: i + 1, text: lines[i]!, match: isMatch.has(i) });
    next = Math.max(next, to + 1);
  }
  return out;
}
