import { z } from 'zod';

/**
 * The lines of a file a session has seen, as 1-based inclusive ranges `[first, last]`: sorted,
 * never overlapping or adjoining (addRange keeps them so). What Read records of a partial view,
 * what Edit holds each match against, and what travels with an inherited entry.
 */
export type LineRange = [first: number, last: number];

export const LineRangeSchema = z
  .tuple([z.number().int().min(1), z.number().int().min(1)])
  .refine(([first, last]) => first <= last, 'a line range is [first, last] with first <= last');

/** `ranges` with `[first, last]` added, merged with any range it overlaps or adjoins. */
export function addRange(ranges: readonly LineRange[], first: number, last: number): LineRange[] {
  const out: LineRange[] = [];
  let from = first;
  let to = last;
  for (const [a, b] of ranges) {
    if (b + 1 < from || a > to + 1) out.push([a, b]);
    else {
      from = Math.min(from, a);
      to = Math.max(to, b);
    }
  }
  out.push([from, to]);
  return out.sort((x, y) => x[0] - y[0]);
}

/** The union of two lists of ranges. */
export function mergeRanges(a: readonly LineRange[], b: readonly LineRange[]): LineRange[] {
  return b.reduce<LineRange[]>((out, [first, last]) => addRange(out, first, last), [...a]);
}

/** Whether every line of `[first, last]` is inside the ranges. */
export function coversLines(ranges: readonly LineRange[], first: number, last: number): boolean {
  return ranges.some(([a, b]) => a <= first && last <= b);
}

/** Whether the ranges cover lines 1 to `total` (an empty file is covered by anything). */
export function coversAll(ranges: readonly LineRange[], total: number): boolean {
  return total === 0 || coversLines(ranges, 1, total);
}

/** The first line of `[first, last]` outside the ranges, or undefined when it is all inside. */
export function firstUnseenLine(ranges: readonly LineRange[], first: number, last: number): number | undefined {
  let line = first;
  for (const [a, b] of ranges) {
    if (b < line) continue;
    if (a > line) return line;
    line = b + 1;
    if (line > last) return undefined;
  }
  return line <= last ? line : undefined;
}

/** `lines 1–40 and 90–120` */
export function describeRanges(ranges: readonly LineRange[]): string {
  if (ranges.length === 0) return 'no lines';
  const parts = ranges.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`));
  const list = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
  return `${ranges.length === 1 && ranges[0]![0] === ranges[0]![1] ? 'line' : 'lines'} ${list}`;
}

/**
 * The lines seen after an edit of LF text whose `spans` (offsets, in order, not overlapping) were
 * each replaced by `inserted`: a line of the new text is seen when every character of it is either
 * inserted (the agent wrote it) or comes from a line that was seen. Lines after an edit that adds
 * or removes lines are renumbered with it.
 */
export function rangesAfterReplace(
  oldText: string,
  seen: readonly LineRange[],
  spans: ReadonlyArray<{ start: number; end: number }>,
  inserted: string,
): LineRange[] {
  let out: LineRange[] = [];
  let newLine = 1;
  let known = true;
  let pending = false;
  const endLine = () => {
    if (known) out = addRange(out, newLine, newLine);
    newLine += 1;
    known = true;
    pending = false;
  };
  let oldLine = 1;
  const copy = (from: number, to: number) => {
    let at = from;
    while (at < to) {
      const newline = oldText.indexOf('\n', at);
      const pieceEnd = newline === -1 || newline >= to ? to : newline + 1;
      known &&= coversLines(seen, oldLine, oldLine);
      pending = true;
      if (pieceEnd === newline + 1) {
        endLine();
        oldLine += 1;
      }
      at = pieceEnd;
    }
  };
  const skip = (from: number, to: number) => {
    for (let at = oldText.indexOf('\n', from); at !== -1 && at < to; at = oldText.indexOf('\n', at + 1)) oldLine += 1;
  };
  const write = (text: string) => {
    let at = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', at)) {
      endLine();
      at = newline + 1;
    }
    if (at < text.length) pending = true;
  };
  let from = 0;
  for (const span of spans) {
    copy(from, span.start);
    skip(span.start, span.end);
    write(inserted);
    from = span.end;
  }
  copy(from, oldText.length);
  if (pending) endLine();
  return out;
}
