/**
 * A site's text in a page (house style, habit 13): escaped, and every control, bidirectional and
 * invisible character (src/robots/hidden-chars.ts) shown as a marker, a boxed `U+202E` whose
 * title names the character, never handed to the browser as it is. So U+202E cannot make
 * `toBTPG` read `GPTBot` or `/gnp.exe` read `/exe.png`, a zero-width space cannot hide in a
 * token, and ESC or NUL are seen. Pure.
 */
import { codePointLabel, hasHiddenChars, replaceHiddenChars, revealHiddenChars } from '../robots/hidden-chars.js';
import type { HiddenChar } from '../robots/hidden-chars.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML (element content or a quoted attribute value). */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** `U+202E RIGHT-TO-LEFT OVERRIDE`: how the note and a marker's title name a character. */
export const hiddenCharName = (c: HiddenChar) => `${codePointLabel(c.codePoint)} ${c.name}`;

/** The marker of one hidden character: its code point, boxed and coloured by kind (style.css `.hc`). */
export function hiddenCharMarker(c: HiddenChar): string {
  return `<span class="hc hc-${c.kind}" title="${escapeHtml(hiddenCharName(c))}">${codePointLabel(c.codePoint)}</span>`;
}

/**
 * A site's text as HTML: escaped, hidden characters as markers. `seen` collects the characters
 * shown (the page's note lists them). Clean text costs one regular expression test.
 */
export function siteTextHtml(text: string, seen?: Map<number, HiddenChar>): string {
  if (!hasHiddenChars(text)) return escapeHtml(text);
  return replaceHiddenChars(
    text,
    (c) => {
      seen?.set(c.codePoint, c);
      return hiddenCharMarker(c);
    },
    escapeHtml,
  );
}

/**
 * A site's text for an attribute (a title, an input's value): an attribute cannot hold markup,
 * so hidden characters become plain `<U+202E>` markers; the caller's template escapes the rest.
 */
export const siteTextAttribute = (text: string) => revealHiddenChars(text);

/**
 * A robots.txt's lines as the rows of the site page's file view (`table.file`): line numbers that
 * are anchors, each line's text through siteTextHtml. Linear in the file, but a 500 KiB file of
 * 42,000 lines or 150,000 hidden characters takes a few hundred milliseconds: the dashboard builds
 * it in its thread (page-compute.ts), with the lint.
 */
export function fileRowsHtml(lines: readonly string[]): string {
  let html = '';
  lines.forEach((line, i) => {
    html += `<tr id="L${i + 1}"><td class="ln"><a href="#L${i + 1}">${i + 1}</a></td><td class="code">${siteTextHtml(line)}</td></tr>\n`;
  });
  return html;
}

