/**
 * The robots.txt scanner: one linear pass over the bytes of a body that reports, line by line,
 * what Google's parser reads there (robots.cc `RobotsTxtParser` plus the per-line metadata of
 * its parse report, R1-R10). It decides nothing about crawling. `LineCursor` reads the lines
 * (positions only, no allocation per line); the parser (parse.ts) reads directives straight
 * from it, and the linter (lint.ts) gets them as events through `ScanHandler`, the seam between
 * "what the file says" and "what a crawler decides". Pure: no I/O.
 */
import { Buffer, isAscii } from 'node:buffer';
import { asciiLower, decodeUtf8, isAsciiWhitespace, isValidUtf8, toBytes } from './encoding.js';

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
const HASH = 0x23;
const SPACE = 0x20;
const TAB = 0x09;
const BOM = [0xef, 0xbb, 0xbf] as const;

/** T45: the length of the longest prefix of the body that is a prefix of the BOM (EF, EF BB, EF BB BF). */
function bomLength(bytes: Uint8Array): number {
  let n = 0;
  while (n < BOM.length && n < bytes.length && bytes[n] === BOM[n]) n++;
  return n;
}

/**
 * Where a window that starts at `from` and should end near `target` ends: after the last line
 * break before `target` (a CRLF kept whole), or after the line that crosses `target` when no
 * break comes earlier.
 */
function windowEnd(bytes: Uint8Array, from: number, target: number): number {
  // Searched backwards from `target` within [from, target) only: a body without CRs would
  // otherwise be read back to its start once per window.
  const lf = lastIndexIn(bytes, LF, from, target);
  const cr = lastIndexIn(bytes, CR, lf < 0 ? from : lf + 1, target);
  let br = Math.max(lf, cr);
  if (br < 0) {
    const nextLf = bytes.indexOf(LF, target);
    const nextCr = bytes.indexOf(CR, target);
    if (nextLf < 0 && nextCr < 0) return bytes.length;
    br = nextLf < 0 ? nextCr : nextCr < 0 ? nextLf : Math.min(nextLf, nextCr);
  }
  return bytes[br] === CR && bytes[br + 1] === LF ? br + 2 : br + 1;
}

/** The last position of `byte` in `bytes[from, to)`, or -1. */
function lastIndexIn(bytes: Uint8Array, byte: number, from: number, to: number): number {
  const i = bytes.subarray(from, to).lastIndexOf(byte);
  return i < 0 ? -1 : from + i;
}

/** Ranges up to this long are checked for high bytes one byte at a time (see LineCursor.hasHighBytes). */
const SHORT_RANGE = 64;

/** A byte above 0x7f, in Latin-1 text (see LineCursor.hasHighBytes). */
const HIGH_BYTE = /[\u0080-\u00FF]/g;

/**
 * Node's Buffer decodes a byte range to Latin-1 with `latin1Slice`, the method `toString('latin1',
 * start, end)` ends in after checking its arguments and looking the encoding up; calling it
 * directly saves that work on every window (noticeable on small files). @types/node omits it.
 */
interface Latin1Buffer extends Buffer {
  latin1Slice(start: number, end: number): string;
}

/** `text.indexOf(char, from)`, with "none" as the end of the text so that it compares as "after everything". */
function nextIndex(text: string, char: string, from: number): number {
  const i = text.indexOf(char, from);
  return i === -1 ? text.length : i;
}

/**
 * Bytes of the body turned into one Latin-1 string at a time (whole lines; a longer line makes
 * a longer window). V8 puts strings above ~128 KiB in fresh large-object pages, whose page
 * faults cost more than the parse itself; windows this size stay in the young generation.
 */
export const TEXT_WINDOW_BYTES = 32 * 1024;

/**
 * Walks the lines of a body and reads each as Google's parser does, recording only positions:
 * no strings and no objects per line. The parser reads its directives straight from it (its
 * fast path, no handler calls); the scanner builds its per-line events from it. One cursor
 * serves one body, forward only.
 *
 * It reads the body a window at a time (whole lines, see TEXT_WINDOW_BYTES): positions are
 * offsets into the window; `base + offset` is the byte offset in the body. A line that is read
 * (not skipped, see `skipUnspelled`) is read from the window as Latin-1 text (one character per
 * byte), decoded when first needed: line breaks, `#`, NUL, `:`, `%`, spaces and tabs are found
 * with the native `String#indexOf`, each remembered until the cursor passes it, so every
 * character is searched once per character class however long the lines are. Until a window
 * needs its text, its line breaks are found in the body's bytes (`Buffer#indexOf`): most
 * windows of an HTML page are never decoded.
 */
export class LineCursor {
  readonly bytes: Uint8Array;
  /** Bytes of a (possibly truncated) UTF-8 BOM skipped at byte 0: 0..3 (T45). */
  readonly bomBytes: number;
  /** The window is bytes `[base, base + size)` of the body. */
  base = 0;
  private size = 0;
  /** 1-based number of the current line; after the last line, the number of lines (R1). */
  line = 0;
  /** The current line is `[start, end)` of the window, without its line break. */
  start = 0;
  end = 0;
  /** What the current line is ('skipped' only inside `advance`, in `skipUnspelled` mode). */
  type: LineType | 'skipped' = 'empty';
  /**
   * When set, a line that does not start (after whitespace) with one of the key spellings (C1,
   * C2: user-agent, allow, disallow, sitemap and their typos) is not read further and `advance`
   * passes over it (it is counted in `line`): it may be a comment, an empty line, an other
   * record or not a directive. Such lines cannot change groups, rules or sitemaps: the parser
   * reads only the lines that may, and an HTML page's lines are mostly passed over after one
   * look each.
   */
  skipUnspelled = false;
  /** Some skipped line had text (not only whitespace or a comment): it may be an other record. */
  skippedText = false;
  /**
   * Set in `skipUnspelled` mode when a line passed over starts with `content-signal` or
   * `content-usage` (any case): the file may hold usage-preference lines (src/robots/usage).
   */
  skippedUsageKey = false;
  /** The first NUL of the kept part of the line (C20), or -1. */
  nulAt = -1;
  /** The `#` that starts a comment (T33), or -1. */
  commentAt = -1;
  /** The spelling the key was recognised by (C1, C2), or null for any other key; directives only. */
  spelling: KeySpelling | null = null;
  /** Directives only: the key and the value, trimmed (C21), as ranges of the window. */
  keyStart = 0;
  keyEnd = 0;
  valueStart = 0;
  valueEnd = 0;
  /** No `:`; whitespace between exactly two tokens took its place (T5, R2). */
  missingColon = false;

  private readonly buffer: Latin1Buffer;
  /** The window as Latin-1 text, once decoded (see `text`). */
  private windowText: string | null = null;
  /** Body offsets of the next LF and CR found by nextBreak in the bytes (the body's length: none). */
  private bodyNextLf = -1;
  private bodyNextCr = -1;
  /** The body read four bytes at a time, to skip indentation; made on first use (a DataView costs as much as a short parse). */
  private words: DataView | null = null;
  /** The window holds no byte above 0x7f (known once its text is decoded). */
  private windowAscii = true;
  /** The window ends the body. */
  private last = false;
  private nextStart = 0;
  private finished = false;
  // The next position of each searched character at or after the current line (size: none).
  private nextLf = -1;
  private nextCr = -1;
  private nextHash = -1;
  private nextNul = -1;
  private nextColon = -1;
  private nextPercent = -1;
  private nextSpace = -1;
  private nextTab = -1;
  private nextHigh = -1;
  private highFrom = 0;

  /** `windowBytes`: how much of the body a window holds (tests use tiny windows to cross many boundaries). */
  constructor(
    body: string | Uint8Array,
    private readonly windowBytes: number = TEXT_WINDOW_BYTES,
  ) {
    const bytes = toBytes(body);
    this.bytes = bytes;
    // A Buffer view over the same memory (no copy), for its native Latin-1 decoder and search.
    this.buffer = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as Latin1Buffer;
    this.bomBytes = bomLength(bytes);
    this.load(this.bomBytes);
  }

  /** The window as Latin-1 text: position i of the window is character i. */
  get text(): string {
    return this.windowText ?? this.decodeWindow();
  }

  /** The UTF-8 reading of `text[start, end)`: the text itself when it is ASCII. */
  string(start: number, end: number): string {
    return this.hasHighBytes(start, end) ? decodeUtf8(this.bytes, this.base + start, this.base + end) : this.text.slice(start, end);
  }

  /**
   * Whether `text[start, end)` holds a byte above 0x7f. Never in an ASCII window; otherwise the
   * next such byte is found with a native regular-expression search (one character class: no
   * backtracking) and remembered, like the characters of `read`, while queries move forward.
   */
  hasHighBytes(start: number, end: number): boolean {
    const text = this.text;
    if (this.windowAscii) return false;
    if (end - start <= SHORT_RANGE) {
      // A value or key is short: reading its bytes costs less than searching on to the next
      // high byte, which may be many lines ahead.
      const bytes = this.bytes;
      for (let i = this.base + start, to = this.base + end; i < to; i++) if ((bytes[i] as number) >= 0x80) return true;
      return false;
    }
    if (this.nextHigh < start || start < this.highFrom) {
      // `test` with the global flag leaves lastIndex after the (one-character) match, and builds no match array.
      HIGH_BYTE.lastIndex = start;
      this.nextHigh = HIGH_BYTE.test(text) ? HIGH_BYTE.lastIndex - 1 : text.length;
      this.highFrom = start;
    }
    return this.nextHigh < end;
  }

  /** Moves to the next line and reads it; false when there is none. */
  advance(): boolean {
    // In skip mode the lines skipped are only counted: the loop goes on to the next line that is read.
    do {
      if (this.finished) return false;
      if (this.nextStart === this.size && !this.last) this.load(this.base + this.nextStart);
      const n = this.size;
      const start = this.nextStart;
      let eol = n;
      if (start < n) {
        if (this.nextLf < start) this.nextLf = this.nextBreak('\n', LF, start);
        if (this.nextCr < start) this.nextCr = this.nextBreak('\r', CR, start);
        eol = this.nextLf < this.nextCr ? this.nextLf : this.nextCr;
      }
      // R1: the text after the last line break (maybe empty) is one more line, the last. Only
      // the last window can end without a line break.
      if (eol === n) this.finished = true;
      // T44, R1: CRLF is one break; a lone CR or LF is one break each (C24).
      else {
        const at = this.base + eol;
        this.nextStart = eol + (this.bytes[at] === CR && this.bytes[at + 1] === LF ? 2 : 1);
      }
      this.line++;
      this.start = start;
      this.end = eol;
      this.read();
    } while (this.type === 'skipped');
    return true;
  }

  /** The next `char` (a line break, whose byte is `byte`) at or after `from` in the window, or `size`. */
  private nextBreak(char: string, byte: number, from: number): number {
    const text = this.windowText;
    if (text !== null) return nextIndex(text, char, from);
    // Searched in the body's bytes, from here to wherever the next one is (maybe a later window,
    // or nowhere): remembered across windows, so that each byte is searched once.
    const at = this.base + from;
    let next = byte === LF ? this.bodyNextLf : this.bodyNextCr;
    if (next < at) {
      next = this.buffer.indexOf(byte, at);
      if (next === -1) next = this.bytes.length;
      if (byte === LF) this.bodyNextLf = next;
      else this.bodyNextCr = next;
    }
    return next < this.base + this.size ? next - this.base : this.size;
  }

  /** Makes `[from, end of the next window)` the window; its text is decoded when first needed. */
  private load(from: number): void {
    const bytes = this.bytes;
    const to = bytes.length - from > this.windowBytes ? windowEnd(bytes, from, from + this.windowBytes) : bytes.length;
    this.base = from;
    this.size = to - from;
    this.last = to === bytes.length;
    this.windowText = null;
    this.nextStart = 0;
    this.nextLf = this.nextCr = this.nextHash = this.nextNul = this.nextColon = this.nextPercent = this.nextSpace = this.nextTab = this.nextHigh = -1;
    this.highFrom = 0;
  }

  private decodeWindow(): string {
    const bytes = this.bytes;
    const from = this.base;
    const to = from + this.size;
    const text = this.buffer.latin1Slice(from, to);
    this.windowText = text;
    // ASCII windows (most, even in bodies that are not all ASCII) need no search for high bytes.
    this.windowAscii = isAscii(from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to));
    return text;
  }

  /** Splits the current line into key and value as Google does. */
  private read(): void {
    // Single characters are read from the body's bytes (`base + i` for window position i): the
    // same values, and a typed array reads faster than String#charCodeAt.
    const { bytes, base, start } = this;
    this.spelling = null;
    this.missingColon = false;
    // The first byte that is not ASCII whitespace (it may lie past the kept part of the line, C28).
    const lineEnd = base + this.end;
    let p = base + start;
    let spelled: KeySpelling | null = null;
    if (this.skipUnspelled) {
      // Most lines passed over are told by their first byte after the indentation (an HTML
      // tag, a comment): only a key's initial needs the spellings tried.
      let first = p < lineEnd ? (LINE_START[bytes[p] as number] as number) : NO_TEXT_LINE;
      if (first === INDENT) {
        p = this.skipWhitespace(p, lineEnd);
        // C28: a line whose indentation fills its kept part is empty.
        first = p < lineEnd && p - base - start < MAX_LINE_BYTES ? (LINE_START[bytes[p] as number] as number) : NO_TEXT_LINE;
      }
      spelled = first === KEY_INITIAL ? matchSpelling(bytes, p, lineEnd - p) : null;
      if (first === USAGE_INITIAL && !this.skippedUsageKey) this.skippedUsageKey = startsWithUsageKey(bytes, p, lineEnd);
      if (spelled === null) {
        this.type = 'skipped';
        // Text (not a comment, T33, nor NUL-ended, C20) may be an other record.
        if (first !== NO_TEXT_LINE) this.skippedText = true;
        return;
      }
    } else if (p < lineEnd && isAsciiWhitespace(bytes[p] as number)) p = this.skipWhitespace(p, lineEnd);
    const text = this.text;
    const keptEnd = Math.min(this.end, start + MAX_LINE_BYTES);
    // C20: Google handles the line as a C string, so a NUL ends its content.
    if (this.nextNul < start) this.nextNul = nextIndex(text, '\0', start);
    const contentEnd = this.nextNul < keptEnd ? this.nextNul : keptEnd;
    this.nulAt = this.nextNul < keptEnd ? this.nextNul : -1;
    // T33: `#` starts a comment anywhere; then trim ASCII whitespace (C21). A `#` or NUL is not
    // whitespace, so the content starts at p unless p is past its end.
    if (this.nextHash < start) this.nextHash = nextIndex(text, '#', start);
    this.commentAt = this.nextHash < contentEnd ? this.nextHash : -1;
    let te = this.commentAt >= 0 ? this.commentAt : contentEnd;
    const ts = p - base;
    if (ts >= te) {
      this.type = this.commentAt >= 0 ? 'comment' : 'empty';
      return;
    }
    while (te > ts && isAsciiWhitespace(bytes[base + te - 1] as number)) te--;
    this.type = 'not-a-directive';

    // The key spelling is looked for first, as a prefix of the whole content: no spelling holds
    // a `:`, so the colon, if any, comes after it, and the search for it can start there; and
    // no spelling ends in whitespace, so the key (cut at the colon, trimmed) still starts with it.
    // A spelling found on the whole line (skip mode) stands if the content still holds it.
    let spelling = spelled !== null && te - ts >= spelled.spelling.length ? spelled : matchSpelling(bytes, base + ts, te - ts);
    // `<key>:<value>`; T5/C22: without a colon, whitespace between exactly two tokens will do.
    let sep = this.firstColon(text, spelling === null ? ts : ts + spelling.spelling.length, te);
    let missingColon = false;
    if (sep < 0) {
      sep = this.twoTokenSeparator(ts, te);
      if (sep < 0) return; // one token, or three or more: R3, C22
      missingColon = true;
    }
    let ke = sep;
    while (ke > ts && isAsciiWhitespace(bytes[base + ke - 1] as number)) ke--;
    // `: value` has an empty key, which Google does not read as a directive.
    if (ke === ts) return;
    let vs = sep + 1;
    while (vs < te && isAsciiWhitespace(bytes[base + vs] as number)) vs++;
    // Without a colon the key ends at the first space or tab, maybe inside a spelling (`user agent`).
    if (missingColon && spelling !== null) spelling = matchSpelling(bytes, base + ts, ke - ts);

    this.type = 'directive';
    this.missingColon = missingColon;
    this.keyStart = ts;
    this.keyEnd = ke;
    this.valueStart = vs;
    this.valueEnd = te;
    this.spelling = spelling;
  }

  /** The first byte at or after `p` (body offset, before `end`) that is not ASCII whitespace, or `end`. */
  private skipWhitespace(p: number, end: number): number {
    const bytes = this.bytes;
    // Indentation (HTML pages are full of it) is skipped eight, then four spaces or tabs at a time.
    const words = (this.words ??= new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    while (p + 8 <= end) {
      const d = words.getFloat64(p);
      if (d !== EIGHT_SPACES && d !== EIGHT_TABS) break;
      p += 8;
    }
    if (p + 4 <= end) {
      const w = words.getInt32(p);
      if (w === FOUR_SPACES || w === FOUR_TABS) p += 4;
    }
    while (p < end && isAsciiWhitespace(bytes[p] as number)) p++;
    return p;
  }

  /**
   * T5, C22: in a line without `:`, the first run of spaces and tabs separates key and value
   * when `text[ts, te)` has exactly two tokens. Returns where that run starts, or -1.
   */
  private twoTokenSeparator(ts: number, te: number): number {
    const sep = this.nextBlank(ts);
    if (sep >= te) return -1; // one token: R3
    let v = sep + 1;
    while (v < te && isSpaceOrTab(this.bytes[this.base + v] as number)) v++;
    return this.nextBlank(v) < te ? -1 : sep; // three or more tokens: R3, C22
  }

  /** The first space or tab at or after `from` (text.length: none), remembered like `#` and `:`. */
  private nextBlank(from: number): number {
    if (this.nextSpace < from) this.nextSpace = nextIndex(this.text, ' ', from);
    if (this.nextTab < from) this.nextTab = nextIndex(this.text, '\t', from);
    return this.nextSpace < this.nextTab ? this.nextSpace : this.nextTab;
  }

  /** Whether the current directive's value holds a `%` (so escapePattern may change it, T49). */
  valueHasPercent(): boolean {
    if (this.nextPercent < this.valueStart) this.nextPercent = nextIndex(this.text, '%', this.valueStart);
    return this.nextPercent < this.valueEnd;
  }

  /**
   * The first `:` of `text[from, te)`, or -1. The colon of a directive usually follows its key
   * name at once; otherwise the remembered `indexOf` finds it, so that lines without one
   * (HTML pages) are not walked character by character.
   */
  private firstColon(text: string, from: number, te: number): number {
    if (from < te && this.bytes[this.base + from] === COLON) return from;
    if (this.nextColon < from) this.nextColon = nextIndex(text, ':', from);
    return this.nextColon < te ? this.nextColon : -1;
  }
}


/**
 * How skip mode (LineCursor.skipUnspelled) treats a line by its first byte after ASCII
 * whitespace (INDENT): the initial of a key spelling (C1, C2) has the line read; any other byte
 * has it passed over, as text (maybe an other record, R-28) or not (`#` starts a comment, T33;
 * NUL ends the content, C20).
 */
const KEY_INITIAL = 0;
const INDENT = 1;
const TEXT_LINE = 2;
const NO_TEXT_LINE = 3;
/** The initial of `content-signal` and `content-usage`, which no key spelling shares. */
const USAGE_INITIAL = 4;
const LINE_START = new Uint8Array(256).fill(TEXT_LINE);
for (let c = 0; c < 0x80; c++) if (isAsciiWhitespace(c)) LINE_START[c] = INDENT;
for (const list of KEY_SPELLINGS) for (const { spelling } of list) for (const initial of [spelling[0] as string, (spelling[0] as string).toUpperCase()]) LINE_START[initial.charCodeAt(0)] = KEY_INITIAL;
LINE_START[HASH] = NO_TEXT_LINE;
LINE_START[0x63] = LINE_START[0x43] = USAGE_INITIAL;
LINE_START[0] = NO_TEXT_LINE;

const FOUR_SPACES = 0x20202020;
const FOUR_TABS = 0x09090909;
/**
 * Eight spaces or tabs read as one float64: both bit patterns are normal numbers (neither NaN
 * nor zero), and two normal doubles are equal only when all their bits are, so comparing the
 * float compares the eight bytes.
 */
const EIGHT_SPACES = new DataView(new Uint8Array(8).fill(SPACE).buffer).getFloat64(0);
const EIGHT_TABS = new DataView(new Uint8Array(8).fill(TAB).buffer).getFloat64(0);

const USAGE_KEY_PREFIXES = ['content-signal', 'content-usage'];

/** Whether the bytes at `p` start with a usage key, ASCII case-insensitively. */
function startsWithUsageKey(bytes: Uint8Array, p: number, end: number): boolean {
  return USAGE_KEY_PREFIXES.some((key) => {
    if (end - p < key.length) return false;
    for (let i = 0; i < key.length; i++) if (((bytes[p + i] as number) | 0x20) !== key.charCodeAt(i)) return false;
    return true;
  });
}

function isSpaceOrTab(c: number): boolean {
  return c === SPACE || c === TAB;
}

/** Scans a body and sends one event per line to `handler`; returns the file-level summary. */
export function scanRobotsTxt(body: string | Uint8Array, handler: ScanHandler): ScanSummary {
  const cursor = new LineCursor(body);
  const summary: ScanSummary = { lineCount: 0, byteLength: cursor.bytes.length, bomBytes: cursor.bomBytes, invalidUtf8: false, nul: false };
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
  const { text, base, start, end } = cursor;
  // High bytes only matter for the encoding checks (R-27, T46); an ASCII body has none.
  const highBytes = cursor.hasHighBytes(start, end);
  const directive = cursor.type === 'directive';
  const ev: ScannedLine = {
    line: cursor.line,
    // The scanner reads every line (its cursor never skips), so the type is never 'skipped'.
    type: cursor.type as LineType,
    key: null,
    rawKey: directive ? cursor.string(cursor.keyStart, cursor.keyEnd) : '',
    typo: null,
    keyPrefix: false,
    missingColon: cursor.missingColon,
    lineTooLong: end - start > MAX_LINE_BYTES,
    hasComment: cursor.commentAt >= 0,
    hasNul: cursor.nulAt >= 0,
    invalidUtf8: highBytes && !isValidUtf8(cursor.bytes, base + start, base + end),
    innerBom: highBytes && text.slice(start, end).includes(LATIN1_BOM),
    value: directive ? cursor.string(cursor.valueStart, cursor.valueEnd) : '',
    bytes: cursor.bytes,
    valueStart: base + (directive ? cursor.valueStart : start),
    valueEnd: base + (directive ? cursor.valueEnd : start),
    offset: base + start,
    byteLength: end - start,
  };
  if (directive) {
    const spelling = cursor.spelling;
    if (spelling === null) {
      ev.key = isKnownUnsupportedKey(text, cursor.keyStart, cursor.keyEnd) ? 'known-unsupported' : 'unknown';
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
 * The spelling that `bytes[at, at + length)` starts with (C1, C2), case-insensitively, or null.
 * Google tries user-agent, allow, disallow and sitemap in turn, each by its name and then its
 * typos; the four names start with different letters, so the first letter picks the only
 * candidates. No spelling of a key is a prefix of another of the same key, so at most one
 * matches. The canonical names, by far the most common keys, are compared four bytes at a time.
 */
export function matchSpelling(bytes: Uint8Array, at: number, length: number): KeySpelling | null {
  if (length <= 0) return null;
  const initial = lowerAscii(bytes[at] as number);
  const k = initial < 0x80 ? (KEY_BY_INITIAL[initial] as number) : -1;
  if (k < 0) return null;
  const spellings = KEY_SPELLINGS[k] as readonly KeySpelling[];
  if (startsWithFolded(bytes, at, length, CANONICAL_FOLDED[k] as FoldedName)) return spellings[0] as KeySpelling;
  for (let i = 1; i < spellings.length; i++) {
    const s = spellings[i] as KeySpelling;
    if (startsWithIgnoreCase(bytes, at, length, s.spelling)) return s;
  }
  return null;
}

/** The index into KEY_SPELLINGS of the key whose names start with a lower-case ASCII letter, or -1. */
const KEY_BY_INITIAL = new Int8Array(0x80).fill(-1);
KEY_SPELLINGS.forEach((list, k) => (KEY_BY_INITIAL[(list[0] as KeySpelling).spelling.charCodeAt(0)] = k));

/**
 * A lower-case name as big-endian 32-bit words of its bytes, at offsets 0, 4, 8, ... and a
 * last one ending at its end (overlapping the one before), for comparing four bytes at once.
 */
interface FoldedName {
  length: number;
  offsets: number[];
  words: number[];
}

/**
 * Case-folding by setting bit 0x20 is exact for these names: every character of them has the
 * bit set, and for a letter the only other byte that folds onto it is its capital; for `-`
 * it is CR (0x0d), which never stands inside a line.
 */
const FOLD = 0x20202020;

function foldName(name: string): FoldedName {
  if (name.length < 5 || name.length > 12 || [...name].some((c) => (c.charCodeAt(0) & 0x20) === 0)) throw new Error(`cannot fold key name ${name}`);
  const offsets: number[] = [];
  for (let o = 0; o + 4 < name.length; o += 4) offsets.push(o);
  offsets.push(name.length - 4);
  const words = offsets.map((o) => ((name.charCodeAt(o) << 24) | (name.charCodeAt(o + 1) << 16) | (name.charCodeAt(o + 2) << 8) | name.charCodeAt(o + 3)) | FOLD);
  return { length: name.length, offsets, words };
}

const CANONICAL_FOLDED: readonly FoldedName[] = KEY_SPELLINGS.map((list) => foldName((list[0] as KeySpelling).spelling));

/** startsWithIgnoreCase for a folded canonical name, on the `length` bytes of the body at `at`. */
function startsWithFolded(bytes: Uint8Array, at: number, length: number, name: FoldedName): boolean {
  if (length < name.length) return false;
  // Unrolled: every name is two or three words long.
  const { offsets, words } = name;
  if ((wordAt(bytes, at) | FOLD) !== words[0]) return false;
  if ((wordAt(bytes, at + (offsets[1] as number)) | FOLD) !== words[1]) return false;
  return offsets.length === 2 || (wordAt(bytes, at + (offsets[2] as number)) | FOLD) === words[2];
}

/** The big-endian 32-bit word of bytes[p, p + 4). */
function wordAt(bytes: Uint8Array, p: number): number {
  return ((bytes[p] as number) << 24) | ((bytes[p + 1] as number) << 16) | ((bytes[p + 2] as number) << 8) | (bytes[p + 3] as number);
}

/** R6: whether `text[start, end)` is, ASCII case-insensitively, one of KNOWN_UNSUPPORTED_KEYS. */
export function isKnownUnsupportedKey(text: string, start: number, end: number): boolean {
  // Most unknown keys (HTML pages read as robots.txt) fail on length or initial, before any string is built.
  if (end - start > LONGEST_KNOWN_UNSUPPORTED || !knownUnsupportedInitials.includes(lowerAscii(text.charCodeAt(start)))) return false;
  return knownUnsupported.has(asciiLower(text.slice(start, end)));
}

/** R6: whether an ASCII lower-cased key is one of KNOWN_UNSUPPORTED_KEYS. */
export function isKnownUnsupportedName(lowerKey: string): boolean {
  return lowerKey.length <= LONGEST_KNOWN_UNSUPPORTED && knownUnsupportedInitials.includes(lowerKey.charCodeAt(0)) && knownUnsupported.has(lowerKey);
}

const LONGEST_KNOWN_UNSUPPORTED = Math.max(...KNOWN_UNSUPPORTED_KEYS.map((k) => k.length));
const knownUnsupportedInitials = [...new Set(KNOWN_UNSUPPORTED_KEYS.map((k) => k.charCodeAt(0)))];

function lowerAscii(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** absl::StartsWithIgnoreCase: whether `bytes[at, at + length)` starts with a lower-case ASCII name. */
function startsWithIgnoreCase(bytes: Uint8Array, at: number, length: number, name: string): boolean {
  if (length < name.length) return false;
  for (let i = 0; i < name.length; i++) {
    if (lowerAscii(bytes[at + i] as number) !== name.charCodeAt(i)) return false;
  }
  return true;
}
