import { describe, expect, it } from 'vitest';
import { sniffBinary } from '../../shared/core/files/binaryFile.js';

describe('sniffBinary', () => {
  it('names common binary formats by their signatures', () => {
    expect(sniffBinary(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]))).toBe('an ELF executable or library');
    expect(sniffBinary(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe('a gzip archive');
    expect(sniffBinary(Buffer.from('PK\x03\x04rest', 'latin1'))).toBe('a ZIP archive (or a jar, docx, xlsx, …)');
    expect(sniffBinary(Buffer.from('%PDF-1.7\n'))).toBe('a PDF document');
    expect(sniffBinary(Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'))).toBe('a WAV audio file');
    const tar = Buffer.alloc(512, 0x61);
    tar.write('ustar', 257, 'latin1');
    expect(sniffBinary(tar)).toBe('a tar archive');
  });

  it('calls data with NUL bytes or many control bytes binary', () => {
    expect(sniffBinary(Buffer.from('text\0more'))).toBe('binary data: it contains NUL bytes');
    const noisy = Buffer.from(Array.from({ length: 100 }, (_, i) => (i % 4 === 0 ? 0x01 : 0x41)));
    expect(sniffBinary(noisy)).toBe('binary data: 25% of its first bytes are control characters');
  });

  it('leaves text alone: escapes, form feeds, tabs, UTF-8, and words that start like a signature', () => {
    expect(sniffBinary(Buffer.from('\x1b[31mred\x1b[0m\tdone\f\r\n'))).toBeUndefined();
    expect(sniffBinary(Buffer.from('ID3 tags and BZh headers are described below.\n'))).toBeUndefined();
    expect(sniffBinary(Buffer.from('naïve café ✓\n', 'utf8'))).toBeUndefined();
    expect(sniffBinary(Buffer.alloc(0))).toBeUndefined();
  });
});
