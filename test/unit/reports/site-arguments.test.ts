/**
 * The arguments of the site commands, read without a database: which origins a `<site>` may
 * mean (R-1..R-5), what a `--from` / `--to` names, and `--limit`.
 */
import { describe, expect, it } from 'vitest';
import { parseLimit } from '../../../src/cli/site-report-run.js';
import { SiteReportError } from '../../../src/reports/site-errors.js';
import { siteCandidates } from '../../../src/reports/site-lookup.js';
import { parseVersionRef } from '../../../src/reports/site-versions.js';

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(SiteReportError);
    expect((err as SiteReportError).exitCode).toBe(2);
    return (err as Error).message;
  }
  throw new Error('no error thrown');
}

describe('siteCandidates: an origin is exact, a host matches any scheme and port', () => {
  it.each<[string, string[], string[]]>([
    ['https://Example.com/some/page?x', ['https://example.com'], []],
    ['http://example.com:80', ['http://example.com'], []],
    ['https://example.com:8443', ['https://example.com:8443'], []],
    ['example.com', ['https://example.com', 'http://example.com'], ['https://example.com:', 'http://example.com:']],
    ['EXAMPLE.com/path', ['https://example.com', 'http://example.com'], ['https://example.com:', 'http://example.com:']],
    ['müller.eu', ['https://xn--mller-kva.eu', 'http://xn--mller-kva.eu'], ['https://xn--mller-kva.eu:', 'http://xn--mller-kva.eu:']],
    ['example.com:8080', ['https://example.com:8080', 'http://example.com:8080'], []],
    ['example.com:443', ['https://example.com', 'http://example.com:443'], []],
    ['example.com:80/x', ['https://example.com:80', 'http://example.com'], []],
    ['[::1]:8080', ['https://[::1]:8080', 'http://[::1]:8080'], []],
  ])('%s', (input, exact, portPrefixes) => {
    expect(siteCandidates(input)).toEqual({ exact, portPrefixes });
  });

  it.each([['exa mple'], ['mailto:someone@example.com'], ['']])('%j is not a site: a usage error', (input) => {
    expect(usageError(() => siteCandidates(input))).toMatch(/^not a site: invalid URL/);
  });
});

describe('parseVersionRef: a night, a run id or a run key', () => {
  it.each<[string, object]>([
    ['42', { kind: 'run_id', id: 42 }],
    ['2026-03-01', { kind: 'day', day: '2026-03-01' }],
    ['2024-02-29', { kind: 'day', day: '2024-02-29' }],
    ['2026-03-01T03:00:00.000Z', { kind: 'instant', at: new Date('2026-03-01T03:00:00.000Z') }],
    ['2026-03-01T03:00', { kind: 'instant', at: new Date('2026-03-01T03:00:00.000Z') }],
    ['2026-03-01T04:00+01:00', { kind: 'instant', at: new Date('2026-03-01T03:00:00.000Z') }],
    ['nightly-2026-03-01', { kind: 'run_key', key: 'nightly-2026-03-01' }],
    ['at-2026-03-01T03:00:00.000Z', { kind: 'run_key', key: 'at-2026-03-01T03:00:00.000Z' }],
    [' manual-1 ', { kind: 'run_key', key: 'manual-1' }],
  ])('%j', (input, expected) => {
    expect(parseVersionRef('--from', input)).toMatchObject(expected);
  });

  it.each<[string, string]>([
    ['2026-02-30', '--to "2026-02-30": not a date'],
    ['2025-02-29', '--to "2025-02-29": not a date'],
    ['2026-13-01', '--to "2026-13-01": not a date'],
    ['2026-03-01T25:00Z', '--to "2026-03-01T25:00Z": not an ISO time'],
    ['2026-02-30T03:00Z', '--to "2026-02-30T03:00Z": not an ISO time'],
    ['99999999999', '--to "99999999999": not a run id'],
    ['  ', '--to: empty (a night YYYY-MM-DD, an ISO time, a run id or a run key)'],
  ])('%j: a usage error', (input, message) => {
    expect(usageError(() => parseVersionRef('--to', input))).toBe(message);
  });
});

describe('parseLimit', () => {
  it.each([
    ['1', 1],
    ['30', 30],
    [' 365 ', 365],
  ])('%j -> %i', (input, n) => {
    expect(parseLimit(input)).toBe(n);
  });

  it.each([['0'], ['-3'], ['2.5'], ['1e3'], ['ten'], [''], ['99999999999999999999']])('%j: a usage error', (input) => {
    expect(usageError(() => parseLimit(input))).toBe(`--limit "${input}": not a whole number of at least 1`);
  });
});
