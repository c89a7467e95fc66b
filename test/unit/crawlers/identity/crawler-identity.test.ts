/**
 * The shipped verification methods (src/crawlers/identity/crawler-identity.json): every fact
 * sourced and dated, every token a catalogue crawler, every range source named and used.
 */
import { describe, expect, it } from 'vitest';
import { findCrawler } from '../../../../src/crawlers/index.js';
import { CRAWLER_IDENTITIES, CRAWLER_IDENTITY_READ, RANGE_SOURCES, findCrawlerIdentity, identityMethodsOf } from '../../../../src/crawlers/identity/index.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const HTTPS = /^https:\/\/[^\s]+$/;
const SOURCE_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const DOMAIN = /^([a-z0-9-]+\.)+[a-z]{2,}$/;

describe('the shipped file is well-formed', () => {
  it('compiled on a date', () => {
    expect(CRAWLER_IDENTITY_READ).toMatch(DATE);
  });

  it('every range source has a name, an operator, the https URL of its file, and the page and day that name it', () => {
    const problems = [...RANGE_SOURCES.entries()].flatMap(([key, s]) => [
      ...(key === s.name && SOURCE_NAME.test(s.name) ? [] : [`${key}: name ${s.name}`]),
      ...(s.operator.length > 0 ? [] : [`${s.name}: operator`]),
      ...(HTTPS.test(s.url) && s.url.endsWith('.json') ? [] : [`${s.name}: url ${s.url}`]),
      ...(HTTPS.test(s.source) ? [] : [`${s.name}: source ${s.source}`]),
      ...(DATE.test(s.read) ? [] : [`${s.name}: read ${s.read}`]),
    ]);
    expect(problems).toEqual([]);
  });

  it('every token is a catalogue crawler, spelt as the catalogue spells it, once', () => {
    const problems = CRAWLER_IDENTITIES.flatMap((e) => {
      const c = findCrawler(e.token);
      if (c === null) return [`${e.token}: not in the catalogue`];
      return c.token === e.token ? [] : [`${e.token}: the catalogue spells it ${c.token}`];
    });
    expect(problems).toEqual([]);
    expect(new Set(CRAWLER_IDENTITIES.map((e) => e.token.toLowerCase())).size).toBe(CRAWLER_IDENTITIES.length);
  });

  it('every fact has a source URL and the day it was read; ranges name known sources of the same operator; domains are domains', () => {
    const problems = CRAWLER_IDENTITIES.flatMap((e) => {
      const out: string[] = [];
      if (e.ranges === undefined && e.reverseDns === undefined) out.push(`${e.token}: no method`);
      for (const [name, f] of [['ranges', e.ranges], ['reverseDns', e.reverseDns]] as const) {
        if (f === undefined) continue;
        if (!HTTPS.test(f.source) || !DATE.test(f.read)) out.push(`${e.token}.${name}: source or read`);
        if (f.value.length === 0) out.push(`${e.token}.${name}: empty`);
      }
      const operator = findCrawler(e.token)?.operator;
      for (const name of e.ranges?.value ?? []) {
        const s = RANGE_SOURCES.get(name);
        if (s === undefined) out.push(`${e.token}: unknown range source ${name}`);
        else if (s.operator !== operator) out.push(`${e.token}: ${name} is ${s.operator}'s, the crawler ${String(operator)}'s`);
      }
      for (const d of e.reverseDns?.value ?? []) if (!DOMAIN.test(d)) out.push(`${e.token}: domain ${d}`);
      return out;
    });
    expect(problems).toEqual([]);
  });

  it('every range source is some crawler own', () => {
    const used = new Set(CRAWLER_IDENTITIES.flatMap((e) => e.ranges?.value ?? []));
    expect([...RANGE_SOURCES.keys()].filter((name) => !used.has(name))).toEqual([]);
  });
});

describe('identityMethodsOf', () => {
  it.each([
    ['Googlebot', ['googlebot'], ['googlebot.com', 'google.com', 'googleusercontent.com']],
    ['googlebot-image', ['googlebot'], ['googlebot.com', 'google.com', 'googleusercontent.com']],
    ['AdsBot-Google', ['google-special-crawlers'], ['googlebot.com', 'google.com', 'googleusercontent.com']],
    ['Feedfetcher-Google', ['google-user-triggered-fetchers', 'google-user-triggered-fetchers-google', 'google-user-triggered-agents'], ['googlebot.com', 'google.com', 'googleusercontent.com']],
    ['bingbot', [], ['search.msn.com']],
    ['GPTBot', ['gptbot'], []],
    ['OAI-SearchBot', ['oai-searchbot'], []],
    ['ChatGPT-User', ['chatgpt-user'], []],
    ['Applebot', ['applebot'], ['applebot.apple.com']],
    ['PerplexityBot', ['perplexitybot'], []],
    ['Perplexity-User', ['perplexity-user'], []],
    ['CCBot', ['ccbot'], []],
  ])('%s: ranges %j, reverse DNS %j', (token, ranges, reverseDns) => {
    const methods = identityMethodsOf(token);
    expect(methods?.ranges.map((r) => r.name)).toEqual(ranges);
    expect(methods?.reverseDns).toEqual(reverseDns);
  });

  it('gives the official URL and operator of each range source', () => {
    expect(identityMethodsOf('GPTBot')?.ranges).toEqual([{ name: 'gptbot', url: 'https://openai.com/gptbot.json', operator: 'OpenAI' }]);
  });

  it.each(['ClaudeBot', 'Claude-User', 'Google-Extended', 'Applebot-Extended', 'NoSuchBot', ''])('%j: nothing published', (token) => {
    expect(identityMethodsOf(token)).toBeNull();
    expect(findCrawlerIdentity(token)).toBeNull();
  });
});
