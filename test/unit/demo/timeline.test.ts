import { describe, expect, it } from 'vitest';
import type { Timeline } from '../../../src/demo/timeline.js';
import { TimelineError, dailyNights, inForceOn, monthlyNights } from '../../../src/demo/timeline.js';

const SERIES: Timeline<string> = [
  ['2023-08-08T09:30:00Z', 'GPTBot blocked'],
  ['2023-09-29T08:00:00Z', 'Google-Extended blocked too'],
];

describe('inForceOn: the latest entry at or before the night', () => {
  it.each<[string, string | null]>([
    ['2023-08-01T03:00:00Z', null],
    ['2023-08-08T09:30:00Z', 'GPTBot blocked'],
    ['2023-09-01T03:00:00Z', 'GPTBot blocked'],
    ['2023-09-29T07:59:59Z', 'GPTBot blocked'],
    ['2023-10-01T03:00:00Z', 'Google-Extended blocked too'],
  ])('on %s', (night, expected) => {
    expect(inForceOn(SERIES, new Date(night))).toBe(expected);
  });

  it.each<[string, Timeline<number>, RegExp]>([
    ['a date that does not parse', [['someday', 1]], /timeline date "someday" is not a date/],
    ['dates out of order', [['2023-09-01T00:00:00Z', 1], ['2023-08-01T00:00:00Z', 2]], /timeline dates out of order at 2023-08-01T00:00:00Z/],
    ['the same date twice', [['2023-09-01T00:00:00Z', 1], ['2023-09-01T00:00:00Z', 2]], /out of order/],
  ])('refuses %s, whatever the night', (_, timeline, message) => {
    expect(() => inForceOn(timeline, new Date('2020-01-01T00:00:00Z'))).toThrow(TimelineError);
    expect(() => inForceOn(timeline, new Date('2020-01-01T00:00:00Z'))).toThrow(message);
  });
});

describe('dailyNights and monthlyNights', () => {
  it('gives every day from the first night to the last, at the same time', () => {
    const nights = dailyNights('2025-07-29T22:00:00Z', '2025-08-30T22:00:00Z');
    expect(nights).toHaveLength(33);
    expect(nights[2]?.toISOString()).toBe('2025-07-31T22:00:00.000Z');
    expect(nights.at(-1)?.toISOString()).toBe('2025-08-30T22:00:00.000Z');
  });

  it('gives the same day of consecutive months, across a year end', () => {
    expect(monthlyNights('2023-11-01T03:00:00Z', 3).map((n) => n.toISOString())).toEqual(['2023-11-01T03:00:00.000Z', '2023-12-01T03:00:00.000Z', '2024-01-01T03:00:00.000Z']);
  });

  it.each<[string, () => unknown, RegExp]>([
    ['a last night before the first', () => dailyNights('2025-08-30T22:00:00Z', '2025-07-29T22:00:00Z'), /no nights from/],
    ['a monthly day that some months lack', () => monthlyNights('2023-01-31T03:00:00Z', 2), /day 1 to 28/],
  ])('refuses %s', (_, make, message) => {
    expect(make).toThrow(TimelineError);
    expect(make).toThrow(message);
  });
});
