import { Transform, type TransformCallback } from 'node:stream';

/**
 * Check logs are stored without terminal colour: the program runs in the user's environment
 * (FORCE_COLOR, NO_COLOR, CI, TERM as they are: a test of colour output must behave as in the
 * user's own shell), and its escape sequences are taken out of what orca keeps, so the log reads
 * plainly and the test-count parsers see the words.
 *
 * Only 7-bit sequences are matched (CSI `ESC [ … final`, OSC `ESC ] … BEL|ESC \`, charset
 * `ESC ( B`, two-byte `ESC x`), on the bytes themselves: no byte of a UTF-8 character is ASCII,
 * so other text (and bytes that are not text at all) pass untouched. The 8-bit CSI (0x9B) is left
 * alone: in UTF-8 output it is a continuation byte of some character.
 */
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()*+][ -~]|[@-Z\\-_=>])/g;
/** A sequence cut by a chunk boundary is held until the next chunk; past this length it is no sequence. */
const MAX_HELD = 256;

export function stripColour(text: string): string {
  return text.replace(ESCAPES, '');
}

/** A stream that passes bytes on with the escape sequences removed, across chunk boundaries. */
export function colourStripper(): Transform {
  let held = '';
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      // latin1 maps each byte to one character and back: the bytes stay exactly as they were.
      const text = held + chunk.toString('latin1');
      const cut = unfinishedEscape(text);
      held = text.slice(cut);
      done(null, Buffer.from(stripColour(text.slice(0, cut)), 'latin1'));
    },
    flush(done: TransformCallback) {
      done(null, Buffer.from(stripColour(held), 'latin1'));
    },
  });
}

/** Where an escape sequence that may still be going on at the end of `text` starts (text.length when none). */
function unfinishedEscape(text: string): number {
  const at = text.lastIndexOf('\x1b');
  if (at < 0 || text.length - at > MAX_HELD) return text.length;
  const tail = text.slice(at);
  ESCAPES.lastIndex = 0;
  const match = ESCAPES.exec(tail);
  ESCAPES.lastIndex = 0;
  return match && match.index === 0 ? text.length : at;
}
