/**
 * Aligned columns for a terminal: a header row, then rows; numbers right-aligned, text left; the
 * last column is not padded (no trailing blanks).
 */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: readonly number[] = []): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const right = new Set(rightAligned);
  return all
    .map((row) =>
      row
        .map((cell, i) => {
          if (i === row.length - 1 && !right.has(i)) return cell;
          return right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!);
        })
        .join('  '),
    )
    .join('\n')
    .concat('\n');
}
