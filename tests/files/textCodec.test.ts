import { describe, expect, it } from 'vitest';
import { decodeText, dominantLineEnding, encodeText, lineEndingView, normalizeLineEndings } from '../../shared/core/files/textCodec.js';

function roundTrip(bytes: Buffer): Buffer {
  const decoded = decodeText(bytes);
  if (!decoded.ok) throw new Error(decoded.problem);
  return encodeText(decoded.text, decoded.format);
}

describe('decodeText / encodeText', () => {
  it('round-trips UTF-8 without BOM byte for byte', () => {
    const bytes = Buffer.from('héllo wörld — ✓ 😀\n', 'utf8');
    const decoded = decodeText(bytes);
    expect(decoded).toMatchObject({ ok: true, text: 'héllo wörld — ✓ 😀\n', format: { encoding: 'utf8', bom: false } });
    expect(roundTrip(bytes).equals(bytes)).toBe(true);
  });

  it('strips a UTF-8 BOM from the text and puts it back, keeping a second U+FEFF', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\uFEFFx = 1\n', 'utf8')]);
    const decoded = decodeText(bytes);
    expect(decoded).toMatchObject({ ok: true, text: '\uFEFFx = 1\n', format: { encoding: 'utf8', bom: true } });
    expect(roundTrip(bytes).equals(bytes)).toBe(true);
  });

  it('decodes UTF-16LE with a BOM, NUL bytes and all, and encodes it back exactly', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('línea 1\r\nline 2 😀\r\n', 'utf16le')]);
    const decoded = decodeText(bytes);
    expect(decoded).toMatchObject({ ok: true, text: 'línea 1\r\nline 2 😀\r\n', format: { encoding: 'utf16le', bom: true } });
    expect(roundTrip(bytes).equals(bytes)).toBe(true);
  });

  it('refuses invalid UTF-8, naming the byte, its line and offset', () => {
    const bytes = Buffer.concat([Buffer.from('ok\nstill \uFFFD ok\ncaf', 'utf8'), Buffer.from([0xe9]), Buffer.from('\n', 'utf8')]);
    const decoded = decodeText(bytes);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.problem).toBe(`is not valid UTF-8: byte 0xE9 on line 3 (byte offset ${bytes.indexOf(0xe9)})`);
  });

  it('refuses UTF-16BE and UTF-32 by their byte order marks', () => {
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('ab', 'utf16le').swap16()]);
    expect(decodeText(be)).toEqual({ ok: false, problem: 'is UTF-16BE text (by its byte order mark), which is not supported' });
    const le32 = Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x61, 0x00, 0x00, 0x00]);
    expect(decodeText(le32)).toMatchObject({ ok: false, problem: expect.stringContaining('UTF-32LE') });
  });

  it('refuses a UTF-16LE BOM followed by an odd number of bytes', () => {
    expect(decodeText(Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x62]))).toMatchObject({
      ok: false,
      problem: expect.stringContaining('not valid UTF-16LE'),
    });
  });

  it('calls binary data binary, saying what it looks like', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(decodeText(png)).toEqual({ ok: false, problem: 'looks like a PNG image, not text' });
    expect(decodeText(Buffer.from('abc\0def'))).toEqual({ ok: false, problem: 'looks like binary data: it contains NUL bytes, not text' });
  });

  it('decodes an empty file as empty UTF-8 text', () => {
    expect(decodeText(Buffer.alloc(0))).toEqual({ ok: true, text: '', format: { encoding: 'utf8', bom: false } });
  });
});

describe('line endings', () => {
  it('normalises CRLF to LF and leaves a lone CR alone', () => {
    expect(normalizeLineEndings('a\r\nb\rc\r\n')).toBe('a\nb\rc\n');
  });

  it('picks the line ending most breaks use', () => {
    expect(dominantLineEnding('a\r\nb\r\nc\n')).toBe('\r\n');
    expect(dominantLineEnding('a\nb\nc\r\n')).toBe('\n');
    expect(dominantLineEnding('no breaks')).toBe('\n');
  });

  it('maps offsets in the normalised text back to the stored text of a mixed file', () => {
    const stored = 'one\r\ntwo\nthree\r\nfour';
    const view = lineEndingView(stored);
    expect(view.text).toBe('one\ntwo\nthree\nfour');
    for (const word of ['one', 'two', 'three', 'four']) {
      const at = view.text.indexOf(word);
      expect(stored.slice(view.toStored(at), view.toStored(at + word.length))).toBe(word);
    }
    // A span that starts or ends on a converted line break takes the whole CRLF with it.
    const span = view.text.indexOf('\nthree\n');
    expect(stored.slice(view.toStored(span), view.toStored(span + '\nthree\n'.length))).toBe('\nthree\r\n');
    const first = view.text.indexOf('one\n');
    expect(stored.slice(view.toStored(first), view.toStored(first + 4))).toBe('one\r\n');
  });
});
