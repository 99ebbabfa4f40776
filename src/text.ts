/**
 * Text that came from an app, a device or a file, on its way to a person: strict UTF-8 decoding
 * (an error naming the line instead of U+FFFD) and the escaping of control characters for the
 * terminal. Every line the CLI prints goes through `escapeControls` once, in src/cli/io.ts.
 */

/**
 * C0 controls but TAB and LF, DEL, C1 controls (U+0080-U+009F: a terminal takes U+009B as CSI and
 * U+009D as OSC, ECMA-48 §5.3), and the bidirectional formatting characters (U+202A-U+202E,
 * U+2066-U+2069, Unicode UAX #9 §2) that reorder what a line shows.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- as above
const CONTROLS_AND_LF = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character written as `\uXXXX` (ESC is `\u001b`), so an escape
 * sequence from a notification tag or a capture line is shown, never obeyed: no clearing the
 * screen (ESC[2J), no hidden link (OSC 8), no bell, no overwriting of the line (CR). The form is
 * JSON's own: in JSON text (where C0 controls are already escaped) it stands for the same
 * character, so `--json` output stays valid and means the same. TAB and LF are kept, unless
 * `oneLine` (an error message), where LF is escaped too.
 */
export function escapeControls(text: string, options: { oneLine?: boolean } = {}): string {
  const pattern = options.oneLine === true ? CONTROLS_AND_LF : CONTROLS;
  return text.replace(pattern, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The offset of the first byte that does not begin or continue a valid UTF-8 sequence (RFC 3629 §4). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    // [length, lowest and highest second byte] per lead byte (RFC 3629 §4 UTF8-2..UTF8-4).
    const [n, lo, hi] = b < 0x80 ? [1, 0, 0] : b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf] : b === 0xe0 ? [3, 0xa0, 0xbf]
      : b === 0xed ? [3, 0x80, 0x9f] : b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf] : b === 0xf0 ? [4, 0x90, 0xbf]
      : b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf] : b === 0xf4 ? [4, 0x80, 0x8f] : [0, 0, 0];
    if (n === 0) return i;
    for (let k = 1; k < n; k++) {
      const c = bytes[i + k];
      if (c === undefined || (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf)) return i + k;
    }
    i += n;
  }
  return Math.max(0, bytes.length - 1);
}

/** Where decoding `bytes` as UTF-8 fails: the 1-based line, and the byte (1-based in that line). */
export interface Utf8Problem {
  readonly line: number;
  readonly byte: number;
  readonly value: number | undefined;
}

/**
 * `bytes` decoded as UTF-8 with a fatal decoder (a BOM is kept, for the caller to judge), or
 * where it is not UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { problem: Utf8Problem } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    const at = firstInvalidUtf8(bytes);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < at; i++) {
      if (bytes[i] === 0x0a) {
        line += 1;
        lineStart = i + 1;
      }
    }
    return { problem: { line, byte: at - lineStart + 1, value: bytes[at] } };
  }
}

/** "byte 5 of the line, 0xff" for an error message. */
export function describeUtf8Problem(p: Utf8Problem): string {
  return `byte ${p.byte} of the line${p.value !== undefined ? `, 0x${p.value.toString(16).padStart(2, '0')}` : ', a sequence cut short at the end'}`;
}
