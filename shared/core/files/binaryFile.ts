/** How many leading bytes are looked at to tell text from binary. */
export const SNIFF_BYTES = 8192;

/**
 * Signatures of common binary formats, so a refusal can say what the file looks like. Short ASCII
 * ones ("ID3", "BZh") are left out: ordinary text can start with them.
 */
const SIGNATURES: { name: string; at?: number; bytes: number[] | string }[] = [
  { name: 'a PNG image', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { name: 'a JPEG image', bytes: [0xff, 0xd8, 0xff] },
  { name: 'a GIF image', bytes: 'GIF8' },
  { name: 'a WebP image', bytes: 'RIFF' }, // refined below: RIFF also holds WAV and AVI
  { name: 'a PDF document', bytes: '%PDF-' },
  { name: 'a ZIP archive (or a jar, docx, xlsx, …)', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { name: 'a gzip archive', bytes: [0x1f, 0x8b] },
  { name: 'an xz archive', bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { name: 'a zstd archive', bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { name: 'a 7-Zip archive', bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { name: 'a tar archive', at: 257, bytes: 'ustar' },
  { name: 'an ELF executable or library', bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { name: 'a Mach-O executable', bytes: [0xcf, 0xfa, 0xed, 0xfe] },
  { name: 'a Java class file or Mach-O universal binary', bytes: [0xca, 0xfe, 0xba, 0xbe] },
  { name: 'a WebAssembly module', bytes: [0x00, 0x61, 0x73, 0x6d] },
  { name: 'an SQLite database', bytes: 'SQLite format 3\0' },
  { name: 'a WOFF font', bytes: 'wOFF' },
  { name: 'a WOFF2 font', bytes: 'wOF2' },
  { name: 'an OGG media file', bytes: 'OggS' },
];

/**
 * What a file's first bytes say it is when it is not text ("a PNG image", "binary data: it
 * contains NUL bytes"), or undefined when it may be text. Called only for files without a
 * UTF-16 byte order mark, whose NUL bytes are expected.
 */
export function sniffBinary(bytes: Uint8Array): string | undefined {
  const head = bytes.subarray(0, SNIFF_BYTES);
  for (const signature of SIGNATURES) {
    if (startsWith(head, signature.bytes, signature.at ?? 0)) {
      if (signature.bytes === 'RIFF') return riffKind(head);
      return signature.name;
    }
  }
  if (head.includes(0)) return 'binary data: it contains NUL bytes';
  let control = 0;
  for (const byte of head) if (isControlByte(byte)) control += 1;
  // Text has the odd escape or form feed; a tenth of control bytes is data, not prose.
  if (head.length > 0 && control / head.length > 0.1) {
    return `binary data: ${Math.round((control / head.length) * 100)}% of its first bytes are control characters`;
  }
  return undefined;
}

function riffKind(head: Uint8Array): string {
  const kind = Buffer.from(head.subarray(8, 12)).toString('latin1');
  if (kind === 'WEBP') return 'a WebP image';
  if (kind === 'WAVE') return 'a WAV audio file';
  if (kind === 'AVI ') return 'an AVI video';
  return 'a RIFF media file';
}

function startsWith(head: Uint8Array, expected: number[] | string, at: number): boolean {
  const bytes = typeof expected === 'string' ? Buffer.from(expected, 'latin1') : expected;
  if (head.length < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i += 1) if (head[at + i] !== bytes[i]) return false;
  return true;
}

/** C0 controls and DEL, except those that turn up in text: tab, newlines, form feed, backspace, escape. */
function isControlByte(byte: number): boolean {
  if (byte === 0x7f) return true;
  if (byte >= 0x20) return false;
  return ![0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b].includes(byte);
}
