/**
 * The escapes servers write into a quoted log field, undone. nginx (`escape=default`) writes `"`,
 * `\` and every byte outside printable ASCII as `\xHH`; Apache (ap_escape_logitem) writes `\"`,
 * `\\`, `\b \n \r \t \v` and other control bytes as `\xhh`. Both are read here, so one reader serves
 * either server. An unknown escape (`\q`) and a lone final backslash are kept as written: the log
 * said them, and dropping a character would change the data.
 *
 * Bytes from `\xHH` runs are decoded as UTF-8 where they form a valid sequence (servers log the
 * bytes the client sent, and today's clients send UTF-8); a byte that is not part of one is read
 * by the caller's rule: Latin-1 (one character per byte, so nothing is lost and `\xE9` from an old
 * client reads as é), or percent-encoding (`%E9`) for a request target, where the byte is what the
 * matcher compares and a percent-encoded byte is how it writes a byte that is not UTF-8.
 */

/** How a byte that is not part of valid UTF-8 is written. */
export type InvalidByteRule = 'latin1' | 'percent';

const SINGLE_CHAR_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  b: '\b',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87; // a-f
  return -1;
}

/** The field with its escapes undone; the text itself when it holds no backslash (the usual case). */
export function unescapeLogField(field: string, invalidByte: InvalidByteRule): string {
  if (!field.includes('\\')) return field;
  let out = '';
  const bytes: number[] = [];
  let i = 0;
  while (i < field.length) {
    const c = field[i]!;
    if (c === '\\' && field[i + 1] === 'x') {
      const high = hexValue(field.charCodeAt(i + 2));
      const low = hexValue(field.charCodeAt(i + 3));
      if (high >= 0 && low >= 0) {
        bytes.push(high * 16 + low);
        i += 4;
        continue;
      }
    }
    if (bytes.length > 0) {
      out += decodeBytes(bytes, invalidByte);
      bytes.length = 0;
    }
    const escaped = c === '\\' ? SINGLE_CHAR_ESCAPES[field[i + 1] ?? ''] : undefined;
    if (escaped !== undefined) {
      out += escaped;
      i += 2;
    } else {
      out += c;
      i += 1;
    }
  }
  if (bytes.length > 0) out += decodeBytes(bytes, invalidByte);
  return out;
}

/** Bytes as text: each valid UTF-8 sequence as its character, each other byte by the rule. */
export function decodeBytes(bytes: readonly number[], invalidByte: InvalidByteRule): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const sequence = utf8SequenceAt(bytes, i);
    if (sequence !== null) {
      out += String.fromCodePoint(sequence.codePoint);
      i += sequence.length;
    } else {
      const b = bytes[i]!;
      out += invalidByte === 'latin1' ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      i += 1;
    }
  }
  return out;
}

/**
 * The UTF-8 sequence starting at `start`, or null when none does (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). ASCII bytes are sequences of one; `percent` leaves them as
 * they are, since a control byte in a target is data the matcher sees as such.
 */
function utf8SequenceAt(bytes: readonly number[], start: number): { codePoint: number; length: number } | null {
  const lead = bytes[start]!;
  if (lead < 0x80) return { codePoint: lead, length: 1 };
  const [length, initial, min] = lead >= 0xc2 && lead <= 0xdf ? [2, lead & 0x1f, 0x80] : lead >= 0xe0 && lead <= 0xef ? [3, lead & 0x0f, 0x800] : lead >= 0xf0 && lead <= 0xf4 ? [4, lead & 0x07, 0x10000] : [0, 0, 0];
  if (length === 0 || start + length > bytes.length) return null;
  let codePoint = initial;
  for (let k = 1; k < length; k++) {
    const b = bytes[start + k]!;
    if ((b & 0xc0) !== 0x80) return null;
    codePoint = (codePoint << 6) | (b & 0x3f);
  }
  if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return null;
  return { codePoint, length };
}
