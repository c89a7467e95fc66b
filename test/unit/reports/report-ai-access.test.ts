/**
 * `report ai-access`: a root verdict stored under an AI crawler's own parser, in words, with the
 * profile and whether that parser is known or assumed (docs/crawlers.md, "Where parser verdicts
 * are shown").
 */
import { describe, expect, it } from 'vitest';
import { parserVerdictCell } from '../../../src/reports/report-ai-access.js';

describe('parserVerdictCell', () => {
  it.each([
    [{ token: 'CCBot', profile: 'crawler-commons', allowed: true }, 'CCBot: allowed under crawler-commons (crawler-commons 1.4+, assumed)'],
    [{ token: 'Scrapy', profile: 'scrapy-protego-0.7', allowed: false }, 'Scrapy: disallowed under scrapy-protego-0.7 (Protego 0.7.0, known)'],
    // A verdict stored under the profile Scrapy had before (Protego 0.2.1): assumed now, its version named.
    [{ token: 'Scrapy', profile: 'scrapy-protego', allowed: false }, 'Scrapy: disallowed under scrapy-protego (Protego 0.2.1, assumed)'],
    [{ token: 'Nutch', profile: 'crawler-commons', allowed: false }, 'Nutch: disallowed under crawler-commons (crawler-commons 1.4+, known)'],
  ])('%j', (v, text) => {
    expect(parserVerdictCell(v)).toBe(text);
  });
});
