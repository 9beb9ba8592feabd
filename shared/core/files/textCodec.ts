import { sniffBinary } from './binaryFile.js';

/**
 * Bytes to text and back, exactly. The file tools show and match text, but what they write must
 * be the file's own bytes everywhere they did not change it: same encoding, same byte order mark,
 * same line endings. So decoding refuses what it cannot round-trip (invalid UTF-8, binary data)
 * instead of mangling it, and the line-ending view below maps positions back to the stored text.
 */

export type TextEncoding = 'utf8' | 'utf16le';

export interface TextFormat {
  encoding: TextEncoding;
  /** A byte order mark precedes the text (always so for UTF-16LE here). */
  bom: boolean;
}

export type DecodeResult =
  | { ok: true; text: string; format: TextFormat }
  /** `problem` completes "<path> …", e.g. "is not valid UTF-8: byte 0xE9 on line 3". */
  | { ok: false; problem: string };

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const UTF16LE_BOM = [0xff, 0xfe];

/** Byte order marks of Unicode encodings this codec does not write, checked longest first. */
const UNSUPPORTED_BOMS: { name: string; bytes: number[] }[] = [
  { name: 'UTF-32LE', bytes: [0xff, 0xfe, 0x00, 0x00] },
  { name: 'UTF-32BE', bytes: [0x00, 0x00, 0xfe, 0xff] },
  { name: 'UTF-16BE', bytes: [0xfe, 0xff] },
];

/** UTF-8 (with or without BOM) or UTF-16LE with BOM; anything else is refused with the reason. */
export function decodeText(bytes: Uint8Array): DecodeResult {
  for (const bom of UNSUPPORTED_BOMS) {
    if (startsWith(bytes, bom.bytes)) return { ok: false, problem: `is ${bom.name} text (by its byte order mark), which is not supported` };
  }
  if (startsWith(bytes, UTF16LE_BOM)) {
    const text = decodeStrict('utf-16le', bytes.subarray(UTF16LE_BOM.length));
    if (text === undefined) return { ok: false, problem: 'starts with a UTF-16LE byte order mark but is not valid UTF-16LE' };
    return { ok: true, text, format: { encoding: 'utf16le', bom: true } };
  }
  const bom = startsWith(bytes, UTF8_BOM);
  const body = bom ? bytes.subarray(UTF8_BOM.length) : bytes;
  const binary = sniffBinary(body);
  if (binary) return { ok: false, problem: `looks like ${binary}, not text` };
  const text = decodeStrict('utf-8', body);
  if (text === undefined) return { ok: false, problem: `is not valid UTF-8: ${firstInvalidUtf8(body)}` };
  return { ok: true, text, format: { encoding: 'utf8', bom } };
}

/** The bytes for `text` in `format`: the inverse of decodeText, byte for byte. */
export function encodeText(text: string, format: TextFormat): Buffer {
  const body = Buffer.from(text, format.encoding);
  if (!format.bom) return body;
  return Buffer.concat([Buffer.from(format.encoding === 'utf16le' ? UTF16LE_BOM : UTF8_BOM), body]);
}

export const UTF8_NO_BOM: TextFormat = { encoding: 'utf8', bom: false };

/** The text with every CRLF as a plain LF, as the model sees and writes it. */
export function normalizeLineEndings(text: string): string {
  return text.includes('\r\n') ? text.split('\r\n').join('\n') : text;
}

/** The file's usual line break, for new lines inserted into it: CRLF when most of its breaks are. */
export function dominantLineEnding(stored: string): '\n' | '\r\n' {
  const crlf = stored.split('\r\n').length - 1;
  const lf = stored.split('\n').length - 1 - crlf;
  return crlf > lf ? '\r\n' : '\n';
}

/**
 * The LF-normalised text of `stored` plus the way back: `toStored(i)` is the offset in `stored`
 * of offset `i` in the normalised text. A match found in the normalised text can then be spliced
 * into the stored text, leaving every other byte (and every other line ending) as it was, even
 * in a file that mixes CRLF and LF.
 */
export function lineEndingView(stored: string): { text: string; toStored(index: number): number } {
  // Normalised offsets of the LFs that were CRLFs, ascending.
  const crlfAt: number[] = [];
  for (let at = stored.indexOf('\r\n'); at !== -1; at = stored.indexOf('\r\n', at + 2)) crlfAt.push(at - crlfAt.length);
  return {
    text: normalizeLineEndings(stored),
    toStored(index) {
      // Every CRLF before `index` adds one stored character (its \r).
      let low = 0;
      let high = crlfAt.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (crlfAt[mid]! < index) low = mid + 1;
        else high = mid;
      }
      return index + low;
    },
  };
}

function decodeStrict(encoding: 'utf-8' | 'utf-16le', bytes: Uint8Array): string | undefined {
  try {
    // ignoreBOM keeps a U+FEFF that follows the mark we already removed, so the round trip is exact.
    return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
}

/** Where the first invalid UTF-8 sequence is, as "byte 0xE9 on line 3 (byte offset 41)". */
function firstInvalidUtf8(bytes: Uint8Array): string {
  const lenient = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  // The first U+FFFD that is not a real one (EF BF BD in the file) marks the first bad byte.
  for (let index = lenient.indexOf('\uFFFD'); index !== -1; index = lenient.indexOf('\uFFFD', index + 1)) {
    const prefix = lenient.slice(0, index);
    const offset = Buffer.byteLength(prefix, 'utf8');
    if (bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd) continue;
    const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    const line = prefix.split('\n').length;
    return `byte 0x${byte} on line ${line} (byte offset ${offset})`;
  }
  return 'an incomplete sequence at the end';
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);
}
