/**
 * The robots.txt scanner: one linear pass over the bytes of a body that reports, line by line,
 * what Google's parser reads there (robots.cc `RobotsTxtParser` plus the per-line metadata of
 * its parse report, R1-R10). It decides nothing about crawling: the parser (parse.ts) and the
 * linter (lint.ts) both consume its events through `ScanHandler`, the seam between "what the
 * file says" and "what a crawler decides". Pure: no I/O.
 */
import { decodeUtf8, isAsciiWhitespace, isValidUtf8, toBytes } from './encoding.js';

/**
 * C28: Google copies a line into a buffer of 2083 × 8 bytes, one of which holds the
 * terminating NUL, so the first 16663 bytes of a line are kept and the rest is dropped.
 */
export const GOOGLE_LINE_BUFFER_BYTES = 2083 * 8;
export const MAX_LINE_BYTES = GOOGLE_LINE_BUFFER_BYTES - 1;

/** R6: keys Google's parse report recognises but that no Google crawler uses. Exact, case-insensitive. */
export const KNOWN_UNSUPPORTED_KEYS: readonly string[] = [
  'clean-param',
  'content-signal',
  'content-usage',
  'crawl-delay',
  'domain',
  'host',
  'noarchive',
  'nofollow',
  'noindex',
  'request-rate',
  'revisit-after',
  'visit-time',
];
const knownUnsupported = new Set(KNOWN_UNSUPPORTED_KEYS);

export type DirectiveKey = 'user-agent' | 'allow' | 'disallow' | 'sitemap';
export type KeyKind = DirectiveKey | 'unknown' | 'known-unsupported';

/**
 * How a key is recognised (C1, C2): case-insensitive prefix match against the canonical name
 * and the accepted typos, in the order user-agent, allow, disallow, sitemap.
 */
interface KeySpelling {
  key: DirectiveKey;
  spelling: string;
  typo: boolean;
}
const KEY_SPELLINGS: readonly (readonly KeySpelling[])[] = [
  [
    { key: 'user-agent', spelling: 'user-agent', typo: false },
    { key: 'user-agent', spelling: 'useragent', typo: true },
    { key: 'user-agent', spelling: 'user agent', typo: true },
  ],
  // C2: no typo is accepted for allow (`Alow:` is unknown).
  [{ key: 'allow', spelling: 'allow', typo: false }],
  [
    { key: 'disallow', spelling: 'disallow', typo: false },
    { key: 'disallow', spelling: 'dissallow', typo: true },
    { key: 'disallow', spelling: 'dissalow', typo: true },
    { key: 'disallow', spelling: 'disalow', typo: true },
    { key: 'disallow', spelling: 'diasllow', typo: true },
    { key: 'disallow', spelling: 'disallaw', typo: true },
  ],
  [
    { key: 'sitemap', spelling: 'sitemap', typo: false },
    { key: 'sitemap', spelling: 'site-map', typo: true },
  ],
];

/** Whether a line is a directive, and if not, why not (R4, R3, R7). */
export type LineType = 'directive' | 'empty' | 'comment' | 'not-a-directive';

/** One line as Google's parser reads it. */
export interface ScannedLine {
  /** 1-based; a final EOL starts one more, empty, line (R1). */
  line: number;
  type: LineType;
  /** What the key is recognised as; null unless `type === 'directive'`. */
  key: KeyKind | null;
  /** The key as written (trimmed), decoded as UTF-8; '' unless a directive. */
  rawKey: string;
  /** The accepted typo the key starts with (`useragent`, `disalow`, ...), or null (R8, C2). */
  typo: string | null;
  /** The key only starts with a known name (`Disallowed`, `User-agents`, C1). */
  keyPrefix: boolean;
  /** No `:`; Google took the whitespace between exactly two tokens as the separator (T5, R2). */
  missingColon: boolean;
  /** The line has more than MAX_LINE_BYTES bytes; the rest was dropped (R10, C28). */
  lineTooLong: boolean;
  /** A `#` cut the line (T33, R2, R7). */
  hasComment: boolean;
  /** A NUL byte ended the line's content early (C20). */
  hasNul: boolean;
  /** The line's bytes are not valid UTF-8. */
  invalidUtf8: boolean;
  /** The bytes EF BB BF (a BOM) stand inside the line, where Google keeps them (T46, C25). */
  innerBom: boolean;
  /** The value as written: comment cut, ASCII whitespace trimmed (C21), decoded as UTF-8. */
  value: string;
  /** The body and the byte range of the value in it, for byte-exact pattern escaping. */
  bytes: Uint8Array;
  valueStart: number;
  valueEnd: number;
  /** Byte offset of the line's first byte in the body, and its length without the EOL. */
  offset: number;
  byteLength: number;
}

export interface ScanSummary {
  lineCount: number;
  byteLength: number;
  /** Bytes of a (possibly truncated) UTF-8 BOM skipped at byte 0: 0..3 (T45). */
  bomBytes: number;
  invalidUtf8: boolean;
  nul: boolean;
}

/** Receives the scanner's events, like Google's RobotsParseHandler plus its line report. */
export interface ScanHandler {
  onLine(line: ScannedLine): void;
  onEnd?(summary: ScanSummary): void;
}

const LF = 0x0a;
const CR = 0x0d;
const HASH = 0x23;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const BOM = [0xef, 0xbb, 0xbf] as const;

/** Scans a body and sends one event per line to `handler`; returns the file-level summary. */
export function scanRobotsTxt(body: string | Uint8Array, handler: ScanHandler): ScanSummary {
  const bytes = toBytes(body);
  const n = bytes.length;

  // T45: skip the longest prefix of the body that is a prefix of the BOM (EF, EF BB, EF BB BF).
  let bomBytes = 0;
  while (bomBytes < BOM.length && bomBytes < n && bytes[bomBytes] === BOM[bomBytes]) bomBytes++;

  const summary: ScanSummary = { lineCount: 0, byteLength: n, bomBytes, invalidUtf8: false, nul: false };
  let lineNo = 0;
  let lineStart = bomBytes;
  // The next LF and CR at or after lineStart (n when none), found with the native indexOf.
  let nextLf = nextIndex(bytes, LF, lineStart);
  let nextCr = nextIndex(bytes, CR, lineStart);
  while (lineStart < n) {
    const eol = nextLf < nextCr ? nextLf : nextCr;
    if (eol === n) break;
    const ev = scanLine(bytes, ++lineNo, lineStart, eol);
    note(summary, ev);
    handler.onLine(ev);
    // T44, R1: CRLF is one break; a lone CR or LF is one break each (C24).
    lineStart = eol + (eol === nextCr && bytes[eol + 1] === LF ? 2 : 1);
    if (nextLf < lineStart) nextLf = nextIndex(bytes, LF, lineStart);
    if (nextCr < lineStart) nextCr = nextIndex(bytes, CR, lineStart);
  }
  const last = scanLine(bytes, ++lineNo, lineStart, n);
  note(summary, last);
  handler.onLine(last);
  summary.lineCount = lineNo;
  handler.onEnd?.(summary);
  return summary;
}

/** Scans a body and returns all its lines (the linter and tests use this). */
export function scanLines(body: string | Uint8Array): { lines: ScannedLine[]; summary: ScanSummary } {
  const lines: ScannedLine[] = [];
  const summary = scanRobotsTxt(body, { onLine: (l) => lines.push(l) });
  return { lines, summary };
}

function nextIndex(bytes: Uint8Array, byte: number, from: number): number {
  const i = bytes.indexOf(byte, from);
  return i === -1 ? bytes.length : i;
}

function note(summary: ScanSummary, ev: ScannedLine): void {
  if (ev.invalidUtf8) summary.invalidUtf8 = true;
  if (ev.hasNul) summary.nul = true;
}

function scanLine(bytes: Uint8Array, line: number, start: number, end: number): ScannedLine {
  const keptEnd = Math.min(end, start + MAX_LINE_BYTES);
  let contentEnd = keptEnd;
  let commentAt = -1;
  let highBytes = false;
  let hasNul = false;
  for (let i = start; i < end; i++) {
    const b = bytes[i] as number;
    if (b >= 0x80) highBytes = true;
    else if (i < contentEnd) {
      // C20: Google handles the line as a C string, so a NUL ends its content.
      if (b === 0) {
        hasNul = true;
        contentEnd = i;
      } else if (b === HASH && commentAt < 0) commentAt = i;
    }
  }
  let innerBom = false;
  let invalidUtf8 = false;
  if (highBytes) {
    invalidUtf8 = !isValidUtf8(bytes, start, end);
    for (let i = start; i + 2 < end; i++) {
      if (bytes[i] === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf) {
        innerBom = true;
        break;
      }
    }
  }

  const ev: ScannedLine = {
    line,
    type: 'not-a-directive',
    key: null,
    rawKey: '',
    typo: null,
    keyPrefix: false,
    missingColon: false,
    lineTooLong: end > keptEnd,
    hasComment: commentAt >= 0,
    hasNul,
    invalidUtf8,
    innerBom,
    value: '',
    bytes,
    valueStart: start,
    valueEnd: start,
    offset: start,
    byteLength: end - start,
  };

  // T33: `#` starts a comment anywhere; then trim ASCII whitespace (C21).
  const cut = commentAt >= 0 ? commentAt : contentEnd;
  let ts = start;
  let te = cut;
  while (ts < te && isAsciiWhitespace(bytes[ts] as number)) ts++;
  while (te > ts && isAsciiWhitespace(bytes[te - 1] as number)) te--;
  if (ts === te) {
    ev.type = ev.hasComment ? 'comment' : 'empty';
    return ev;
  }

  // `<key>:<value>`; T5/C22: without a colon, whitespace between exactly two tokens will do.
  let sep = -1;
  for (let i = ts; i < te; i++) {
    if (bytes[i] === COLON) {
      sep = i;
      break;
    }
  }
  if (sep < 0) {
    for (let i = ts; i < te; i++) {
      const b = bytes[i] as number;
      if (b === SPACE || b === TAB) {
        sep = i;
        break;
      }
    }
    if (sep < 0) return ev; // one token: R3
    let v = sep;
    while (v < te && (bytes[v] === SPACE || bytes[v] === TAB)) v++;
    for (let i = v; i < te; i++) {
      const b = bytes[i] as number;
      if (b === SPACE || b === TAB) return ev; // three or more tokens: R3, C22
    }
    ev.missingColon = true;
  }

  let ke = sep;
  while (ke > ts && isAsciiWhitespace(bytes[ke - 1] as number)) ke--;
  if (ke === ts) {
    // `: value` has an empty key, which Google does not read as a directive.
    ev.missingColon = false;
    return ev;
  }
  let vs = sep + 1;
  while (vs < te && isAsciiWhitespace(bytes[vs] as number)) vs++;

  ev.type = 'directive';
  ev.rawKey = decodeUtf8(bytes, ts, ke);
  ev.valueStart = vs;
  ev.valueEnd = te;
  ev.value = decodeUtf8(bytes, vs, te);
  classifyKey(ev, bytes, ts, ke);
  return ev;
}

function classifyKey(ev: ScannedLine, bytes: Uint8Array, ks: number, ke: number): void {
  for (const spellings of KEY_SPELLINGS) {
    // Google checks the canonical name first, then the typos; the typo flag is set whenever a
    // typo spelling is a prefix, and the key counts when either is.
    const canonical = spellings[0] as KeySpelling;
    const typo = spellings.find((s) => s.typo && startsWithIgnoreCase(bytes, ks, ke, s.spelling));
    const exact = startsWithIgnoreCase(bytes, ks, ke, canonical.spelling);
    if (!exact && typo === undefined) continue;
    const matched = exact ? canonical : (typo as KeySpelling);
    ev.key = matched.key;
    ev.typo = typo !== undefined ? typo.spelling : null;
    ev.keyPrefix = ke - ks > matched.spelling.length;
    return;
  }
  ev.key = knownUnsupported.has(asciiLowerBytes(bytes, ks, ke)) ? 'known-unsupported' : 'unknown';
}

/** absl::StartsWithIgnoreCase on bytes, against a lower-case ASCII name. */
function startsWithIgnoreCase(bytes: Uint8Array, start: number, end: number, name: string): boolean {
  if (end - start < name.length) return false;
  for (let i = 0; i < name.length; i++) {
    let b = bytes[start + i] as number;
    if (b >= 0x41 && b <= 0x5a) b += 0x20;
    if (b !== name.charCodeAt(i)) return false;
  }
  return true;
}

function asciiLowerBytes(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) {
    let b = bytes[i] as number;
    if (b >= 0x80) return ''; // non-ASCII: cannot be one of the known keys
    if (b >= 0x41 && b <= 0x5a) b += 0x20;
    s += String.fromCharCode(b);
  }
  return s;
}
