/**
 * Times as access logs write them, read into a Date (UTC, the log's own offset applied): the
 * Common Log Format's `10/Oct/2000:13:55:36 -0700`, RFC 3339 strings and Unix epoch numbers.
 * Each field is checked against the calendar (no 31 February), because `Date.UTC` would silently
 * roll an impossible date into the next month. Pure; returns null for anything it cannot read.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const MINUTE_MS = 60_000;

interface CalendarTime {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Minutes east of UTC: `-0700` is -420. */
  offsetMinutes: number;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

function dateOf(t: CalendarTime): Date | null {
  const valid =
    // Date.UTC reads years 0..99 as 1900..1999; no log means either, so such years are refused.
    t.year >= 1000 &&
    t.month >= 1 &&
    t.month <= 12 &&
    t.day >= 1 &&
    t.day <= daysInMonth(t.year, t.month) &&
    t.hour <= 23 &&
    t.minute <= 59 &&
    // 60: RFC 3339 allows a leap second; Date has none, so it lands on the next minute's first.
    t.second <= 60 &&
    Math.abs(t.offsetMinutes) < 24 * 60;
  if (!valid) return null;
  const local = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.millisecond);
  return new Date(local - t.offsetMinutes * MINUTE_MS);
}

/** The number written by `count` ASCII digits at `at`, or NaN when any is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The Common Log Format's time, without its brackets: `10/Oct/2000:13:55:36 -0700` (Apache `%t`,
 * nginx `$time_local`). Month names are English, as both servers write them whatever the locale.
 * Read by character codes, with no slicing: the import reads one for every line a crawler sent.
 */
export function parseClfTime(text: string): Date | null {
  // dd/Mon/yyyy:HH:MM:SS +hhmm is 26 characters exactly.
  if (text.length !== 26 || text[2] !== '/' || text[6] !== '/' || text[11] !== ':' || text[14] !== ':' || text[17] !== ':' || text[20] !== ' ') return null;
  const month = MONTHS.indexOf(text.slice(3, 6) as (typeof MONTHS)[number]) + 1;
  const sign = text[21] === '+' ? 1 : text[21] === '-' ? -1 : 0;
  if (month === 0 || sign === 0) return null;
  const parts = {
    year: digitsAt(text, 7, 4),
    month,
    day: digitsAt(text, 0, 2),
    hour: digitsAt(text, 12, 2),
    minute: digitsAt(text, 15, 2),
    second: digitsAt(text, 18, 2),
    millisecond: 0,
    offsetMinutes: sign * (digitsAt(text, 22, 2) * 60 + digitsAt(text, 24, 2)),
  };
  // NaN fails every comparison in dateOf, so a non-digit anywhere refuses the time.
  return dateOf(parts);
}

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time (`2024-05-01T12:00:00.123456789Z`, `...+02:00`). A fraction finer than a
 * millisecond is rounded to the nearest one, as epoch numbers are, so the same instant written
 * both ways gives the same Date.
 */
export function parseRfc3339Time(text: string): Date | null {
  const m = RFC_3339.exec(text);
  if (m === null) return null;
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHours, offsetMinutes] = m;
  const offset = zulu !== undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  return dateOf({
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
    millisecond: fraction === undefined ? 0 : Math.round(Number(`0.${fraction}`) * 1000),
    offsetMinutes: offset,
  });
}

/**
 * Unit boundaries for an epoch number, by magnitude (absolute value below the bound). 1e11 seconds
 * is the year 5138, and 1e11 milliseconds is March 1973: no access log holds either, so each unit
 * owns three orders of magnitude without overlap for any time from 1973 to 5138.
 */
const EPOCH_UNITS = [
  { below: 1e11, toMs: (n: number) => n * 1_000 }, // seconds (Logpush `unix`; Caddy's `ts` has a fraction)
  { below: 1e14, toMs: (n: number) => n }, // milliseconds
  { below: 1e17, toMs: (n: number) => n / 1_000 }, // microseconds
  { below: Number.POSITIVE_INFINITY, toMs: (n: number) => n / 1_000_000 }, // nanoseconds (Logpush `unixnano`)
] as const;

/**
 * A Unix epoch number in seconds, milliseconds, microseconds or nanoseconds, told apart by its
 * magnitude (EPOCH_UNITS), rounded to the nearest millisecond (a float's fraction of a second is
 * not exact). Nanoseconds past 2^53 arrive from JSON already rounded to a few hundred
 * nanoseconds, far below the millisecond a Date keeps.
 */
export function parseEpochTime(value: number): Date | null {
  if (!Number.isFinite(value) || value < 0) return null;
  const unit = EPOCH_UNITS.find((u) => value < u.below) ?? EPOCH_UNITS[EPOCH_UNITS.length - 1]!;
  const date = new Date(Math.round(unit.toMs(value)));
  return Number.isNaN(date.getTime()) ? null : date;
}
