/** The text of `robots-audit history`: nights as rows, changes, flips and alerts under them. */
import { describe, expect, it } from 'vitest';
import type { HistoryFlip, HistoryNight, HistoryUsageFlip, SiteHistory } from '../../../src/reports/site-history.js';
import { flipLines, formatHistory, historyJson } from '../../../src/reports/site-history.format.js';
import { alignColumns, formatNight, outcomeText, policyText } from '../../../src/reports/site-text.js';

const SITE = { id: 7, origin: 'https://example.com' };

function nightOf(at: string, over: Partial<HistoryNight> = {}): HistoryNight {
  return {
    night: new Date(at),
    runId: 1,
    runKey: `nightly-${at.slice(0, 10)}`,
    outcome: 'ok',
    status: 200,
    errorCode: null,
    policy: 'rules',
    policyReason: 'R-10',
    unreachableSince: null,
    rulesNight: null,
    rulesRunKey: null,
    bodySha256: 'ab'.repeat(32),
    bodyBytes: 30,
    flapping: false,
    confirmSha256: null,
    changes: [],
    flips: [],
    usageFlips: [],
    alerts: [],
    ...over,
  };
}

describe('history: flapping nights', () => {
  it('says a night flapped, and names the other answer when two disagreed', () => {
    const text = formatHistory({
      site: SITE,
      totalNights: 2,
      nights: [nightOf('2026-03-02T03:00:00Z', { flapping: true, confirmSha256: 'cd'.repeat(32) }), nightOf('2026-03-01T03:00:00Z', { flapping: true })],
    });
    expect(text).toContain('flapping: two answers disagreed (the other: cdcdcdcdcdcd)');
    expect(text).toContain('flapping: its changes raise no alerts of their own');
    expect(historyJson({ site: SITE, totalNights: 1, nights: [nightOf('2026-03-02T03:00:00Z', { flapping: true })] }, 30).nights[0]).toMatchObject({ flapping: true, confirmSha256: null });
  });
});

const flip = (url: string, agent: string, over: Partial<HistoryFlip> = {}): HistoryFlip => ({
  url,
  agent,
  from: true,
  to: false,
  cause: 'rules_changed',
  ruleBefore: null,
  ruleAfter: { line: 2, kind: 'disallow', value: '/', pattern: '/' },
  ...over,
});

describe('words', () => {
  it.each([
    ['2026-03-01T03:00:00.000Z', '2026-03-01 03:00Z'],
    ['2026-03-01T03:00:27.000Z', '2026-03-01 03:00:27Z'],
    ['2026-03-01T03:00:27.500Z', '2026-03-01 03:00:27Z'],
  ])('formatNight(%s) = %s', (at, text) => {
    expect(formatNight(new Date(at))).toBe(text);
  });

  it.each<[Parameters<typeof outcomeText>, string]>([
    [['ok', 200, null], 'ok 200'],
    [['server_error', 503, null], 'server_error 503'],
    [['network_error', null, 'ECONNREFUSED'], 'network_error ECONNREFUSED'],
    [['redirect_limit', 301, 'REDIRECT_LOOP'], 'redirect_limit 301 REDIRECT_LOOP'],
    [['network_error', null, null], 'network_error'],
  ])('outcomeText(%j) = %s', (args, text) => {
    expect(outcomeText(...args)).toBe(text);
  });

  it.each<[string, string, string | null, string]>([
    ['rules', 'R-10', null, 'rules (R-10)'],
    ['allow_all', 'R-12', null, 'allow_all (R-12)'],
    ['disallow_all', 'R-15', null, 'disallow_all (R-15)'],
    ['rules', 'D-3', '2026-03-01T03:00:00Z', 'rules (D-3, copy of 2026-03-01 03:00Z)'],
    ['allow_all', 'D-3', null, 'allow_all (D-3, no copy)'],
  ])('policyText(%s, %s) = %s', (policy, reason, rulesNight, text) => {
    expect(policyText(policy, reason, rulesNight === null ? null : new Date(rulesNight))).toBe(text);
  });

  it('alignColumns pads every column but the last', () => {
    expect(alignColumns([['a', 'bb', 'c'], ['ccc', 'd', 'eeee']])).toEqual(['a    bb  c', 'ccc  d   eeee']);
  });
});

describe('flipLines: one line per URL and change, with its agents', () => {
  it('groups agents that flipped the same way on the same URL', () => {
    const flips = [flip('https://example.com/', 'Bingbot'), flip('https://example.com/', 'GPTBot'), flip('https://example.com/x', 'GPTBot', { from: null, to: true, cause: 'first_seen', ruleAfter: null })];
    expect(flipLines(flips)).toEqual([
      'https://example.com/: allowed → disallowed (rules_changed, line 2: Disallow: /) for Bingbot, GPTBot',
      'https://example.com/x: new → allowed (first_seen) for GPTBot',
    ]);
  });

  it('a different deciding line is a different line', () => {
    const flips = [flip('https://example.com/a', 'Bingbot'), flip('https://example.com/a', 'GPTBot', { ruleAfter: { line: 5, kind: 'disallow', value: '/a', pattern: '/a' } })];
    expect(flipLines(flips)).toHaveLength(2);
  });

  it('past the maximum: the number of flips left out', () => {
    const flips = ['a', 'b', 'c', 'd'].flatMap((p) => [flip(`https://example.com/${p}`, 'Bingbot'), flip(`https://example.com/${p}`, 'GPTBot')]);
    expect(flipLines(flips, 2)).toEqual([
      'https://example.com/a: allowed → disallowed (rules_changed, line 2: Disallow: /) for Bingbot, GPTBot',
      'https://example.com/b: allowed → disallowed (rules_changed, line 2: Disallow: /) for Bingbot, GPTBot',
      '… 4 more flips (--json lists them all)',
    ]);
  });
});

describe('history: usage flips under their night, beside the verdict flips', () => {
  const rule = (value: string) => ({ line: 3, mechanism: 'content-signal' as const, label: 'ai-train', value, since: '2026-03-02T03:00:00.000Z' });
  const usage = (agent: string, over: Partial<HistoryUsageFlip> = {}): HistoryUsageFlip => ({
    url: 'https://example.com/',
    agent,
    purpose: 'ai-train',
    from: 'allowed',
    to: 'refused',
    ruleBefore: rule('ai-train=yes'),
    ruleAfter: rule('ai-train=no'),
    ...over,
  });

  it.each<[string, HistoryUsageFlip[], string[]]>([
    [
      'agents told the same by the same line share a line',
      [usage('CCBot'), usage('GPTBot')],
      ['    changed: raw, records', '    usage flips: 2', '      https://example.com/: ai-train allowed → refused (line 3: Content-Signal: ai-train=no) for CCBot, GPTBot'],
    ],
    [
      'a preference stated no more names no line',
      [usage('GPTBot', { purpose: 'search', from: 'allowed', to: 'unknown', ruleAfter: null })],
      ['    changed: raw, records', '    usage flips: 1', '      https://example.com/: search allowed → unknown (no line) for GPTBot'],
    ],
  ])('%s', (_name, usageFlips, lines) => {
    const text = formatHistory({ site: SITE, totalNights: 1, nights: [nightOf('2026-03-02T03:00:00Z', { changes: ['raw', 'records'], usageFlips })] });
    expect(text.split('\n').slice(4, 4 + lines.length)).toEqual(lines);
    expect(historyJson({ site: SITE, totalNights: 1, nights: [nightOf('2026-03-02T03:00:00Z', { usageFlips })] }, 30).nights[0]!.usageFlips).toEqual(usageFlips);
  });
});

describe('formatHistory', () => {
  const history: SiteHistory = {
    site: SITE,
    totalNights: 40,
    nights: [
      nightOf('2026-03-02T03:00:00Z', {
        outcome: 'server_error',
        status: 503,
        policy: 'disallow_all',
        policyReason: 'R-13',
        changes: ['outcome', 'policy'],
        flips: [flip('https://example.com/', 'GPTBot', { cause: 'outcome_changed', ruleAfter: null })],
        alerts: [{ severity: 'critical', kind: 'site_unreachable', title: 'robots.txt unreachable' }],
      }),
      nightOf('2026-03-01T03:00:00Z'),
    ],
  };

  it('a row per night, newest first, and what happened under it', () => {
    expect(formatHistory(history)).toBe(
      [
        'https://example.com: 40 nights, the newest 2 shown, newest first',
        '',
        'NIGHT (UTC)        RUN                 OUTCOME           POLICY',
        '2026-03-02 03:00Z  nightly-2026-03-02  server_error 503  disallow_all (R-13)',
        '    changed: outcome, policy',
        '    flips: 1',
        '      https://example.com/: allowed → disallowed (outcome_changed) for GPTBot',
        '    alert critical site_unreachable: robots.txt unreachable',
        '2026-03-01 03:00Z  nightly-2026-03-01  ok 200            rules (R-10)',
        '',
      ].join('\n'),
    );
  });

  it('every night shown: no "newest N"', () => {
    expect(formatHistory({ ...history, totalNights: 2 }).split('\n')[0]).toBe('https://example.com: 2 nights, newest first');
  });

  it('no night', () => {
    expect(formatHistory({ site: SITE, totalNights: 0, nights: [] })).toBe('https://example.com: no nights yet (robots-audit audit runs one)\n');
  });

  it('the JSON: times as ISO strings, every key present', () => {
    const out = historyJson(history, 2);
    expect(Object.keys(out)).toEqual(['site', 'totalNights', 'limit', 'nights', 'pending']);
    expect(Object.keys(out.nights[0]!)).toEqual([
      'night',
      'runId',
      'runKey',
      'outcome',
      'status',
      'errorCode',
      'policy',
      'policyReason',
      'unreachableSince',
      'rulesNight',
      'rulesRunKey',
      'bodySha256',
      'bodyBytes',
      'flapping',
      'confirmSha256',
      'changes',
      'flips',
      'alerts',
      'usageFlips',
    ]);
    expect(out.nights[0]).toMatchObject({ night: '2026-03-02T03:00:00.000Z', unreachableSince: null, flips: [{ url: 'https://example.com/', agent: 'GPTBot', from: true, to: false }] });
  });
});
