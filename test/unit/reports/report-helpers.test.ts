/** The pure parts of the reports: --since dates, and which AI crawlers a root answer blocks. */
import { describe, expect, it } from 'vitest';
import { ReportInputError, countsBackFromLatestNight, parseSince } from '../../../src/reports/report-filters.js';
import { blockedCrawlers, describeBlocked } from '../../../src/reports/report-ai-access.js';
import type { AiCrawler } from '../../../src/reports/report-ai-access.js';

describe('parseSince', () => {
  const latest = new Date('2026-03-10T03:00:00Z');
  it.each([
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01T06:30:00Z', '2026-03-01T06:30:00.000Z'],
    ['2026-03-01T06:30+02:00', '2026-03-01T04:30:00.000Z'],
    ['2026-03-01T06:30', '2026-03-01T06:30:00.000Z'],
    ['2026-03-01T06:30:00.250Z', '2026-03-01T06:30:00.250Z'],
    ['7d', '2026-03-03T03:00:00.000Z'],
    ['0d', '2026-03-10T03:00:00.000Z'],
    [' 2026-03-01 ', '2026-03-01T00:00:00.000Z'],
  ])('%j → %s', (text, iso) => {
    expect(parseSince(text, latest).toISOString()).toBe(iso);
  });

  it.each(['2026-02-30', '2026-13-01', '2026-3-1', '2026-03-01T25:30', 'yesterday', '7', '-7d', '', '2026-03-01 06:30Z'])('%j is refused', (text) => {
    expect(() => parseSince(text, latest)).toThrow(ReportInputError);
  });

  it.each([
    ['7d', true],
    [' 30d ', true],
    ['2026-03-01', false],
    ['2026-03-01T06:30:00Z', false],
    ['yesterday', false],
    [undefined, false],
  ])('%j needs the latest night: %s', (text, needed) => {
    expect(countsBackFromLatestNight(text)).toBe(needed);
  });
});

describe('blockedCrawlers (R-40: a crawler without its own group follows *)', () => {
  const crawlers: AiCrawler[] = [
    { token: 'CCBot', category: 'ai-training' },
    { token: 'GPTBot', category: 'ai-training' },
    { token: 'OAI-SearchBot', category: 'ai-search' },
    { token: 'ChatGPT-User', category: 'ai-assistant' },
  ];
  const names = (list: AiCrawler[]) => list.map((c) => c.token);
  it.each([
    ['allow_all (4xx)', { policy: 'allow_all', starAllowed: false, exceptions: { gptbot: false } }, []],
    ['disallow_all (5xx)', { policy: 'disallow_all', starAllowed: true, exceptions: {} }, ['CCBot', 'GPTBot', 'OAI-SearchBot', 'ChatGPT-User']],
    ['rules, * open, GPTBot closed', { policy: 'rules', starAllowed: true, exceptions: { gptbot: false, googlebot: false } }, ['GPTBot']],
    ['rules, * closed, OAI-SearchBot open', { policy: 'rules', starAllowed: false, exceptions: { 'oai-searchbot': true } }, ['CCBot', 'GPTBot', 'ChatGPT-User']],
    ['rules, * open, no exceptions', { policy: 'rules', starAllowed: true, exceptions: {} }, []],
  ])('%s', (_name, access, expected) => {
    expect(names(blockedCrawlers(access, crawlers))).toEqual(expected);
  });

  it.each([
    [[], null],
    [['GPTBot'], 'GPTBot'],
    [['CCBot', 'GPTBot'], 'CCBot, GPTBot'],
    [['CCBot', 'GPTBot', 'ChatGPT-User'], 'all 4 but OAI-SearchBot'],
    [['CCBot', 'GPTBot', 'OAI-SearchBot', 'ChatGPT-User'], 'all 4'],
  ] as [string[], string | null][])('describeBlocked %j → %j', (blocked, text) => {
    expect(describeBlocked(crawlers.filter((c) => blocked.includes(c.token)), crawlers)).toBe(text);
  });
});
