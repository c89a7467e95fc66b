/**
 * `report ai-access`: a root verdict stored under an AI crawler's own parser, in words, with the
 * profile and whether that parser is known or assumed (docs/crawlers.md, "Where parser verdicts
 * are shown").
 */
import { describe, expect, it } from 'vitest';
import { parserVerdictCell } from '../../../src/reports/report-ai-access.js';

describe('parserVerdictCell', () => {
  it.each([
    [{ token: 'CCBot', profile: 'crawler-commons', allowed: true }, 'CCBot: allowed under crawler-commons (assumed)'],
    [{ token: 'Scrapy', profile: 'scrapy-protego', allowed: false }, 'Scrapy: disallowed under scrapy-protego (known)'],
    [{ token: 'Nutch', profile: 'crawler-commons', allowed: false }, 'Nutch: disallowed under crawler-commons (known)'],
  ])('%j', (v, text) => {
    expect(parserVerdictCell(v)).toBe(text);
  });
});
