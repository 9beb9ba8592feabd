import { describe, expect, it } from 'vitest';
import { numberedLine, numberLines, splitLines } from '../../shared/core/files/numberedLines.js';

describe('numbered lines', () => {
  it('splits text into lines without an extra one after the final line break', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\nb')).toEqual(['a', 'b']);
    expect(splitLines('\n')).toEqual(['']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });

  it('numbers lines like cat -n: right-aligned number, tab, text', () => {
    expect(numberLines(['x', '  y'], 9)).toBe('     9\tx\n    10\t  y');
  });

  it('cuts a long line with a marker giving its full length, never inside a surrogate pair', () => {
    expect(numberedLine(1, 'a'.repeat(12), 10)).toBe(`     1\t${'a'.repeat(10)}… [line cut: 12 characters in all]`);
    const emoji = 'aaaaaaaaa😀bbb'; // the pair sits at 9–10, across the cut at 10
    expect(numberedLine(1, emoji, 10)).toBe(`     1\taaaaaaaaa… [line cut: ${emoji.length} characters in all]`);
  });
});
