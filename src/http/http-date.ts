/**
 * HTTP-date (RFC 9110 §5.6.7) for Expires, Date and Retry-After. `Date.parse` is not used: it
 * reads the asctime form in local time and accepts many strings that are not HTTP dates.
 * Pure: the clock is passed in.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/i;
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete) */
const RFC850_DATE = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/i;
/** `Sun Nov  6 08:49:37 1994` (obsolete, C asctime) */
const ASCTIME_DATE = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;

function build(year: number, month: string, day: string, h: string, m: string, s: string): Date | null {
  const monthIndex = MONTHS.indexOf(month.toLowerCase());
  const [d, hh, mm, ss] = [day, h, m, s].map((v) => Number(v.trim())) as [number, number, number, number];
  if (monthIndex < 0 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60) return null;
  const ms = Date.UTC(year, monthIndex, d, hh, mm, Math.min(ss, 59));
  const date = new Date(ms);
  // Reject 31 Feb and the like instead of letting Date roll them over.
  return date.getUTCDate() === d ? date : null;
}

/**
 * Parses an HTTP-date in any of its three forms; null when the text is not one. A two-digit
 * rfc850 year that would land more than 50 years after `now` means the previous century
 * (RFC 9110 §5.6.7).
 */
export function parseHttpDate(text: string, now: Date = new Date()): Date | null {
  const value = text.trim();
  let m = IMF_FIXDATE.exec(value);
  if (m) return build(Number(m[3]), m[2]!, m[1]!, m[4]!, m[5]!, m[6]!);
  m = ASCTIME_DATE.exec(value);
  if (m) return build(Number(m[6]), m[1]!, m[2]!, m[3]!, m[4]!, m[5]!);
  m = RFC850_DATE.exec(value);
  if (m) {
    const yy = Number(m[3]);
    const thisYear = now.getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + yy;
    if (year > thisYear + 50) year -= 100;
    return build(year, m[2]!, m[1]!, m[4]!, m[5]!, m[6]!);
  }
  return null;
}
