/**
 * What the dashboard's pages share on the read side: page sizes, and a robots.txt as lines of
 * text. Page sizes are bounded so no request asks the database for a whole portfolio. Text from
 * websites is returned as it is: the pages show its hidden characters as markers (src/web/html-text.ts).
 */

/** Rows per page of the dashboard's tables, and the sizes a URL may ask for. */
export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;

export function pageSize(asked: number | undefined): number {
  return asked !== undefined && (PAGE_SIZES as readonly number[]).includes(asked) ? asked : DEFAULT_PAGE_SIZE;
}

const UTF8 = new TextDecoder('utf-8', { fatal: false });

/** A robots.txt's lines as text: UTF-8, bytes that are not as U+FFFD; controls kept (the page marks them). */
export function bodyLines(content: Uint8Array): string[] {
  const text = UTF8.decode(content);
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}
