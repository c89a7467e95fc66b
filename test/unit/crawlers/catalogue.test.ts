/**
 * The shipped crawler catalogue (src/crawlers/catalogue.json, README.md beside it): well-formed,
 * complete against its two sources, in agreement with the agent families, and found by token.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  AI_CATEGORIES,
  CRAWLER_CATEGORIES,
  catalogue,
  crawlersIn,
  familyOfCategory,
  findCrawler,
  isAiCategory,
  isCrawlerCategory,
  parseAiRobotsJson,
} from '../../../src/crawlers/index.js';
import type { CatalogueEntry } from '../../../src/crawlers/index.js';
import { KNOWN_AGENT_FAMILIES } from '../../../src/db/agent-families.js';
import { isValidUserAgentToObey } from '../../../src/robots/index.js';
import { loadUserAgents } from '../../helpers/corpus.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/crawlers/ai-robots-txt.robots.json');
const aiRobots = parseAiRobotsJson(fs.readFileSync(FIXTURE, 'utf8'));
const entries = catalogue();
const lower = (s: string) => s.toLowerCase();

describe('the shipped catalogue is well-formed', () => {
  it('has 294 entries, most relevant first', () => {
    expect(entries).toHaveLength(294);
    expect(entries.slice(0, 3).map((e) => e.token)).toEqual(['Googlebot', 'Googlebot-Image', 'Googlebot-News']);
  });
  it('T14: every token is a product token a User-agent line names whole', () => {
    expect(entries.filter((e) => !isValidUserAgentToObey(e.token)).map((e) => e.token)).toEqual([]);
  });
  it('R-41, T15: tokens are unique compared case-insensitively', () => {
    const seen = new Map<string, string>();
    const repeats: string[] = [];
    for (const e of entries) {
      const first = seen.get(lower(e.token));
      if (first !== undefined) repeats.push(`${first} / ${e.token}`);
      seen.set(lower(e.token), e.token);
    }
    expect(repeats).toEqual([]);
  });
  it('every category is known, every operator named or Unknown, and nothing else is stored', () => {
    const problems = entries.flatMap((e) => {
      const found: string[] = [];
      if (!isCrawlerCategory(e.category)) found.push(`${e.token}: category ${e.category}`);
      if (e.operator.trim() === '' || e.operator !== e.operator.trim()) found.push(`${e.token}: operator "${e.operator}"`);
      if (e.description !== undefined && (e.description.trim() === '' || e.description !== e.description.trim())) found.push(`${e.token}: description`);
      if (e.url !== undefined && !/^https?:\/\/[^\s]+$/.test(e.url)) found.push(`${e.token}: url ${e.url}`);
      const extra = Object.keys(e).filter((k) => !['token', 'operator', 'category', 'description', 'url'].includes(k));
      if (extra.length > 0) found.push(`${e.token}: fields ${extra.join(', ')}`);
      return found;
    });
    expect(problems).toEqual([]);
  });
  it('every category has crawlers', () => {
    expect(new Set(entries.map((e) => e.category))).toEqual(new Set(CRAWLER_CATEGORIES));
  });
  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(entries)).toBe(true);
    expect(() => {
      (entries[0] as { operator: string }).operator = 'Someone';
    }).toThrow(TypeError);
    expect(findCrawler('Googlebot')?.operator).toBe('Google');
  });
});

describe('ai.robots.txt (test/fixtures/crawlers, 738c80df2169)', () => {
  it('every name that is a product token is in the catalogue, spelt as the list spells it', () => {
    const missing = aiRobots.entries.filter((e) => findCrawler(e.token)?.token !== e.token).map((e) => e.token);
    expect(missing).toEqual([]);
  });
  it('no name the import skips is in the catalogue under that name', () => {
    expect(aiRobots.skipped.filter((s) => entries.some((e) => e.token === s.name)).map((s) => s.name)).toEqual([]);
  });

  /** README "How the entries were made": the corpus's family decides for these search engines, previewer and library. */
  const CATEGORY_FROM_CORPUS: Record<string, string> = {
    GoogleOther: 'search',
    Applebot: 'search',
    PetalBot: 'search',
    Bravebot: 'search',
    ExaBot: 'search',
    facebookexternalhit: 'social',
    Scrapy: 'other',
  };
  it('the category is the import\'s, except where the corpus files the token outside AI', () => {
    const differ: Record<string, string> = {};
    for (const imported of aiRobots.entries) {
      const shipped = findCrawler(imported.token) as CatalogueEntry;
      if (shipped.category !== imported.category) differ[imported.token] = shipped.category;
    }
    expect(differ).toEqual(CATEGORY_FROM_CORPUS);
  });
  it('the operator is the import\'s, or filled in where the import has Unknown', () => {
    const changed = aiRobots.entries.filter((imported) => {
      const shipped = findCrawler(imported.token) as CatalogueEntry;
      return shipped.operator !== imported.operator && imported.operator !== 'Unknown';
    });
    expect(changed.map((e) => e.token)).toEqual([]);
    const filled = aiRobots.entries.filter((e) => e.operator === 'Unknown' && findCrawler(e.token)?.operator !== 'Unknown').length;
    expect(filled).toBe(29);
  });
  it('description and url are the import\'s', () => {
    const differ = aiRobots.entries.filter((imported) => {
      const shipped = findCrawler(imported.token) as CatalogueEntry;
      return shipped.description !== imported.description || shipped.url !== imported.url;
    });
    expect(differ.map((e) => e.token)).toEqual([]);
  });
});

describe('the user-agent corpus (test/fixtures/corpus/user-agents.json)', () => {
  const corpus = loadUserAgents();
  it('every token that is a product token is in the catalogue', () => {
    expect(corpus.filter((u) => isValidUserAgentToObey(u.token) && findCrawler(u.token) === null).map((u) => u.token)).toEqual([]);
  });
  it('T16, C10: the tokens left out are exactly those a User-agent line cuts short', () => {
    expect(corpus.filter((u) => findCrawler(u.token) === null).map((u) => u.token)).toEqual([
      '360Spider',
      'Mail.RU_Bot',
      'AI2Bot',
      'Ai2Bot-Dolma',
      'img2dataset',
      'Kangaroo Bot',
      'MJ12bot',
      'MegaIndex.ru',
      'SISTRIX Crawler',
      'Screaming Frog SEO Spider',
      'archive.org_bot',
      'AI2Bot-DeepResearchEval',
      'Channel3Bot',
      'Crawl4AI',
    ]);
  });
  it('the family of every token\'s category is its corpus family', () => {
    const differ = corpus.flatMap((u) => {
      const entry = findCrawler(u.token);
      return entry !== null && familyOfCategory(entry.category) !== u.family ? [`${u.token}: ${entry.category}, corpus ${u.family}`] : [];
    });
    expect(differ).toEqual([]);
  });
  it('tokens on neither list are the corpus\'s', () => {
    const onLists = new Set([...corpus.map((u) => lower(u.token)), ...aiRobots.entries.map((e) => lower(e.token))]);
    expect(entries.filter((e) => !onLists.has(lower(e.token))).map((e) => e.token)).toEqual([]);
  });
});

describe('agent families (src/db/agent-families.ts) agree with the categories', () => {
  it('every family the table gives a product token is the family of its category', () => {
    const differ = [...KNOWN_AGENT_FAMILIES].flatMap(([token, family]) => {
      const entry = findCrawler(token);
      if (entry === null) return isValidUserAgentToObey(token) ? [`${token}: not in the catalogue`] : [];
      return familyOfCategory(entry.category) === family ? [] : [`${token}: ${entry.category}, table ${family}`];
    });
    expect(differ).toEqual([]);
  });
  it('the tokens of the table that are not product tokens (T16, C10)', () => {
    expect([...KNOWN_AGENT_FAMILIES.keys()].filter((t) => findCrawler(t) === null)).toEqual(['mj12bot', 'archive.org_bot']);
  });
});

describe('findCrawler: R-41, T15 case-insensitive; T17, C30 compared whole; C12 ASCII folding', () => {
  it.each<[string, string | null]>([
    ['GPTBot', 'GPTBot'],
    ['gptbot', 'GPTBot'],
    ['GPTBOT', 'GPTBot'],
    ['googlebot-image', 'Googlebot-Image'],
    ['BRAVEBOT', 'Bravebot'],
    ['ia_archiver', 'ia_archiver'],
    ['GPTBot/1.1', null],
    [' GPTBot', null],
    ['GPTBot ', null],
    ['Mozilla/5.0 (compatible; GPTBot/1.1)', null],
    ['\u212Aagi-fetcher', null],
    ['kagi-fetcher', 'kagi-fetcher'],
    ['MJ12bot', null],
    ['*', null],
    ['', null],
    ['NoSuchBot', null],
  ])('%j -> %j', (token, expected) => {
    expect(findCrawler(token)?.token ?? null).toBe(expected);
  });
  it('returns the entry itself', () => {
    expect(findCrawler('chatgpt-user')).toEqual({
      token: 'ChatGPT-User',
      operator: 'OpenAI',
      category: 'ai-assistant',
      description:
        "ChatGPT-User is OpenAI's web crawler that visits websites when ChatGPT users request information. This enables ChatGPT to include links in its responses. More info can be found at https://knownagents.com/agents/chatgpt-user",
      url: 'https://openai.com',
    });
    expect(findCrawler('Googlebot')).toEqual({ token: 'Googlebot', operator: 'Google', category: 'search', url: 'http://www.google.com/bot.html' });
  });
});

describe('crawlersIn', () => {
  it('archive: the two archivers', () => {
    expect(crawlersIn(['archive']).map((e) => e.token)).toEqual(['ia_archiver', 'heritrix']);
  });
  it('the AI categories: every AI crawler, in catalogue order', () => {
    const ai = crawlersIn(AI_CATEGORIES);
    expect(ai).toHaveLength(135);
    expect(ai.every((e) => isAiCategory(e.category))).toBe(true);
    expect(ai.slice(0, 3).map((e) => e.token)).toEqual(['GPTBot', 'ChatGPT-User', 'OAI-SearchBot']);
  });
  it('no categories: nothing', () => {
    expect(crawlersIn([])).toEqual([]);
  });
});
