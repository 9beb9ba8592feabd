import { describe, expect, it } from 'vitest';
import { decodeText } from '../../shared/tools/search/grepWorker.js';
import { compilePattern, mayMatchNewline, splitLines, TextMatcher, type TextMatchOptions } from '../../shared/tools/search/matchText.js';

const options = (over: Partial<TextMatchOptions>): TextMatchOptions => ({
  pattern: 'x',
  ignoreCase: false,
  multiline: false,
  mode: 'content',
  before: 0,
  after: 0,
  ...over,
});

describe('TextMatcher', () => {
  it('finds matching lines with context, merging groups that touch', () => {
    const text = 'a\nhit 1\nb\nc\nhit 2\nd\ne\nf\ng\nhit 3\n';
    const found = new TextMatcher(options({ pattern: 'hit', before: 1, after: 1 })).match(text)!;
    expect(found.count).toBe(3);
    expect(found.lines!.map((l) => `${l.n}${l.match ? ':' : '-'}${l.text}`)).toEqual([
      '1-a',
      '2:hit 1',
      '3-b',
      '4-c',
      '5:hit 2',
      '6-d',
      '9-g',
      '10:hit 3',
    ]);
  });

  it('returns nothing for no match, and only the count outside content mode', () => {
    expect(new TextMatcher(options({ pattern: 'zzz' })).match('abc\n')).toBeUndefined();
    expect(new TextMatcher(options({ pattern: 'b', mode: 'count' })).match('b\nab\nc\n')).toEqual({ count: 2 });
    expect(new TextMatcher(options({ pattern: 'b', mode: 'files_with_matches' })).match('b\nab\n')).toEqual({ count: 1 });
  });

  it('keeps ^ and $ to one line and does not let a line pattern cross a line break', () => {
    expect(new TextMatcher(options({ pattern: '^b$', mode: 'count' })).match('a\nb\nc')).toEqual({ count: 1 });
    expect(new TextMatcher(options({ pattern: 'a\\sb', mode: 'count' })).match('a\nb\n')).toBeUndefined();
    // A \r stays in the line, as rg keeps it: "x$" does not match "x\r".
    expect(new TextMatcher(options({ pattern: 'x$', mode: 'count' })).match('x\r\n')).toBeUndefined();
  });

  it('in multiline mode marks every line a match touches and counts matches', () => {
    const text = 'ab\nab\nab\nab\n';
    const counter = new TextMatcher(options({ pattern: 'b\\na', multiline: true, mode: 'count' }));
    expect(counter.match(text)).toEqual({ count: 3 });
    const lines = new TextMatcher(options({ pattern: 'b\\na', multiline: true })).match(text)!.lines!;
    expect(lines.map((l) => l.n)).toEqual([1, 2, 3, 4]);
    // With --multiline-dotall, . crosses lines.
    expect(
      new TextMatcher(options({ pattern: 'start.*end', multiline: true })).match('start\nmiddle\nend\nafter\n')!.lines!.map((l) => l.n),
    ).toEqual([1, 2, 3]);
    // A multiline pattern that cannot span lines is searched (and counted) line by line, as rg does.
    expect(new TextMatcher(options({ pattern: 'o', multiline: true, mode: 'count' })).match('foo foo\nfoo\n')).toEqual({ count: 2 });
  });

  it('does not report an empty match after the last line break', () => {
    expect(new TextMatcher(options({ pattern: '\\n?$', multiline: true, mode: 'count' })).match('a\n')).toEqual({ count: 1 });
  });

  it('matches case-insensitively with ignoreCase', () => {
    expect(new TextMatcher(options({ pattern: 'HELLO', ignoreCase: true, mode: 'count' })).match('hello\nHeLLo\n')).toEqual({ count: 2 });
  });
});

describe('compilePattern', () => {
  it('uses Unicode mode when it can and falls back for escapes only the legacy syntax allows', () => {
    expect(compilePattern('\\p{L}+', false).test('é')).toBe(true);
    expect(compilePattern('a\\-b', false).test('a-b')).toBe(true);
  });

  it('throws the engine message for an invalid pattern', () => {
    expect(() => compilePattern('(a', false)).toThrow(/Unterminated group/);
  });
});

describe('mayMatchNewline', () => {
  it('spots what can match a line break in multiline mode', () => {
    for (const pattern of ['a.b', 'a\\nb', 'a\\sb', '[^x]', '\\W', '\\D', 'a\nb', '\\x0a']) expect(mayMatchNewline(pattern)).toBe(true);
    for (const pattern of ['abc', 'a\\.b', '[.]', '\\w+', '\\d', 'a\\\\nb', '[a-z]']) expect(mayMatchNewline(pattern)).toBe(false);
  });
});

describe('splitLines and decodeText', () => {
  it('splits lines without a phantom last line', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\r\nb')).toEqual(['a\r', 'b']);
  });

  it('reads text as rg does: BOMs handled, UTF-16 transcoded, NUL means binary', () => {
    expect(decodeText(Buffer.from('\ufeffhi', 'utf8'))).toBe('hi');
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi', 'utf16le')]))).toBe('hi');
    expect(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('hi', 'utf16le').swap16()]))).toBe('hi');
    expect(decodeText(Buffer.from([0x61, 0x00, 0x62]))).toBeUndefined();
    expect(decodeText(Buffer.from('plain'))).toBe('plain');
  });
});
