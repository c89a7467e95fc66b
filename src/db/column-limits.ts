/**
 * The range of every column the nightly path fills from what a website sends, and the clamps
 * that keep a value inside it. A value out of a column's range fails the whole insert, every
 * time, so the site would never get a night (issue 17, item 2: `max-age` past 2^31 - 1, an
 * `Expires` in year 9999, a `Content-Length` of 99999999999). A clamp keeps the night and says
 * as much as the column can hold. Pure.
 *
 * Reviewed, column by column, on the nightly path: `cache_lifetime_seconds`, `full_size` and
 * `duration_ms` (integer) are clamped here; `status` (smallint) is a three-digit HTTP status;
 * `group_no` (smallint) is clamped (a body larger than 500 KiB, ROBOTS_AUDIT_MAX_BODY_BYTES, could
 * hold more groups); no date column takes a site's date (`Expires`, `Last-Modified` are kept as
 * text, and the lifetime read from them is clamped, so year 9999 is "68 years"); header values and
 * error messages are cut; body sizes and rule counts are bounded by the body cap.
 *
 * Ranges from the PostgreSQL manual (https://www.postgresql.org/docs/16/datatype-numeric.html,
 * https://www.postgresql.org/docs/16/datatype-datetime.html).
 */

/** `integer` columns (sizes, durations, cache lifetimes, counts). */
export const INT4_MAX = 2_147_483_647;
/** `smallint` columns (status, attempts, lint counts, group numbers). */
export const SMALLINT_MAX = 32_767;
/**
 * Characters kept of one header value stored as text (Cache-Control, Expires, ETag, ...): a
 * header is at most undici's 16 KiB of header bytes anyway; what a report shows is its start.
 */
export const MAX_HEADER_TEXT_CHARS = 2_048;
/** Characters kept of an error message (it can quote a site's bytes). */
export const MAX_ERROR_MESSAGE_CHARS = 2_048;
/**
 * Characters kept of a usage-preference line's value on a verdict span and a usage flip
 * (`usage_rules`, `rule_before` / `rule_after`): a line can be 16 KiB; a report quotes its start.
 */
export const MAX_USAGE_VALUE_CHARS = 200;

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

/** A text cut to `max` characters (never inside a surrogate pair), with `…` when cut. */
export function clampText(text: string | null, max: number): string | null {
  if (text === null || text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
