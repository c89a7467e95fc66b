/**
 * What the dashboard's pages share on the read side: page sizes, and text from websites made
 * safe to show. Page sizes are bounded so no request asks the database for a whole portfolio.
 */

/** Rows per page of the dashboard's tables, and the sizes a URL may ask for. */
export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;

export function pageSize(asked: number | undefined): number {
  return asked !== undefined && (PAGE_SIZES as readonly number[]).includes(asked) ? asked : DEFAULT_PAGE_SIZE;
}

/**
 * Control characters of a hostile body (an escape sequence, a NUL, a bare CR) shown as the
 * Unicode control pictures (␀, ␛, ...) rather than passed to a browser or a terminal. Tabs stay.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
export function visibleText(text: string): string {
  return text.replace(CONTROL, (c) => (c === '\u007f' ? '\u2421' : String.fromCharCode(0x2400 + c.charCodeAt(0))));
}

const UTF8 = new TextDecoder('utf-8', { fatal: false });

/** A robots.txt's lines as text: UTF-8, bytes that are not shown as U+FFFD, controls as pictures. */
export function bodyLines(content: Uint8Array): string[] {
  const text = UTF8.decode(content);
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines.map(visibleText);
}
