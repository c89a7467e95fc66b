/**
 * Byte-level helpers for the robots.txt engine. Google's parser works on bytes, not on
 * characters (C20, C21, C28, T45), so the scanner does too; these helpers turn byte ranges
 * into the strings the rest of the engine keeps. Pure: no I/O.
 */

import { Buffer } from 'node:buffer';

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** A body as bytes: strings are UTF-8 encoded first, byte arrays are used as they are. */
export function toBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? utf8Encoder.encode(body) : body;
}

/** True when no character of `s` is above 0x7f. A single character class cannot backtrack. */
export function isAscii7(s: string): boolean {
  return !NON_ASCII.test(s);
}

const NON_ASCII = /[\u0080-\uFFFF]/;

/** Decodes `bytes[start, end)` as UTF-8, replacing invalid sequences with U+FFFD. */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end <= start) return '';
  return utf8Decoder.decode(bytes.subarray(start, end));
}

/**
 * True when `bytes[start, end)` is well-formed UTF-8 (no overlongs, no surrogates, nothing
 * above U+10FFFF).: the file should be UTF-8; the linter reports where it is not.
 */
export function isValidUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return false;
    }
    if (i + need >= end) return false; // truncated sequence
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k] as number;
      if ((c & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += need + 1;
  }
  return true;
}

/** absl::ascii_isspace: space, \t, \n, \v, \f, \r (C21: \v and \f count, NBSP does not). */
export function isAsciiWhitespace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

function isHexDigit(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

const HEX = '0123456789ABCDEF';
const PERCENT = 0x25;

/**
 * The pattern of an allow/disallow value as Google matches it (T28, T49, C17): bytes with the
 * high bit set become `%XX` (uppercase hex), the hex digits of existing valid `%xx` escapes
 * are uppercased, and invalid escapes (`%zz`, a lone `%a`) are left alone. The result is
 * pure ASCII, so its length is its length in octets: the rule's priority (C3).
 */
export function escapePattern(bytes: Uint8Array, start: number, end: number): string {
  const view = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = view.toString('latin1', start, end);
  return escapePatternText(text, 0, text.length);
}

/** escapePattern on the Latin-1 text of a body (one character per byte). */
export function escapePatternText(text: string, start: number, end: number): string {
  let out = '';
  let runStart = start;
  let i = start;
  while (i < end) {
    const b = text.charCodeAt(i);
    if (b === PERCENT && i + 2 < end && isHexDigit(text.charCodeAt(i + 1)) && isHexDigit(text.charCodeAt(i + 2))) {
      const hi = text.charCodeAt(i + 1);
      const lo = text.charCodeAt(i + 2);
      // An escape already in upper case stays as it is, in the run being copied.
      if (hi >= 0x61 || lo >= 0x61) {
        out += text.slice(runStart, i) + '%' + String.fromCharCode(upper(hi), upper(lo));
        runStart = i + 3;
      }
      i += 3;
    } else if (b >= 0x80) {
      out += text.slice(runStart, i) + '%' + HEX.charAt(b >> 4) + HEX.charAt(b & 0xf);
      i += 1;
      runStart = i;
    } else {
      i += 1;
    }
  }
  return out + text.slice(runStart, end);
}

function upper(b: number): number {
  return b >= 0x61 && b <= 0x7a ? b - 0x20 : b;
}

/**
 * ASCII-only lower-casing (C12): `String#toLowerCase` also folds non-ASCII letters (the Kelvin
 * sign becomes `k`), which Google's `EqualsIgnoreCase` never does.
 */
export function asciiLower(s: string): string {
  // On pure ASCII the native lower-casing is the ASCII one; a single character class cannot backtrack.
  if (isAscii7(s)) return s.toLowerCase();
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}
