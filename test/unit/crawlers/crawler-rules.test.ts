/**
 * The shipped crawler rules (src/crawlers/crawler-rules.json, docs/crawlers.md): well-formed,
 * every fact sourced and dated, every crawler in the catalogue, known kept apart from assumed.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CRAWLER_RULES, CRAWLER_RULES_READ, UNKNOWN_PARSER, findCrawler, findCrawlerRules, isBoundByRobotsTxt, parserOf } from '../../../src/crawlers/index.js';
import { PARSER_PROFILES } from '../../../src/robots/profiles/index.js';
import type { SourcedFact } from '../../../src/crawlers/index.js';
import { ENGINE_VERSION, isValidUserAgentToObey } from '../../../src/robots/index.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const URL_RE = /^https:\/\/[^\s]+$/;

function factProblems(token: string, name: string, f: SourcedFact<unknown> | undefined, values: readonly unknown[] | null): string[] {
  if (f === undefined) return [];
  const out: string[] = [];
  if (!URL_RE.test(f.source)) out.push(`${token}.${name}: source ${f.source}`);
  if (!DATE.test(f.read)) out.push(`${token}.${name}: read ${f.read}`);
  if (values !== null && !values.includes(f.value)) out.push(`${token}.${name}: value ${String(f.value)}`);
  const extra = Object.keys(f).filter((k) => !['value', 'source', 'read', 'says'].includes(k));
  if (extra.length > 0) out.push(`${token}.${name}: fields ${extra.join(', ')}`);
  return out;
}

describe('the shipped crawler rules are well-formed', () => {
  it('compiled on a date, with entries', () => {
    expect(CRAWLER_RULES_READ).toMatch(DATE);
    expect(CRAWLER_RULES.length).toBeGreaterThan(20);
  });
  it('every token is a catalogue crawler, spelt as the catalogue spells it, once (R-41, T14)', () => {
    const problems = CRAWLER_RULES.flatMap((e) => {
      const c = findCrawler(e.token);
      if (!isValidUserAgentToObey(e.token)) return [`${e.token}: not a product token`];
      if (c === null) return [`${e.token}: not in the catalogue`];
      return c.token === e.token ? [] : [`${e.token}: the catalogue spells it ${c.token}`];
    });
    expect(problems).toEqual([]);
    expect(new Set(CRAWLER_RULES.map((e) => e.token.toLowerCase())).size).toBe(CRAWLER_RULES.length);
  });
  it('every fact has a source URL and the date it was read, and a known value', () => {
    const problems = CRAWLER_RULES.flatMap((e) => [
      ...factProblems(e.token, 'furtherTokens', e.furtherTokens, null),
      ...factProblems(e.token, 'starGroup', e.starGroup, ['reads', 'ignores']),
      ...factProblems(e.token, 'robotsTxt', e.robotsTxt, ['honours', 'ignores', 'may-ignore']),
      ...Object.keys(e)
        .filter((k) => !['token', 'furtherTokens', 'starGroup', 'robotsTxt', 'parser'].includes(k))
        .map((k) => `${e.token}: field ${k}`),
    ]);
    expect(problems).toEqual([]);
  });
  it('further tokens are product tokens other than the crawler own', () => {
    const problems = CRAWLER_RULES.flatMap((e) =>
      (e.furtherTokens?.value ?? []).filter((t) => !isValidUserAgentToObey(t) || t.toLowerCase() === e.token.toLowerCase()).map((t) => `${e.token}: ${t}`),
    );
    expect(problems).toEqual([]);
  });
  it('a parser is known or assumed with a source, or unknown without one; its profile is one of the contract names', () => {
    const problems = CRAWLER_RULES.flatMap((e) => {
      const p = e.parser;
      const out: string[] = [];
      if (!DATE.test(p.read)) out.push(`${e.token}: parser read ${p.read}`);
      if (p.basis === 'unknown') {
        if (p.profile !== 'unknown' || p.source !== null) out.push(`${e.token}: an unknown parser names ${p.profile} / ${p.source}`);
      } else {
        if (!(PARSER_PROFILES as readonly string[]).includes(p.profile)) out.push(`${e.token}: profile ${p.profile}`);
        if (p.source === null || !URL_RE.test(p.source)) out.push(`${e.token}: parser source ${p.source}`);
        if (!['known', 'assumed'].includes(p.basis)) out.push(`${e.token}: basis ${p.basis}`);
      }
      return out;
    });
    expect(problems).toEqual([]);
    expect(PARSER_PROFILES).toEqual(['google', 'python-urllib', 'python-urllib-rfc9309', 'scrapy-protego', 'scrapy-protego-0.7', 'node-robots-parser', 'crawler-commons']);
  });
});

describe('what the operators document', () => {
  it.each([
    ['Googlebot-Image', ['Googlebot']],
    ['Googlebot-News', ['Googlebot']],
    ['Googlebot-Video', ['Googlebot']],
    ['Google-InspectionTool', ['Googlebot']],
    ['GoogleOther-Image', ['GoogleOther']],
    ['GoogleOther-Video', ['GoogleOther']],
    ['Applebot', ['Googlebot']],
  ])('%s also answers to %j', (token, further) => {
    expect(findCrawlerRules(token)?.furtherTokens?.value).toEqual(further);
  });
  it.each(['APIs-Google', 'AdsBot-Google', 'AdsBot-Google-Mobile', 'Mediapartners-Google'])("%s ignores the * group (Google's special-case crawlers)", (token) => {
    expect(findCrawlerRules(token)?.starGroup).toMatchObject({ value: 'ignores', source: expect.stringContaining('special-case-crawlers') });
  });
  it.each([
    ['Feedfetcher-Google', 'ignores'],
    ['ChatGPT-User', 'may-ignore'],
    ['Perplexity-User', 'ignores'],
    ['GPTBot', 'honours'],
    ['Claude-User', 'honours'],
    ['Googlebot', 'honours'],
  ])('%s: robots.txt %s, in its operator words', (token, use) => {
    const f = findCrawlerRules(token)?.robotsTxt;
    expect(f?.value).toBe(use);
    if (use !== 'honours') expect(f?.says).toMatch(/robots\.txt/);
  });
  it.each([
    ['Googlebot', 'google', 'known'],
    ['AdsBot-Google', 'google', 'known'],
    ['Feedfetcher-Google', 'google', 'assumed'],
    ['CCBot', 'crawler-commons', 'assumed'],
    ['Scrapy', 'scrapy-protego-0.7', 'known'],
    ['Nutch', 'crawler-commons', 'known'],
    ['GPTBot', 'unknown', 'unknown'],
    ['Applebot', 'unknown', 'unknown'],
  ])('%s parser: %s (%s)', (token, profile, basis) => {
    expect(parserOf(token)).toMatchObject({ profile, basis });
  });
  it('a crawler nobody documents: unknown parser, no entry; tokens compare case-insensitively (R-41)', () => {
    expect(findCrawlerRules('Some-New_Bot')).toBeNull();
    expect(parserOf('Some-New_Bot')).toBe(UNKNOWN_PARSER);
    expect(findCrawlerRules('adsbot-google')?.token).toBe('AdsBot-Google');
  });
});

describe('the group facts and the engine version', () => {
  it('a change to the facts that choose a group bumps ENGINE_VERSION (the nights re-evaluate every site once)', () => {
    const facts = CRAWLER_RULES.filter((e) => e.furtherTokens !== undefined || e.starGroup !== undefined).map((e) => [
      e.token.toLowerCase(),
      e.furtherTokens?.value.map((t) => t.toLowerCase()) ?? [],
      e.starGroup?.value ?? 'reads',
    ]);
    const digest = createHash('sha256').update(JSON.stringify(facts)).digest('hex').slice(0, 16);
    // When this fails: bump ENGINE_VERSION (src/robots/engine-version.ts), then update both values here.
    expect({ digest, ENGINE_VERSION }).toEqual({ digest: '31aa6176008d5fa3', ENGINE_VERSION: 3 });
  });
});

describe('isBoundByRobotsTxt: what a log judgement holds a crawler to', () => {
  it.each([
    ['GPTBot', true, 'honours'],
    ['Googlebot', true, 'honours'],
    ['Perplexity-User', false, 'ignores'],
    ['Feedfetcher-Google', false, 'ignores'],
    ['ChatGPT-User', false, 'may-ignore'],
    ['AdsBot-Google', true, 'no fact: bound'],
    ['SomeUnknownBot', true, 'not listed: bound'],
  ])('%s -> %s (%s)', (token, bound) => expect(isBoundByRobotsTxt(token)).toBe(bound));
});
