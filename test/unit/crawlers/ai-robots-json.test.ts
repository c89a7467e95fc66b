/**
 * Importing ai.robots.txt's robots.json (src/crawlers/README.md, "Importing robots.json"): the
 * pinned real file, the mapping of its fields, and malformed files, with exact outcomes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { categoryOfAiRobotsEntry, operatorOfAiRobotsEntry, parseAiRobotsJson } from '../../../src/crawlers/index.js';
import type { CrawlerCategory } from '../../../src/crawlers/index.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/crawlers/ai-robots-txt.robots.json');
const realFile = () => fs.readFileSync(FIXTURE, 'utf8');

const NOT_A_TOKEN = (name: string, read: string) =>
  `not a product token: only letters, "-" and "_" may name a crawler (T14), and Google reads "User-agent: ${name}" as ${read} (T16, C10)`;
const SAME_TOKEN = (first: string) => `the same token as "${first}" above: user-agent names compare case-insensitively (R-41, T15)`;

describe('the real robots.json (ai.robots.txt 738c80df2169)', () => {
  const { entries, skipped } = parseAiRobotsJson(realFile());

  it('imports 142 of its 166 names and skips 24', () => {
    expect(Object.keys(JSON.parse(realFile()) as object)).toHaveLength(166);
    expect(entries).toHaveLength(142);
    expect(skipped).toHaveLength(24);
  });

  it('T14, T16, C10: skips every name a User-agent line cannot name whole; R-41, T15: and second spellings', () => {
    expect(skipped).toEqual([
      { name: 'AI2Bot', reason: NOT_A_TOKEN('AI2Bot', '"ai"') },
      { name: 'AI2Bot-DeepResearchEval', reason: NOT_A_TOKEN('AI2Bot-DeepResearchEval', '"ai"') },
      { name: 'Ai2Bot-Dolma', reason: NOT_A_TOKEN('Ai2Bot-Dolma', '"ai"') },
      { name: 'bigsur.ai', reason: NOT_A_TOKEN('bigsur.ai', '"bigsur"') },
      { name: 'Brightbot 1.0', reason: `${NOT_A_TOKEN('Brightbot 1.0', '"brightbot"')}, a token the list names as "Brightbot"` },
      { name: 'Channel3Bot', reason: NOT_A_TOKEN('Channel3Bot', '"channel"') },
      { name: 'ChatGPT Agent', reason: NOT_A_TOKEN('ChatGPT Agent', '"chatgpt"') },
      { name: 'Crawl4AI', reason: NOT_A_TOKEN('Crawl4AI', '"crawl"') },
      { name: 'Datenbank Crawler', reason: NOT_A_TOKEN('Datenbank Crawler', '"datenbank"') },
      { name: 'Echobot Bot', reason: NOT_A_TOKEN('Echobot Bot', '"echobot"') },
      { name: 'iaskspider/2.0', reason: `${NOT_A_TOKEN('iaskspider/2.0', '"iaskspider"')}, a token the list names as "iaskspider"` },
      { name: 'img2dataset', reason: NOT_A_TOKEN('img2dataset', '"img"') },
      { name: 'Kangaroo Bot', reason: NOT_A_TOKEN('Kangaroo Bot', '"kangaroo"') },
      { name: 'Linguee Bot', reason: NOT_A_TOKEN('Linguee Bot', '"linguee"') },
      { name: 'Meta-ExternalAgent', reason: SAME_TOKEN('meta-externalagent') },
      { name: 'Meta-ExternalFetcher', reason: SAME_TOKEN('meta-externalfetcher') },
      { name: 'MistralAI-User/1.0', reason: `${NOT_A_TOKEN('MistralAI-User/1.0', '"mistralai-user"')}, a token the list names as "MistralAI-User"` },
      { name: 'netEstate Imprint Crawler', reason: NOT_A_TOKEN('netEstate Imprint Crawler', '"netestate"') },
      { name: 'panscient.com', reason: `${NOT_A_TOKEN('panscient.com', '"panscient"')}, a token the list names as "Panscient"` },
      { name: 'Poseidon Research Crawler', reason: NOT_A_TOKEN('Poseidon Research Crawler', '"poseidon"') },
      { name: 'quillbot.com', reason: `${NOT_A_TOKEN('quillbot.com', '"quillbot"')}, a token the list names as "QuillBot"` },
      { name: 'Sidetrade indexer bot', reason: NOT_A_TOKEN('Sidetrade indexer bot', '"sidetrade"') },
      { name: 'Terra Cotta', reason: NOT_A_TOKEN('Terra Cotta', '"terra"') },
      { name: 'webzio-extended', reason: SAME_TOKEN('Webzio-Extended') },
    ]);
  });

  it('files them by category: 85 ai-training, 17 ai-search, 40 ai-assistant', () => {
    const count: Partial<Record<CrawlerCategory, number>> = {};
    for (const e of entries) count[e.category] = (count[e.category] ?? 0) + 1;
    expect(count).toEqual({ 'ai-training': 85, 'ai-search': 17, 'ai-assistant': 40 });
  });

  it.each([
    ['GPTBot', { operator: 'OpenAI', category: 'ai-training', url: 'https://openai.com' }],
    ['ChatGPT-User', { operator: 'OpenAI', category: 'ai-assistant', url: 'https://openai.com' }],
    ['OAI-SearchBot', { operator: 'OpenAI', category: 'ai-search', url: 'https://openai.com' }],
    ['cohere-ai', { operator: 'Cohere', category: 'ai-assistant', url: 'https://cohere.com' }],
    ['Bravebot', { operator: 'Unknown', category: 'ai-training', url: 'https://safe.search.brave.com/help/brave-search-crawler' }],
    ['kagi-fetcher', { operator: 'Kagi', category: 'ai-assistant' }],
    ['Amazonbot', { operator: 'Amazon', category: 'ai-training' }],
    ['YouBot', { operator: 'You', category: 'ai-search', url: 'https://about.you.com/youchat/' }],
    ['Lightpanda', { operator: 'Anyone who downloads the Lightpanda client', category: 'ai-training' }],
  ])('%s', (token, expected) => {
    const entry = entries.find((e) => e.token === token);
    expect(entry).toBeDefined();
    const { description, ...rest } = entry!;
    expect(rest).toEqual({ token, ...expected });
    expect(description).toBe((JSON.parse(realFile()) as Record<string, { description: string }>)[token]?.description);
  });

  it('keeps the file order', () => {
    expect(entries.slice(0, 4).map((e) => e.token)).toEqual(['AddSearchBot', 'AgentTimes', 'aiHitBot', 'AIWebIndex']);
  });
});

describe('category: the first rule that applies', () => {
  it.each<[string, string | undefined, string | undefined, CrawlerCategory]>([
    // 1. the list's own labels, case-insensitive, final dot dropped
    ['label', 'AI Assistants', undefined, 'ai-assistant'],
    ['label', 'AI Agents', undefined, 'ai-assistant'],
    ['label', 'AI Coding Agents', undefined, 'ai-assistant'],
    ['label', 'AI Search Crawlers', undefined, 'ai-search'],
    ['label', 'AI Data Scrapers', undefined, 'ai-training'],
    ['label', 'AI Data Providers', undefined, 'ai-training'],
    ['label', 'Undocumented AI Agents', undefined, 'ai-training'],
    ['label', '  ai search crawlers. ', undefined, 'ai-search'],
    ['label before frequency', 'AI Search Crawlers', 'Only when prompted by a user.', 'ai-search'],
    // 2. user-triggered, in function or frequency
    ['user-triggered', 'Retrieves data to provide responses to user-initiated prompts.', undefined, 'ai-assistant'],
    ['user-triggered', 'Takes action based on user prompts.', undefined, 'ai-assistant'],
    ['user-triggered', 'Crawls sites to provide answers to user queries.', undefined, 'ai-assistant'],
    ['user-triggered', 'Fetches pages on behalf of its users.', undefined, 'ai-assistant'],
    ['user-triggered', 'Unclear at this time.', 'Only when prompted by a user.', 'ai-assistant'],
    ['user-triggered before search', 'Answers user queries with search results.', undefined, 'ai-assistant'],
    // 3. search
    ['search', 'Search result generation.', undefined, 'ai-search'],
    ['search', 'Collects data for AI natural language search', undefined, 'ai-search'],
    ['not a word: research', 'AI research crawler', undefined, 'ai-training'],
    // 4. everything else
    ['else', "Scrapes data to train OpenAI's products.", undefined, 'ai-training'],
    ['else', 'Unclear at this time.', 'No information.', 'ai-training'],
    ['missing', undefined, undefined, 'ai-training'],
  ])('%s: %j, frequency %j -> %s', (_rule, fn, frequency, expected) => {
    expect(categoryOfAiRobotsEntry({ function: fn, frequency })).toBe(expected);
  });
});

describe('operator', () => {
  it.each<[string | undefined, { operator: string; url?: string }]>([
    ['[OpenAI](https://openai.com)', { operator: 'OpenAI', url: 'https://openai.com' }],
    [' [Common Crawl Foundation](https://commoncrawl.org) ', { operator: 'Common Crawl Foundation', url: 'https://commoncrawl.org' }],
    ['https://brightdata.com/brightbot', { operator: 'Unknown', url: 'https://brightdata.com/brightbot' }],
    ['Unclear at this time.', { operator: 'Unknown' }],
    ['Unknown', { operator: 'Unknown' }],
    ['No information provided.', { operator: 'Unknown' }],
    ['', { operator: 'Unknown' }],
    [undefined, { operator: 'Unknown' }],
    ['Amazon', { operator: 'Amazon' }],
    ['Meta/Facebook', { operator: 'Meta/Facebook' }],
    ['Amazon, used for fetching web content', { operator: 'Amazon' }],
    ['Kagi that fetches web content', { operator: 'Kagi' }],
    ['Cohere to download training data', { operator: 'Cohere' }],
    ['Naget Inc (founded by someone)', { operator: 'Naget Inc' }],
    ['Anyone who downloads the client. Possibly [someone](https://x.example)', { operator: 'Anyone who downloads the client' }],
    ['Possibly [someone](https://x.example) else', { operator: 'Possibly [someone](https://x.example) else' }],
  ])('%j', (value, expected) => {
    expect(operatorOfAiRobotsEntry(value)).toEqual(expected);
  });
});

describe('malformed files: one Error naming the problem, nothing returned', () => {
  it.each([
    ['not JSON', 'GPTBot: OpenAI', /^robots\.json is not JSON: /],
    ['empty text', '', /^robots\.json is not JSON: /],
    ['truncated', '{"GPTBot": {"operator": "OpenAI"', /^robots\.json is not JSON: /],
    ['an array instead of an object', '[{"GPTBot": {}}]', /^robots\.json must be a JSON object that maps each crawler name to an object of facts; its top level is an array$/],
    ['null', 'null', /its top level is null$/],
    ['a string', '"GPTBot"', /its top level is a string$/],
    ['a number', '42', /its top level is a number$/],
    ['an entry that is a string', '{"GPTBot": "OpenAI"}', /^robots\.json: the entry "GPTBot" is a string; every entry must be an object of facts$/],
    ['an entry that is null', '{"GPTBot": null}', /^robots\.json: the entry "GPTBot" is null; every entry/],
    ['an entry that is an array', '{"GPTBot": ["OpenAI"]}', /^robots\.json: the entry "GPTBot" is an array; every entry/],
    ['a field that is not a string', '{"GPTBot": {"operator": 5}}', /^robots\.json: the entry "GPTBot" has "operator" as a number; it must be a string$/],
    ['respect as a boolean', '{"GPTBot": {"respect": true}}', /^robots\.json: the entry "GPTBot" has "respect" as a boolean; it must be a string$/],
    ['a description that is an object', '{"GPTBot": {"description": {}}}', /the entry "GPTBot" has "description" as an object/],
    ['a bad entry after good ones', '{"GPTBot": {}, "ClaudeBot": {}, "CCBot": 1}', /^robots\.json: the entry "CCBot" is a number; every entry/],
    ['a bad entry after an invalid name', '{"Foo Bar": {}, "CCBot": 1}', /the entry "CCBot" is a number/],
  ])('%s', (_case, text, message) => {
    expect(() => parseAiRobotsJson(text)).toThrow(message);
  });
});

describe('valid files with gaps', () => {
  it('an empty object imports nothing', () => {
    expect(parseAiRobotsJson('{}')).toEqual({ entries: [], skipped: [] });
  });
  it('missing fields: Unknown operator, ai-training, no description, no url', () => {
    expect(parseAiRobotsJson('{"GPTBot": {}}')).toEqual({ entries: [{ token: 'GPTBot', operator: 'Unknown', category: 'ai-training' }], skipped: [] });
  });
  it('some fields: each used alone', () => {
    const text = JSON.stringify({ HelperBot: { function: 'AI Assistants' }, SayBot: { description: '  Says things.  ' }, EmptyBot: { description: '', operator: '' } });
    expect(parseAiRobotsJson(text).entries).toEqual([
      { token: 'HelperBot', operator: 'Unknown', category: 'ai-assistant' },
      { token: 'SayBot', operator: 'Unknown', category: 'ai-training', description: 'Says things.' },
      { token: 'EmptyBot', operator: 'Unknown', category: 'ai-training' },
    ]);
  });
  it('fields it does not know are ignored, whatever their type', () => {
    const text = JSON.stringify({ CodeBot: { has_name_and_version: true, extra: [1], operator: '[Acme](https://acme.example)' } });
    expect(parseAiRobotsJson(text).entries).toEqual([{ token: 'CodeBot', operator: 'Acme', category: 'ai-training', url: 'https://acme.example' }]);
  });
});

describe('names: T14 product tokens only, R-41/T15 one spelling each', () => {
  it('skips names a User-agent line cannot name whole, saying what Google reads (T16, C10)', () => {
    const text = JSON.stringify({ 'Foo Bar': {}, 'Foo/1.0': {}, 'foo.com': {}, bot2: {}, '2bot': {}, '': {}, ' Foo': {}, 'Fö': {}, 'Foo*': {}, Foo: {} });
    const { entries, skipped } = parseAiRobotsJson(text);
    expect(entries.map((e) => e.token)).toEqual(['Foo']);
    const also = ', a token the list names as "Foo"';
    expect(skipped).toEqual([
      { name: 'Foo Bar', reason: NOT_A_TOKEN('Foo Bar', '"foo"') + also },
      { name: 'Foo/1.0', reason: NOT_A_TOKEN('Foo/1.0', '"foo"') + also },
      { name: 'foo.com', reason: NOT_A_TOKEN('foo.com', '"foo"') + also },
      { name: 'bot2', reason: NOT_A_TOKEN('bot2', '"bot"') },
      { name: '2bot', reason: NOT_A_TOKEN('2bot', 'an empty name') },
      { name: '', reason: 'an empty name is not a product token (T14)' },
      { name: ' Foo', reason: NOT_A_TOKEN(' Foo', '"foo"') + also },
      { name: 'Fö', reason: NOT_A_TOKEN('Fö', '"f"') },
      { name: 'Foo*', reason: NOT_A_TOKEN('Foo*', '"foo"') + also },
    ]);
  });
  it('keeps the first spelling of a token and skips the others', () => {
    const { entries, skipped } = parseAiRobotsJson(JSON.stringify({ FooBot: { operator: 'A' }, foobot: { operator: 'B' }, BarBot: {}, FOOBOT: {} }));
    expect(entries.map((e) => [e.token, e.operator])).toEqual([
      ['FooBot', 'A'],
      ['BarBot', 'Unknown'],
    ]);
    expect(skipped).toEqual([
      { name: 'foobot', reason: SAME_TOKEN('FooBot') },
      { name: 'FOOBOT', reason: SAME_TOKEN('FooBot') },
    ]);
  });
  it('C12: case folding is ASCII-only, so the Kelvin sign is not a k', () => {
    const { entries, skipped } = parseAiRobotsJson(JSON.stringify({ kBot: {}, '\u212ABot': {} }));
    expect(entries.map((e) => e.token)).toEqual(['kBot']);
    expect(skipped.map((s) => s.name)).toEqual(['\u212ABot']);
  });
});
