/** Crawler categories and the families the alert rules read (src/crawlers/README.md, "Categories"). */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CRAWLER_CATEGORIES, CRAWLER_FAMILIES, familyOfCategory, isAiCategory, isCrawlerCategory } from '../../../src/crawlers/index.js';
import type { CrawlerCategory, CrawlerFamily } from '../../../src/crawlers/index.js';
import { AGENT_FAMILIES } from '../../../src/night/vocabulary.js';
import type { AgentFamily } from '../../../src/night/vocabulary.js';

describe('familyOfCategory', () => {
  it.each<[CrawlerCategory, CrawlerFamily]>([
    ['search', 'search'],
    ['ai-training', 'ai'],
    ['ai-search', 'ai'],
    ['ai-assistant', 'ai'],
    ['seo', 'seo'],
    ['social', 'social'],
    ['archive', 'other'],
    ['other', 'other'],
  ])('%s -> %s', (category, family) => {
    expect(familyOfCategory(category)).toBe(family);
  });
  it('the table above covers every category', () => {
    expect(CRAWLER_CATEGORIES).toEqual(['search', 'ai-training', 'ai-search', 'ai-assistant', 'seo', 'social', 'archive', 'other']);
  });
});

describe('the families are those of the database and the alert rules', () => {
  it('same names as AGENT_FAMILIES, in the same order', () => {
    expect([...CRAWLER_FAMILIES]).toEqual([...AGENT_FAMILIES]);
  });
  it('same type as the alert rules\' AgentFamily (checked by npm run typecheck)', () => {
    expectTypeOf<CrawlerFamily>().toEqualTypeOf<AgentFamily>();
  });
});

describe('isAiCategory and isCrawlerCategory', () => {
  it.each<[CrawlerCategory, boolean]>([
    ['ai-training', true],
    ['ai-search', true],
    ['ai-assistant', true],
    ['search', false],
    ['seo', false],
    ['social', false],
    ['archive', false],
    ['other', false],
  ])('isAiCategory(%s) is %s', (category, ai) => {
    expect(isAiCategory(category)).toBe(ai);
  });
  it.each([
    ['search', true],
    ['ai-assistant', true],
    ['ai', false],
    ['Search', false],
    ['', false],
  ])('isCrawlerCategory(%j) is %s', (value, known) => {
    expect(isCrawlerCategory(value)).toBe(known);
  });
});
