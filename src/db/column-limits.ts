/**
 * The range of every column the nightly path fills from what a website sends, and the clamps
 * that keep a value inside it. A value out of a column's range fails the whole insert, every
 * time, so the site would never get a night (issue 17, item 2: `max-age` past 2^31 - 1, an
 * `Expires` in year 9999, a `Content-Length` of 99999999999). A clamp keeps the night and says
 * as much as the column can hold. Pure.
 *
 * Ranges from the PostgreSQL manual (https://www.postgresql.org/docs/16/datatype-numeric.html,
 * https://www.postgresql.org/docs/16/datatype-datetime.html).
 */

/** `integer` columns (sizes, durations, cache lifetimes, counts). */
export const INT4_MAX = 2_147_483_647;
/** `smallint` columns (status, attempts, lint counts, group numbers). */
export const SMALLINT_MAX = 32_767;
/**
 * The latest instant a date column is given: the end of year 9999. Postgres goes further
 * (294276 AD), JavaScript's Date not as far (275760 AD), and ISO 8601 text and most readers stop
 * at four-digit years.
 */
export const MAX_DATE = new Date('9999-12-31T23:59:59.999Z');
/**
 * Characters kept of one header value stored as text (Cache-Control, Expires, ETag, ...): a
 * header is at most undici's 16 KiB of header bytes anyway; what a report shows is its start.
 */
export const MAX_HEADER_TEXT_CHARS = 2_048;
/** Characters kept of an error message (it can quote a site's bytes). */
export const MAX_ERROR_MESSAGE_CHARS = 2_048;

/** An integer for an `integer` column: rounded down, within 0..INT4_MAX (null stays null). */
export function clampInt4(n: number | null): number | null {
  if (n === null) return null;
  if (Number.isNaN(n)) return null;
  return Math.min(INT4_MAX, Math.max(0, Math.floor(n)));
}

/** An integer for a `smallint` column: within 0..SMALLINT_MAX (null stays null). */
export function clampSmallint(n: number | null): number | null {
  if (n === null || Number.isNaN(n)) return null;
  return Math.min(SMALLINT_MAX, Math.max(0, Math.floor(n)));
}

/** A date for a date column: no later than MAX_DATE; an invalid date becomes null. */
export function clampDate(d: Date | null): Date | null {
  if (d === null || Number.isNaN(d.getTime())) return null;
  return d.getTime() > MAX_DATE.getTime() ? MAX_DATE : d;
}

/** A text cut to `max` characters (never inside a surrogate pair), with `…` when cut. */
export function clampText(text: string | null, max: number): string | null {
  if (text === null || text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
