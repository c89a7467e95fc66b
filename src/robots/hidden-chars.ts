/**
 * Characters that a site's text may hold but a reader cannot see, or that change what a reader
 * sees (house style, habit 13): C0 and C1 controls (a terminal obeys ESC, BEL, CR; a page shows
 * nothing), bidirectional controls (U+202E makes `toBTPG` read `GPTBot`: the "Trojan Source"
 * attack, CVE-2021-42574), and invisible format characters (zero-width spaces and joiners, word
 * joiner, BOM, tag characters). Pure: callers decide how to show the marker (terminal, HTML).
 *
 * The list follows what code hosts flag as hidden or bidirectional Unicode: the Unicode
 * "Default_Ignorable_Code_Point" property's invisible format characters, the Bidi_Control
 * characters (Unicode UAX #9, table 1) and the General_Category Cc controls.
 * Sources: https://www.unicode.org/reports/tr9/ (bidi controls),
 * https://www.unicode.org/Public/UCD/latest/ucd/DerivedCoreProperties.txt (Default_Ignorable_Code_Point),
 * https://trojansource.codes/ (why bidi controls in text that a machine reads are dangerous);
 * all read 2026-11-24.
 */

export type HiddenCharKind = 'control' | 'bidi' | 'invisible';

export interface HiddenChar {
  codePoint: number;
  kind: HiddenCharKind;
  /** The Unicode name (or the control's usual name), for tooltips and messages. */
  name: string;
}

/** C0 controls by their ASCII names; TAB and LF are layout, not hidden (see `hiddenCharOf`). */
const C0_NAMES = [
  'NULL', 'START OF HEADING', 'START OF TEXT', 'END OF TEXT', 'END OF TRANSMISSION', 'ENQUIRY', 'ACKNOWLEDGE', 'BELL',
  'BACKSPACE', 'CHARACTER TABULATION', 'LINE FEED', 'LINE TABULATION', 'FORM FEED', 'CARRIAGE RETURN', 'SHIFT OUT', 'SHIFT IN',
  'DATA LINK ESCAPE', 'DEVICE CONTROL ONE', 'DEVICE CONTROL TWO', 'DEVICE CONTROL THREE', 'DEVICE CONTROL FOUR', 'NEGATIVE ACKNOWLEDGE', 'SYNCHRONOUS IDLE', 'END OF TRANSMISSION BLOCK',
  'CANCEL', 'END OF MEDIUM', 'SUBSTITUTE', 'ESCAPE', 'INFORMATION SEPARATOR FOUR', 'INFORMATION SEPARATOR THREE', 'INFORMATION SEPARATOR TWO', 'INFORMATION SEPARATOR ONE',
] as const;

/** Named code points outside the C0 block. */
const NAMED: ReadonlyMap<number, [HiddenCharKind, string]> = new Map<number, [HiddenCharKind, string]>([
  [0x7f, ['control', 'DELETE']],
  [0x85, ['control', 'NEXT LINE']],
  [0x9b, ['control', 'CONTROL SEQUENCE INTRODUCER']],
  [0xad, ['invisible', 'SOFT HYPHEN']],
  [0x34f, ['invisible', 'COMBINING GRAPHEME JOINER']],
  [0x61c, ['bidi', 'ARABIC LETTER MARK']],
  [0x115f, ['invisible', 'HANGUL CHOSEONG FILLER']],
  [0x1160, ['invisible', 'HANGUL JUNGSEONG FILLER']],
  [0x17b4, ['invisible', 'KHMER VOWEL INHERENT AQ']],
  [0x17b5, ['invisible', 'KHMER VOWEL INHERENT AA']],
  [0x180e, ['invisible', 'MONGOLIAN VOWEL SEPARATOR']],
  [0x200b, ['invisible', 'ZERO WIDTH SPACE']],
  [0x200c, ['invisible', 'ZERO WIDTH NON-JOINER']],
  [0x200d, ['invisible', 'ZERO WIDTH JOINER']],
  [0x200e, ['bidi', 'LEFT-TO-RIGHT MARK']],
  [0x200f, ['bidi', 'RIGHT-TO-LEFT MARK']],
  [0x2028, ['control', 'LINE SEPARATOR']],
  [0x2029, ['control', 'PARAGRAPH SEPARATOR']],
  [0x202a, ['bidi', 'LEFT-TO-RIGHT EMBEDDING']],
  [0x202b, ['bidi', 'RIGHT-TO-LEFT EMBEDDING']],
  [0x202c, ['bidi', 'POP DIRECTIONAL FORMATTING']],
  [0x202d, ['bidi', 'LEFT-TO-RIGHT OVERRIDE']],
  [0x202e, ['bidi', 'RIGHT-TO-LEFT OVERRIDE']],
  [0x2060, ['invisible', 'WORD JOINER']],
  [0x2061, ['invisible', 'FUNCTION APPLICATION']],
  [0x2062, ['invisible', 'INVISIBLE TIMES']],
  [0x2063, ['invisible', 'INVISIBLE SEPARATOR']],
  [0x2064, ['invisible', 'INVISIBLE PLUS']],
  [0x2066, ['bidi', 'LEFT-TO-RIGHT ISOLATE']],
  [0x2067, ['bidi', 'RIGHT-TO-LEFT ISOLATE']],
  [0x2068, ['bidi', 'FIRST STRONG ISOLATE']],
  [0x2069, ['bidi', 'POP DIRECTIONAL ISOLATE']],
  [0x3164, ['invisible', 'HANGUL FILLER']],
  [0xfeff, ['invisible', 'ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK)']],
  [0xffa0, ['invisible', 'HALFWIDTH HANGUL FILLER']],
  [0xfff9, ['invisible', 'INTERLINEAR ANNOTATION ANCHOR']],
  [0xfffa, ['invisible', 'INTERLINEAR ANNOTATION SEPARATOR']],
  [0xfffb, ['invisible', 'INTERLINEAR ANNOTATION TERMINATOR']],
]);

/** Ranges of invisible characters named by their block. */
const RANGES: ReadonlyArray<[number, number, HiddenCharKind, string]> = [
  [0x80, 0x9f, 'control', 'C1 CONTROL'],
  [0x206a, 0x206f, 'invisible', 'DEPRECATED FORMAT CHARACTER'],
  [0xfe00, 0xfe0f, 'invisible', 'VARIATION SELECTOR'],
  [0x1d173, 0x1d17a, 'invisible', 'MUSICAL SYMBOL FORMAT CHARACTER'],
  [0xe0000, 0xe007f, 'invisible', 'TAG CHARACTER'],
  [0xe0100, 0xe01ef, 'invisible', 'VARIATION SELECTOR SUPPLEMENT'],
];

/**
 * Every hidden character, for a fast "is there any" test: the C0 controls but TAB and LF, DEL
 * and C1, and the code points of NAMED and RANGES (a unit test keeps the two in step).
 */
// eslint-disable-next-line no-control-regex, no-misleading-character-class -- finding control, joining and combining characters one by one is this pattern's job
const HIDDEN_PATTERN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/u;
// eslint-disable-next-line no-misleading-character-class -- the same pattern, global
const HIDDEN_PATTERN_GLOBAL = new RegExp(HIDDEN_PATTERN.source, 'gu');

/**
 * The hidden character at `codePoint`, or null for one a reader sees as it is. TAB and LF are
 * layout (multi-line text keeps them); a caller showing one line marks them itself if it must.
 */
export function hiddenCharOf(codePoint: number): HiddenChar | null {
  if (codePoint < 0x20) {
    if (codePoint === 0x09 || codePoint === 0x0a) return null;
    return { codePoint, kind: 'control', name: C0_NAMES[codePoint]! };
  }
  const named = NAMED.get(codePoint);
  if (named) return { codePoint, kind: named[0], name: named[1] };
  for (const [from, to, kind, name] of RANGES) {
    if (codePoint >= from && codePoint <= to) return { codePoint, kind, name };
  }
  return null;
}

/** Whether the text holds any hidden character (one regular expression test: cheap on clean text). */
export function hasHiddenChars(text: string): boolean {
  return HIDDEN_PATTERN.test(text);
}

/** `U+202E`, `U+001B`, `U+E0041`: how a hidden character is named where it is shown. */
export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

export type TextSegment = { kind: 'text'; text: string } | { kind: 'hidden'; char: HiddenChar };

/**
 * The text cut into runs of visible text and single hidden characters, in order. Text with no
 * hidden character is one segment (or none when empty).
 */
export function segmentHiddenChars(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let from = 0;
  HIDDEN_PATTERN_GLOBAL.lastIndex = 0;
  for (let m = HIDDEN_PATTERN_GLOBAL.exec(text); m !== null; m = HIDDEN_PATTERN_GLOBAL.exec(text)) {
    if (m.index > from) segments.push({ kind: 'text', text: text.slice(from, m.index) });
    segments.push({ kind: 'hidden', char: hiddenCharOf(m[0].codePointAt(0)!)! });
    from = m.index + m[0].length;
  }
  if (from < text.length) segments.push({ kind: 'text', text: text.slice(from) });
  return segments;
}

/** The distinct hidden characters of a text, in order of first appearance. */
export function hiddenCharsIn(text: string): HiddenChar[] {
  if (!hasHiddenChars(text)) return [];
  const seen = new Map<number, HiddenChar>();
  for (const s of segmentHiddenChars(text)) if (s.kind === 'hidden' && !seen.has(s.char.codePoint)) seen.set(s.char.codePoint, s.char);
  return [...seen.values()];
}

/**
 * The text with every hidden character replaced by `mark(char)`; visible runs go through
 * `visible` (escaping for HTML, say). Clean text costs one regular expression test.
 */
export function replaceHiddenChars(text: string, mark: (char: HiddenChar) => string, visible: (text: string) => string = (t) => t): string {
  if (!hasHiddenChars(text)) return visible(text);
  return segmentHiddenChars(text)
    .map((s) => (s.kind === 'text' ? visible(s.text) : mark(s.char)))
    .join('');
}

/** The plain-text marker: `<U+202E>`. The form code hosts and editors use to reveal hidden characters. */
export function plainMarker(char: HiddenChar): string {
  return `<${codePointLabel(char.codePoint)}>`;
}

/** A site's text with hidden characters shown as `<U+XXXX>` (logs, JSON-free plain text, messages). */
export function revealHiddenChars(text: string): string {
  return replaceHiddenChars(text, plainMarker);
}
