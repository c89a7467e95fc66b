import { describe, expect, it } from 'vitest';
import { parseClfTime, parseEpochTime, parseRfc3339Time } from '../../../src/logs/log-times.js';

describe('epoch numbers: the unit from the magnitude', () => {
  it.each([
    ['seconds, the largest', 99_999_999_999, '5138-11-16T09:46:39.000Z'],
    ['milliseconds, the smallest', 100_000_000_000, '1973-03-03T09:46:40.000Z'],
    ['milliseconds, the largest', 99_999_999_999_999, '5138-11-16T09:46:39.999Z'],
    ['microseconds, the smallest', 100_000_000_000_000, '1973-03-03T09:46:40.000Z'],
    ['nanoseconds, the smallest', 1e17, '1973-03-03T09:46:40.000Z'],
    ['zero is 1970 in seconds', 0, '1970-01-01T00:00:00.000Z'],
  ])('%s', (_name, value, iso) => {
    expect(parseEpochTime(value)?.toISOString()).toBe(iso);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('%s is no time', (value) => expect(parseEpochTime(value)).toBeNull());
});

describe('times in text', () => {
  it.each([
    ['29 February of a leap year', '29/Feb/2024:00:00:00 +0000', '2024-02-29T00:00:00.000Z'],
    ['the largest offset', '01/Jan/2024:00:00:00 +1400', '2023-12-31T10:00:00.000Z'],
  ])('CLF: %s', (_name, text, iso) => expect(parseClfTime(text)?.toISOString()).toBe(iso));

  it.each(['29/Feb/2023:00:00:00 +0000', '10/oct/2000:13:55:36 -0700', '10/Oct/2000:13:55:36 0700', '10/Oct/2000:13:55:36 -07000', '1/Oct/2000:13:55:36 -0700', '10/Oct/2000:13:60:00 +0000'])(
    'CLF: %s is no time',
    (text) => expect(parseClfTime(text)).toBeNull(),
  );

  it.each([
    ['lower-case t and z', '2024-05-01t12:00:00z', '2024-05-01T12:00:00.000Z'],
    ['a space for T', '2024-05-01 12:00:00+00:00', '2024-05-01T12:00:00.000Z'],
    ['a fraction rounded to the millisecond', '2024-05-01T12:00:00.9996Z', '2024-05-01T12:00:01.000Z'],
  ])('RFC 3339: %s', (_name, text, iso) => expect(parseRfc3339Time(text)?.toISOString()).toBe(iso));

  it.each(['2024-05-01T12:00:00', '2024-05-01', '2024-13-01T00:00:00Z', '0099-01-01T00:00:00Z'])('RFC 3339: %s is no time', (text) => expect(parseRfc3339Time(text)).toBeNull());
});
