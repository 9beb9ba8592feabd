import { describe, expect, it } from 'vitest';
import {
  addRange,
  coversAll,
  coversLines,
  describeRanges,
  firstUnseenLine,
  type LineRange,
  rangesAfterReplace,
} from '../../shared/core/files/lineRanges.js';

/** The spans of every occurrence of `needle` in `text`, as Edit finds them. */
function spansOf(text: string, needle: string): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    spans.push({ start: at, end: at + needle.length });
  return spans;
}

describe('line ranges', () => {
  it('merges overlapping and adjoining ranges and keeps separate ones apart, sorted', () => {
    let ranges: LineRange[] = [];
    ranges = addRange(ranges, 20, 30);
    ranges = addRange(ranges, 1, 5);
    expect(ranges).toEqual([
      [1, 5],
      [20, 30],
    ]);
    expect(addRange(ranges, 6, 19)).toEqual([[1, 30]]);
    expect(addRange(ranges, 25, 40)).toEqual([
      [1, 5],
      [20, 40],
    ]);
  });

  it('says which lines are covered and the first one that is not', () => {
    const ranges: LineRange[] = [
      [1, 5],
      [8, 10],
    ];
    expect(coversLines(ranges, 2, 5)).toBe(true);
    expect(coversLines(ranges, 5, 8)).toBe(false);
    expect(firstUnseenLine(ranges, 4, 9)).toBe(6);
    expect(firstUnseenLine(ranges, 8, 10)).toBeUndefined();
    expect(firstUnseenLine(ranges, 9, 12)).toBe(11);
    expect(firstUnseenLine([], 3, 3)).toBe(3);
    expect(coversAll(ranges, 10)).toBe(false);
    expect(coversAll([[1, 10]], 10)).toBe(true);
    expect(describeRanges(ranges)).toBe('lines 1–5 and 8–10');
    expect(describeRanges([[7, 7]])).toBe('line 7');
  });

  it('renumbers the lines seen after an edit that adds or removes lines', () => {
    const text = 'a\nb\nX\nc\nd\ne\nf\n';
    // Lines 1-4 seen; X (line 3) becomes two lines: what was 5-7 is now 6-8 and still unseen.
    expect(rangesAfterReplace(text, [[1, 4]], spansOf(text, 'X'), 'Y\nZ')).toEqual([[1, 5]]);
    // Removing a line inside the seen part: the part shrinks and the unseen part moves up.
    expect(
      rangesAfterReplace(
        text,
        [
          [1, 4],
          [6, 7],
        ],
        spansOf(text, 'X\n'),
        '',
      ),
    ).toEqual([
      [1, 3],
      [5, 6],
    ]);
  });

  it('never counts as seen a line that mixes written text with text from an unseen line', () => {
    const text = 'one\ntwo\nthree\n';
    // Joining lines 2 and 3 when only 2 was seen: the joined line holds unseen text.
    expect(rangesAfterReplace(text, [[1, 2]], spansOf(text, 'two\n'), 'two ')).toEqual([[1, 1]]);
    // A text without a final line break keeps its last line.
    expect(rangesAfterReplace('a\nb', [[1, 2]], spansOf('a\nb', 'a'), 'A')).toEqual([[1, 2]]);
  });
});
