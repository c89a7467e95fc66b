/**
 * A portfolio's schedule is checked as BullMQ will read it before it is stored: five cron fields
 * (or six, seconds first) and an IANA time zone; the next firing is computed the way BullMQ's job
 * scheduler computes it.
 */
import { describe, expect, it } from 'vitest';
import { InvalidScheduleError, nextFiring } from '../../../src/queues/portfolio-schedules.js';

const FROM = new Date('2026-11-22T10:07:30Z');

describe('nextFiring', () => {
  it.each([
    ['every 15 minutes', '*/15 * * * *', 'UTC', '2026-11-22T10:15:00.000Z'],
    ['03:00 in Paris is 02:00 UTC in winter', '0 3 * * *', 'Europe/Paris', '2026-11-23T02:00:00.000Z'],
    ['03:00 in New York is 08:00 UTC in winter', '0 3 * * *', 'America/New_York', '2026-11-23T08:00:00.000Z'],
    ['six fields: seconds first', '*/2 * * * * *', 'UTC', '2026-11-22T10:07:32.000Z'],
    ['Mondays at 06:30', '30 6 * * 1', 'UTC', '2026-11-23T06:30:00.000Z'],
    ['blanks around and between fields', '  */15   *  * * * ', 'UTC', '2026-11-22T10:15:00.000Z'],
  ])('%s', (_name, cron, tz, next) => {
    expect(nextFiring(cron, tz, FROM).toISOString()).toBe(next);
  });

  it.each([
    ['a minute out of range', '61 * * * *', 'UTC', /cron "61 \* \* \* \*": .*59/],
    ['not a pattern', 'every day', 'UTC', /five fields/],
    ['seven fields', '* * * * * * *', 'UTC', /five fields/],
    ['an unknown word', 'x * * * *', 'UTC', /cron "x \* \* \* \*"/],
    ['an unknown time zone', '0 3 * * *', 'Mars/Olympus', /unknown time zone "Mars\/Olympus"/],
  ])('refuses %s', (_name, cron, tz, message) => {
    expect(() => nextFiring(cron, tz, FROM)).toThrow(InvalidScheduleError);
    expect(() => nextFiring(cron, tz, FROM)).toThrow(message);
  });
});
