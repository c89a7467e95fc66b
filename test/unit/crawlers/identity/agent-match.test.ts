/**
 * The crawler a User-Agent claims (issue 29): product tokens whole (RFC 9309's [A-Za-z_-]),
 * ASCII case-insensitively, the longest winning; real headers of crawlers and browsers.
 */
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../../src/crawlers/index.js';
import { compileAgentMatcher } from '../../../../src/crawlers/identity/index.js';
import corpus from '../../../fixtures/corpus/user-agents.json' with { type: 'json' };

const claimedBy = compileAgentMatcher(catalogue().map((e) => e.token));

describe('real crawler headers claim their crawler, as the catalogue spells it', () => {
  it.each([
    ['Googlebot desktop', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36', 'Googlebot'],
    ['Googlebot smartphone', 'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot'],
    ['Googlebot classic', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot'],
    ['Googlebot-Image', 'Googlebot-Image/1.0', 'Googlebot-Image'],
    ['AdsBot-Google-Mobile', 'Mozilla/5.0 (iPhone; CPU iPhone OS 14_7_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.1.2 Mobile/15E148 Safari/604.1 (compatible; AdsBot-Google-Mobile; +http://www.google.com/mobile/adsbot.html)', 'AdsBot-Google-Mobile'],
    ['Bingbot', 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'bingbot'],
    ['Bingbot, evergreen', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36', 'bingbot'],
    ['GPTBot', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot', 'GPTBot'],
    ['OAI-SearchBot', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36; compatible; OAI-SearchBot/1.3; +https://openai.com/searchbot', 'OAI-SearchBot'],
    ['ChatGPT-User', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot', 'ChatGPT-User'],
    ['ClaudeBot', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)', 'ClaudeBot'],
    ['PerplexityBot', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)', 'PerplexityBot'],
    ['Applebot', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)', 'Applebot'],
    ['CCBot', 'CCBot/2.0 (https://commoncrawl.org/faq/)', 'CCBot'],
  ])('%s', (_name, userAgent, token) => {
    expect(claimedBy(userAgent)).toBe(token);
  });

  it('every example header of the corpus claims its own token, but for headers that name a longer one', () => {
    // The corpus files some headers under a token they do not claim first; the longest wins.
    const LONGER_TOKEN_NAMED: Record<string, string> = {
      Sogou: 'Spider', // "Sogou Pic Spider/3.0"
      OpenAI: 'GPTBot', // a GPTBot header, OpenAI only in its URL
      Awario: 'AwarioRssBot',
      'Claude-Code': 'Claude-User', // "Claude-User (claude-code/2.1.86; ...)"
      NotebookLM: 'Google-NotebookLM',
      SentiBot: 'Googlebot', // "SentiBot www.sentibot.eu (compatible with Googlebot)"
    };
    const catalogued = new Set(catalogue().map((e) => e.token.toLowerCase()));
    const wrong = corpus
      .flatMap((c) => (c.full !== null && catalogued.has(c.token.toLowerCase()) ? [{ token: c.token, full: c.full }] : []))
      .filter((c) => claimedBy(c.full)?.toLowerCase() !== (LONGER_TOKEN_NAMED[c.token] ?? c.token).toLowerCase())
      .map((c) => `${c.token}: ${c.full} -> ${String(claimedBy(c.full))}`);
    expect(wrong).toEqual([]);
  });
});

describe('browsers claim nothing', () => {
  it.each([
    ['Chrome, Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'],
    ['Chrome, Android', 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'],
    ['Edge', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86'],
    ['Safari, macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15'],
    ['Safari, iPhone', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'],
    ['Firefox, Linux', 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'],
    ['Firefox, Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'],
    ['empty', ''],
  ])('%s', (_name, userAgent) => {
    expect(claimedBy(userAgent)).toBeNull();
  });
});

describe('a token stands whole in the header (RFC 9309 product-token characters)', () => {
  const match = compileAgentMatcher(['Googlebot', 'Googlebot-Image', 'bingbot', 'GPTBot', 'OpenAI']);
  it.each([
    ['the whole header', 'Googlebot', 'Googlebot'],
    ['before a version', 'Googlebot/2.1', 'Googlebot'],
    ['after a semicolon and a space', 'compatible; bingbot/2.0', 'bingbot'],
    ['in parentheses', '(Googlebot)', 'Googlebot'],
    ['before a comma', 'Googlebot,other', 'Googlebot'],
    ['any case (ASCII)', 'GOOGLEBOT/2.1', 'Googlebot'],
    ['after a digit', '5Googlebot', 'Googlebot'],
    ['longer run: a token character follows', 'Googlebot-Foo/1.0', null],
    ['longer run: a letter precedes', 'notbingbot/2.0', null],
    ['longer run: an underscore follows', 'bingbot_2', null],
    ['a longer token is more specific', 'Googlebot-Image/1.0 (compatible; Googlebot/2.1)', 'Googlebot-Image'],
    ['the longer wins wherever it stands', 'Googlebot/2.1 Googlebot-Image/1.0', 'Googlebot-Image'],
    ['of equal lengths, the first', 'compatible; GPTBot/1.3; +https://openai.com/gptbot', 'GPTBot'],
    ['non-ASCII around a token', 'éGooglebotü', 'Googlebot'],
    ['no ASCII folding of other letters', 'Googlebot\u0130', 'Googlebot'],
  ])('%s: %j', (_name, userAgent, token) => {
    expect(match(userAgent)).toBe(token);
  });

  it('refuses a token that could never stand whole', () => {
    expect(() => compileAgentMatcher(['Bot/1.0'])).toThrow(/not a product token/);
    expect(() => compileAgentMatcher([''])).toThrow(/not a product token/);
    expect(() => compileAgentMatcher(['bot2'])).toThrow(/not a product token/);
  });

  it('keeps the first spelling of a token listed twice', () => {
    expect(compileAgentMatcher(['GPTBot', 'gptbot'])('gptbot/1.0')).toBe('GPTBot');
  });

  it('an empty list claims nothing', () => {
    expect(compileAgentMatcher([])('Googlebot')).toBeNull();
  });
});
