/**
 * Text that a website sent, made storable. Postgres text and jsonb cannot hold U+0000 (a NUL
 * byte in a robots.txt reaches rule values, diffs and alert details as that character; C20), so
 * it is stored as U+FFFD, the replacement character: the row is written, and a reader sees where
 * the byte was. Everything else is kept as it is.
 */
const NUL = String.fromCharCode(0);
const REPLACEMENT = '\uFFFD';

export function pgText(text: string): string;
export function pgText(text: string | null): string | null;
export function pgText(text: string | null): string | null {
  return text === null || !text.includes(NUL) ? text : text.replaceAll(NUL, REPLACEMENT);
}

/** JSON for a jsonb column: every string in it made storable. */
export function pgJson(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? pgText(v) : v));
}
