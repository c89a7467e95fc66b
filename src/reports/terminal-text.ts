/**
 * A site's text on its way to a terminal (house style, habit 13): every control, bidirectional
 * and invisible character becomes a visible `<U+XXXX>` marker, in reverse video when colour is
 * on, so that ESC, BEL or CR from a robots.txt are shown and never obeyed, and U+202E cannot make
 * one token read as another. TAB and LF are kept (layout). Pure.
 */
import { hasHiddenChars, hiddenCharsIn, codePointLabel, plainMarker, replaceHiddenChars } from '../robots/hidden-chars.js';
import type { HiddenChar } from '../robots/hidden-chars.js';

/** SGR 7 (reverse video) and 27 (its end): a marker stands out from the text around it. */
const REVERSE = '\u001b[7m';
const REVERSE_OFF = '\u001b[27m';

export interface TerminalTextOptions {
  /** Paint markers in reverse video (only where the output has colours). */
  color?: boolean;
}

/** The text safe to write to a terminal: hidden characters as `<U+XXXX>` markers. */
export function terminalText(text: string, options: TerminalTextOptions = {}): string {
  if (!hasHiddenChars(text)) return text;
  const mark = options.color ? (c: HiddenChar) => `${REVERSE}${plainMarker(c)}${REVERSE_OFF}` : plainMarker;
  return replaceHiddenChars(text, mark);
}

/**
 * One line under a report's output that says what the markers are, when any text shown held
 * hidden characters (code hosts show such a note above a file): null when none did.
 */
export function hiddenCharsNote(texts: Iterable<string>): string | null {
  const found = new Map<number, HiddenChar>();
  for (const text of texts) for (const c of hiddenCharsIn(text)) found.set(c.codePoint, c);
  if (found.size === 0) return null;
  const list = [...found.values()].map((c) => `${codePointLabel(c.codePoint)} ${c.name}`).join(', ');
  return `note: the site's text holds hidden or control characters, shown as <U+XXXX> and never written as they are: ${list}`;
}
