/**
 * The robots.txt scanner: one linear pass over the bytes of a body that reports, line by line,
 * what Google's parser reads there (robots.cc `RobotsTxtParser` plus the per-line metadata of
 * its parse report, R1-R10). It decides nothing about crawling: the parser (parse.ts) and the
 * linter (lint.ts) both consume its events through `ScanHandler`, the seam between "what the
 * file says" and "what a crawler decides". Pure: no I/O.
 */
import type { BodyText } from './encoding.js';
import { asciiLower, isAsciiRange, isAsciiWhitespace, isValidUtf8, rangeText, toBodyText } from './encoding.js';

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
export interface KeySpelling {
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
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const BOM = [0xef, 0xbb, 0xbf] as const;

/** T45: the length of the longest prefix of the body that is a prefix of the BOM (EF, EF BB, EF BB BF). */
function bomLength(bytes: Uint8Array): number {
  let n = 0;
  while (n < BOM.length && n < bytes.length && bytes[n] === BOM[n]) n++;
  return n;
}

/** `text.indexOf(char, from)`, with "none" as the end of the text so that it compares as "after everything". */
function nextIndex(text: string, char: string, from: number): number {
  const i = text.indexOf(char, from);
  return i === -1 ? text.length : i;
}

/**
 * Walks the lines of a body and reads each as Google's parser does, recording only positions:
 * no strings and no objects per line. The parser reads its directives straight from it (its
 * fast path, no handler calls); the scanner builds its per-line events from it. One cursor
 * serves one body, forward only.
 *
 * The line breaks, `#`, NUL and `:` are found with the native `String#indexOf` on the Latin-1
 * text, each remembered until the cursor passes it, so every byte is searched once per
 * character class however long the lines are.
 */
export class LineCursor {
  readonly body: BodyText;
  /** Bytes of a (possibly truncated) UTF-8 BOM skipped at byte 0: 0..3 (T45). */
  readonly bomBytes: number;
  /** 1-based number of the current line; after the last line, the number of lines (R1). */
  line = 0;
  /** The current line is `[start, end)` of the body, without its line break. */
  start = 0;
  end = 0;
  type: LineType = 'empty';
  /** The first NUL of the kept part of the line (C20), or -1. */
  nulAt = -1;
  /** The `#` that starts a comment (T33), or -1. */
  commentAt = -1;
  /** The spelling the key was recognised by (C1, C2), or null for any other key; directives only. */
  spelling: KeySpelling | null = null;
  /** Directives only: the key and the value, trimmed (C21), as byte ranges. */
  keyStart = 0;
  keyEnd = 0;
  valueStart = 0;
  valueEnd = 0;
  /** No `:`; whitespace between exactly two tokens took its place (T5, R2). */
  missingColon = false;

  private nextStart: number;
  private finished = false;
  // The next position of each searched character at or after the current line (text.length: none).
  private nextLf = -1;
  private nextCr = -1;
  private nextHash = -1;
  private nextNul = -1;
  private nextColon = -1;

  constructor(body: BodyText) {
    this.body = body;
    this.bomBytes = bomLength(body.bytes);
    this.nextStart = this.bomBytes;
  }

  /** Moves to the next line and reads it; false when there is none. */
  advance(): boolean {
    if (this.finished) return false;
    const text = this.body.text;
    const n = text.length;
    const start = this.nextStart;
    let eol = n;
    if (start < n) {
      if (this.nextLf < start) this.nextLf = nextIndex(text, '\n', start);
      if (this.nextCr < start) this.nextCr = nextIndex(text, '\r', start);
      eol = this.nextLf < this.nextCr ? this.nextLf : this.nextCr;
    }
    // R1: the text after the last line break (maybe empty) is one more line, the last.
    if (eol === n) this.finished = true;
    // T44, R1: CRLF is one break; a lone CR or LF is one break each (C24).
    else this.nextStart = eol + (text.charCodeAt(eol) === CR && text.charCodeAt(eol + 1) === LF ? 2 : 1);
    this.line++;
    this.start = start;
    this.end = eol;
    this.read();
    return true;
  }

  /** Splits the current line into key and value as Google does. */
  private read(): void {
    const text = this.body.text;
    const start = this.start;
    this.spelling = null;
    this.missingColon = false;
    const keptEnd = Math.min(this.end, start + MAX_LINE_BYTES);
    // C20: Google handles the line as a C string, so a NUL ends its content.
    if (this.nextNul < start) this.nextNul = nextIndex(text, '\0', start);
    const contentEnd = this.nextNul < keptEnd ? this.nextNul : keptEnd;
    this.nulAt = this.nextNul < keptEnd ? this.nextNul : -1;
    // T33: `#` starts a comment anywhere; then trim ASCII whitespace (C21).
    if (this.nextHash < start) this.nextHash = nextIndex(text, '#', start);
    this.commentAt = this.nextHash < contentEnd ? this.nextHash : -1;
    let ts = start;
    let te = this.commentAt >= 0 ? this.commentAt : contentEnd;
    while (ts < te && isAsciiWhitespace(text.charCodeAt(ts))) ts++;
    while (te > ts && isAsciiWhitespace(text.charCodeAt(te - 1))) te--;
    if (ts === te) {
      this.type = this.commentAt >= 0 ? 'comment' : 'empty';
      return;
    }
    this.type = 'not-a-directive';

    // The key spelling is looked for first, as a prefix of the whole content: no spelling holds
    // a `:`, so the colon, if any, comes after it, and the search for it can start there; and
    // no spelling ends in whitespace, so the key (cut at the colon, trimmed) still starts with it.
    let spelling = matchSpelling(text, ts, te);
    // `<key>:<value>`; T5/C22: without a colon, whitespace between exactly two tokens will do.
    let sep = this.firstColon(text, spelling === null ? ts : ts + spelling.spelling.length, te);
    let missingColon = false;
    if (sep < 0) {
      sep = twoTokenSeparator(text, ts, te);
      if (sep < 0) return; // one token, or three or more: R3, C22
      missingColon = true;
    }
    let ke = sep;
    while (ke > ts && isAsciiWhitespace(text.charCodeAt(ke - 1))) ke--;
    // `: value` has an empty key, which Google does not read as a directive.
    if (ke === ts) return;
    let vs = sep + 1;
    while (vs < te && isAsciiWhitespace(text.charCodeAt(vs))) vs++;
    // Without a colon the key ends at the first space or tab, maybe inside a spelling (`user agent`).
    if (missingColon && spelling !== null) spelling = matchSpelling(text, ts, ke);

    this.type = 'directive';
    this.missingColon = missingColon;
    this.keyStart = ts;
    this.keyEnd = ke;
    this.valueStart = vs;
    this.valueEnd = te;
    this.spelling = spelling;
  }

  /**
   * The first `:` of `text[ts, te)`, or -1. Keys are short, so the colon of a directive is
   * found by looking at a few characters; past them, the remembered `indexOf` takes over, so
   * that long lines without a colon (HTML) are not walked character by character.
   */
  private firstColon(text: string, ts: number, te: number): number {
    const near = Math.min(te, ts + COLON_SCAN_CHARS);
    for (let i = ts; i < near; i++) {
      if (text.charCodeAt(i) === COLON) return i;
    }
    if (near === te) return -1;
    if (this.nextColon < near) this.nextColon = nextIndex(text, ':', near);
    return this.nextColon < te ? this.nextColon : -1;
  }
}

/** Characters searched one by one for a line's `:` before `indexOf` takes over (see firstColon). */
const COLON_SCAN_CHARS = 24;

/**
 * T5, C22: in a line without `:`, the first run of spaces and tabs separates key and value
 * when the line has exactly two tokens. Returns where that run starts, or -1.
 */
function twoTokenSeparator(text: string, start: number, end: number): number {
  let sep = start;
  while (sep < end && !isSpaceOrTab(text.charCodeAt(sep))) sep++;
  if (sep === end) return -1; // one token: R3
  let v = sep;
  while (v < end && isSpaceOrTab(text.charCodeAt(v))) v++;
  for (let i = v; i < end; i++) {
    if (isSpaceOrTab(text.charCodeAt(i))) return -1; // three or more tokens: R3, C22
  }
  return sep;
}

function isSpaceOrTab(c: number): boolean {
  return c === SPACE || c === TAB;
}

/** Scans a body and sends one event per line to `handler`; returns the file-level summary. */
export function scanRobotsTxt(body: string | Uint8Array, handler: ScanHandler): ScanSummary {
  const cursor = new LineCursor(toBodyText(body));
  const summary: ScanSummary = { lineCount: 0, byteLength: cursor.body.bytes.length, bomBytes: cursor.bomBytes, invalidUtf8: false, nul: false };
  while (cursor.advance()) {
    const ev = scannedLine(cursor);
    if (ev.invalidUtf8) summary.invalidUtf8 = true;
    if (ev.hasNul) summary.nul = true;
    handler.onLine(ev);
  }
  summary.lineCount = cursor.line;
  handler.onEnd?.(summary);
  return summary;
}

/** Scans a body and returns all its lines (the linter and tests use this). */
export function scanLines(body: string | Uint8Array): { lines: ScannedLine[]; summary: ScanSummary } {
  const lines: ScannedLine[] = [];
  const summary = scanRobotsTxt(body, { onLine: (l) => lines.push(l) });
  return { lines, summary };
}

/** The event of the cursor's current line, with the per-line report the linter needs. */
function scannedLine(cursor: LineCursor): ScannedLine {
  const { body, start, end } = cursor;
  // High bytes only matter for the encoding checks (R-27, T46); an ASCII body has none.
  const highBytes = !body.ascii && !isAsciiRange(body.text, start, end);
  const directive = cursor.type === 'directive';
  const ev: ScannedLine = {
    line: cursor.line,
    type: cursor.type,
    key: null,
    rawKey: directive ? rangeText(body, cursor.keyStart, cursor.keyEnd) : '',
    typo: null,
    keyPrefix: false,
    missingColon: cursor.missingColon,
    lineTooLong: end - start > MAX_LINE_BYTES,
    hasComment: cursor.commentAt >= 0,
    hasNul: cursor.nulAt >= 0,
    invalidUtf8: highBytes && !isValidUtf8(body.bytes, start, end),
    innerBom: highBytes && body.text.slice(start, end).includes(LATIN1_BOM),
    value: directive ? rangeText(body, cursor.valueStart, cursor.valueEnd) : '',
    bytes: body.bytes,
    valueStart: directive ? cursor.valueStart : start,
    valueEnd: directive ? cursor.valueEnd : start,
    offset: start,
    byteLength: end - start,
  };
  if (directive) {
    const spelling = cursor.spelling;
    if (spelling === null) {
      ev.key = isKnownUnsupportedKey(body.text, cursor.keyStart, cursor.keyEnd) ? 'known-unsupported' : 'unknown';
    } else {
      ev.key = spelling.key;
      ev.typo = spelling.typo ? spelling.spelling : null;
      ev.keyPrefix = cursor.keyEnd - cursor.keyStart > spelling.spelling.length;
    }
  }
  return ev;
}

/** The UTF-8 BOM's bytes EF BB BF as Latin-1 characters. */
const LATIN1_BOM = String.fromCharCode(...BOM);

/**
 * The spelling a key starts with (C1, C2), case-insensitively, or null. Google tries
 * user-agent, allow, disallow and sitemap in turn, each by its name and then its typos; the
 * four names start with different letters, so the first letter picks the only candidates.
 * No spelling of a key is a prefix of another of the same key, so at most one matches.
 */
export function matchSpelling(text: string, start: number, end: number): KeySpelling | null {
  const spellings = spellingsByInitial[lowerAscii(text.charCodeAt(start))];
  if (spellings === undefined) return null;
  for (let i = 0; i < spellings.length; i++) {
    const s = spellings[i] as KeySpelling;
    if (startsWithIgnoreCase(text, start, end, s.spelling)) return s;
  }
  return null;
}

/** KEY_SPELLINGS by the character code of their shared initial; a plain array is the cheapest lookup. */
const spellingsByInitial: (readonly KeySpelling[] | undefined)[] = [];
for (const list of KEY_SPELLINGS) spellingsByInitial[(list[0] as KeySpelling).spelling.charCodeAt(0)] = list;

/** R6: whether `text[start, end)` is, ASCII case-insensitively, one of KNOWN_UNSUPPORTED_KEYS. */
export function isKnownUnsupportedKey(text: string, start: number, end: number): boolean {
  if (end - start > LONGEST_KNOWN_UNSUPPORTED) return false;
  return knownUnsupported.has(asciiLower(text.slice(start, end)));
}

const LONGEST_KNOWN_UNSUPPORTED = Math.max(...KNOWN_UNSUPPORTED_KEYS.map((k) => k.length));

function lowerAscii(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** absl::StartsWithIgnoreCase, against a lower-case ASCII name. */
function startsWithIgnoreCase(text: string, start: number, end: number, name: string): boolean {
  if (end - start < name.length) return false;
  for (let i = 0; i < name.length; i++) {
    if (lowerAscii(text.charCodeAt(start + i)) !== name.charCodeAt(i)) return false;
  }
  return true;
}
