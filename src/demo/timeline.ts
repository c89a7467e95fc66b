/**
 * What a scripted demo site serves, as a timeline: values that take effect at given instants,
 * each in force until the next one. The same rule as `bodyOnNight` for the recorded histories:
 * on a night, the latest entry dated at or before it. Pure.
 */

/** `[from, value]` pairs, oldest first; `from` is an ISO 8601 time. */
export type Timeline<T> = readonly (readonly [from: string, value: T])[];

/** Thrown for a timeline whose dates do not parse or are out of order: a typo in a script. */
export class TimelineError extends Error {
  override name = 'TimelineError';
}

/**
 * The value in force on `night`, or null before the first entry. The whole timeline is checked
 * on every call, so that a typo fails on the first night rather than on the night it is reached.
 */
export function inForceOn<T>(timeline: Timeline<T>, night: Date): T | null {
  let value: T | null = null;
  let previous = -Infinity;
  for (const [from, next] of timeline) {
    const at = Date.parse(from);
    if (Number.isNaN(at)) throw new TimelineError(`timeline date ${JSON.stringify(from)} is not a date`);
    if (at <= previous) throw new TimelineError(`timeline dates out of order at ${from}`);
    previous = at;
    if (at <= night.getTime()) value = next;
  }
  return value;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Every night from `first` to `last` inclusive, one a day at the same time of day (UTC). */
export function dailyNights(first: string, last: string): Date[] {
  const start = Date.parse(first);
  const end = Date.parse(last);
  if (Number.isNaN(start) || Number.isNaN(end) || end < start) throw new TimelineError(`no nights from ${first} to ${last}`);
  return Array.from({ length: Math.floor((end - start) / DAY_MS) + 1 }, (_, i) => new Date(start + i * DAY_MS));
}

/** `count` nights, on the same day of consecutive months from `first`, at its time of day (UTC). */
export function monthlyNights(first: string, count: number): Date[] {
  const start = new Date(first);
  if (Number.isNaN(start.getTime()) || start.getUTCDate() > 28) throw new TimelineError(`monthly nights need a date on day 1 to 28, not ${first}`);
  return Array.from({ length: count }, (_, i) => {
    const night = new Date(start);
    night.setUTCMonth(start.getUTCMonth() + i);
    return night;
  });
}
