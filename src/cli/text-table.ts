import { alignColumns } from '../reports/site-text.js';

/**
 * Aligned columns for a terminal: a header row, then rows; numbers right-aligned, text left; the
 * last column is not padded (no trailing blanks).
 */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: readonly number[] = []): string {
  return `${alignColumns([header, ...rows], rightAligned).join('\n')}\n`;
}
