/**
 * How an alert's lists and texts are cut (src/services/alerting/alert-bounds.ts, issue 26 item 6):
 * a list of strings keeps its first entries and counts the rest in a last one, a list of objects
 * keeps its first entries beside `<list>Total`, a long string says how many characters it lost,
 * and the details as a whole stay under a number of bytes, counted as Postgres prints a jsonb.
 */
import { describe, expect, it } from 'vitest';
import {
  boundAlertDetails,
  boundTitle,
  clipText,
  jsonbTextBytes,
  listedAtMost,
  moreEntry,
  namesAtMost,
} from '../../../../src/services/alerting/alert-bounds.js';
import { MAX_ALERT_DETAILS_BYTES, MAX_ALERT_TITLE_CHARS, MAX_DETAIL_TEXT_CHARS, MAX_TITLE_NAMES } from '../../../../src/services/alerting/size-limits.js';

const range = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

/** A list of strings read back: its entries, and the count its last entry gives (0 when it has none). */
function readList(list: readonly string[]): { listed: string[]; more: number } {
  const m = /^… and (\d+) more .+$/.exec(list.at(-1) ?? '');
  return m ? { listed: list.slice(0, -1), more: Number(m[1]) } : { listed: [...list], more: 0 };
}

describe('listedAtMost: the first entries, the rest counted in a last one', () => {
  it.each([
    ['fewer than the limit', ['a', 'b'], 3, ['a', 'b']],
    ['as many as the limit', ['a', 'b', 'c'], 3, ['a', 'b', 'c']],
    ['one past the limit', ['a', 'b', 'c', 'd'], 3, ['a', 'b', 'c', '… and 1 more sitemaps']],
    ['thousands past it', range(4331, (i) => `s${i}`), 2, ['s0', 's1', '… and 4329 more sitemaps']],
    ['none', [], 3, []],
  ])('%s', (_, values, max, expected) => {
    expect(listedAtMost(values, max, 'sitemaps')).toEqual(expected);
  });

  it('the count entry is the one issue 17 wrote for user-agents', () => {
    expect(moreEntry(14_900, 'user-agents')).toBe('… and 14900 more user-agents');
  });
});

describe('clipText: at most the limit in all, then how many characters it lost', () => {
  it.each([
    ['short: as it is', 'abc', 10, 'abc'],
    ['exactly the limit: as it is', 'a'.repeat(40), 40, 'a'.repeat(40)],
    ['long: the start and the count', 'a'.repeat(100), 40, `${'a'.repeat(17)}… (83 more characters)`],
  ])('%s', (_, text, max, expected) => {
    expect(clipText(text, max)).toBe(expected);
  });

  it.each([50, 500, MAX_DETAIL_TEXT_CHARS])('cut to %i: within it, and cutting again changes nothing', (max) => {
    const once = clipText('x'.repeat(max * 7), max);
    expect(once.length).toBeLessThanOrEqual(max);
    expect(clipText(once, max)).toBe(once);
  });

  it('never splits a surrogate pair', () => {
    const clipped = clipText('😀'.repeat(100), 41);
    expect(clipped).toMatch(/^(😀)+… \(\d+ more characters\)$/u);
    expect(clipped.length).toBeLessThanOrEqual(41);
  });
});

describe('namesAtMost and boundTitle: a title names a few and counts the rest', () => {
  it.each([
    ['one', ['Googlebot'], 'Googlebot'],
    ['the limit', range(MAX_TITLE_NAMES, (i) => `a${i}`), range(MAX_TITLE_NAMES, (i) => `a${i}`).join(', ')],
    ['past it', range(15_000, (i) => `a${i}`), `${range(MAX_TITLE_NAMES, (i) => `a${i}`).join(', ')} and ${15_000 - MAX_TITLE_NAMES} more`],
  ])('%s', (_, names, expected) => {
    expect(namesAtMost(names)).toBe(expected);
  });

  it.each([
    ['a short title stays', 'robots.txt rules changed on https://a.example', 'robots.txt rules changed on https://a.example'],
    ['a long one is cut, marked', `Disallow: / added for ${'g'.repeat(5000)}`, `Disallow: / added for ${'g'.repeat(MAX_ALERT_TITLE_CHARS - 23)}…`],
  ])('%s', (_, title, expected) => {
    const bounded = boundTitle(title);
    expect(bounded).toBe(expected);
    expect(bounded.length).toBeLessThanOrEqual(MAX_ALERT_TITLE_CHARS);
  });
});

describe('jsonbTextBytes: the bytes of `details::text`', () => {
  // As Postgres 16 prints a jsonb: ", " between entries, ": " after keys, JSON escapes, UTF-8
  // (checked against the server itself in test/integration/pipeline/nightly-alert-sizes.int.test.ts).
  it.each([
    ['an empty object', {}, '{}'],
    ['a list', { a: [1, 'x', null] }, '{"a": [1, "x", null]}'],
    ['two keys', { a: true, bb: { c: [] } }, '{"a": true, "bb": {"c": []}}'],
    ['escapes', { s: 'a"b\\c\n\u0001' }, '{"s": "a\\"b\\\\c\\n\\u0001"}'],
    ['UTF-8', { s: 'é…😀' }, '{"s": "é…😀"}'],
    ['undefined left out', { a: 1, b: undefined }, '{"a": 1}'],
  ])('%s', (_, value, printed) => {
    expect(jsonbTextBytes(value)).toBe(Buffer.byteLength(printed));
  });
});

/** Details of many sitemaps, agents and flips: `n` of each. */
function heavyDetails(n: number, urlChars = 60) {
  const url = (i: number) => `https://www.example.com/${'p'.repeat(Math.max(0, urlChars - 30))}/${i}.xml`;
  return {
    sitemapsAdded: listedAtMost(range(n, url), n, 'sitemaps'),
    sitemapsRemoved: listedAtMost(range(n * 3, url), n, 'sitemaps'),
    flips: range(n, (i) => ({ url: url(i), agent: 'Googlebot', from: true, to: false })),
    flipsTotal: n + 7,
    gaps: [{ crawlers: listedAtMost(range(n, (i) => `bot${i}`), n, 'user-agents'), path: '/private/' }],
    policy: { from: 'rules', to: 'rules' },
  };
}

describe('boundAlertDetails: the last line of defence', () => {
  it('details within the limit come back equal, strings and all', () => {
    const details = heavyDetails(20);
    expect(jsonbTextBytes(details)).toBeLessThan(MAX_ALERT_DETAILS_BYTES);
    expect(boundAlertDetails(details)).toEqual(details);
  });

  it(`every string is cut to ${MAX_DETAIL_TEXT_CHARS} characters, whatever its place`, () => {
    const long = 'x'.repeat(20_000);
    const bounded = boundAlertDetails({ challenge: { signal: long }, sitemapsAdded: [long], flips: [{ url: long }] });
    expect(bounded.challenge.signal).toBe(clipText(long, MAX_DETAIL_TEXT_CHARS));
    expect(bounded.sitemapsAdded[0]!.length).toBeLessThanOrEqual(MAX_DETAIL_TEXT_CHARS);
    expect(bounded.flips[0]!.url.length).toBeLessThanOrEqual(MAX_DETAIL_TEXT_CHARS);
  });

  // Each case: details past the limit, and what must survive the cut.
  it.each([
    ['hundreds of long entries in every list', heavyDetails(400, 1500), 64 * 1024],
    ['a thousand short ones', heavyDetails(1000), 64 * 1024],
    ['a small limit', heavyDetails(200), 8 * 1024],
  ])('%s: under the limit, `truncated`, every count still exact', (_, details, max) => {
    const bounded = boundAlertDetails(details, max);
    expect(jsonbTextBytes(bounded)).toBeLessThanOrEqual(max);
    expect(bounded.truncated).toBe(true);
    // Lists of strings: what is listed and what is counted add up to what there was.
    const added = readList(bounded.sitemapsAdded);
    expect(added.listed).toEqual(details.sitemapsAdded.slice(0, added.listed.length));
    expect(added.listed.length + added.more).toBe(readList(details.sitemapsAdded).listed.length);
    const removed = readList(bounded.sitemapsRemoved);
    expect(removed.listed.length + removed.more).toBe(details.sitemapsAdded.length * 3);
    const crawlers = bounded.gaps[0] ? readList(bounded.gaps[0].crawlers) : { listed: [], more: details.gaps[0]!.crawlers.length };
    expect(crawlers.listed.length + crawlers.more).toBe(details.gaps[0]!.crawlers.length);
    // Lists of objects: the first ones, and the total as it was.
    expect(bounded.flips).toEqual(details.flips.slice(0, bounded.flips.length));
    expect(bounded.flipsTotal).toBe(details.flipsTotal);
    // What is not a list is kept.
    expect(bounded.policy).toEqual(details.policy);
  });

  it('a list without a total of its own gets one; an unknown list of strings counts "entries"', () => {
    const bounded: Record<string, unknown> & { names: string[] } = boundAlertDetails(
      { versions: range(2000, (i) => ({ sha256: `${i}`.padStart(64, '0') })), names: range(5000, (i) => `n${i}`) },
      16 * 1024,
    );
    expect(jsonbTextBytes(bounded)).toBeLessThanOrEqual(16 * 1024);
    expect(bounded.versionsTotal).toBe(2000);
    expect(bounded.names.at(-1)).toMatch(/^… and \d+ more entries$/);
  });

  it('cutting what was cut changes nothing', () => {
    const once = boundAlertDetails(heavyDetails(1000));
    expect(boundAlertDetails(once)).toEqual(once);
  });

  it('nothing left to cut: only `truncated` is kept, still valid JSON', () => {
    const keys = Object.fromEntries(range(5000, (i) => [`key${i}`, 'x'.repeat(100)] as const));
    const bounded = boundAlertDetails(keys, 4096);
    expect(bounded).toEqual({ truncated: true });
    expect(JSON.parse(JSON.stringify(bounded))).toEqual({ truncated: true });
  });
});
