/**
 * The verdict under a crawler's own parser, shown where it differs from Google's
 * (src/crawlers/parser-verdicts.ts, docs/crawlers.md "Where parser verdicts are shown").
 */
import { describe, expect, it } from 'vitest';
import { ParserVerdictReader, otherParserOf, parserVerdictText } from '../../../src/crawlers/parser-verdicts.js';
import { isParserProfileName } from '../../../src/robots/profiles/index.js';

const enc = (s: string) => new TextEncoder().encode(s);
/** Valid rules, then a Latin-1 é: not UTF-8; Scrapy 2.14 drops the bad byte and reads the rules (Scrapy 2.8 read the body as empty). */
const LATIN1 = new Uint8Array([...enc('User-agent: *\nDisallow: /private\n# caf'), 0xe9, 0x0a]);

describe('which crawlers have a parser other than Google’s', () => {
  it.each([
    // The current releases are assumed (Scrapy 2.14, Protego 0.7.0): crawler-rules.json says why.
    ['Scrapy', { profile: 'scrapy-protego-0.7', basis: 'known' }],
    ['scrapy', { profile: 'scrapy-protego-0.7', basis: 'known' }],
    ['Googlebot', null],
    ['AdsBot-Google', null],
    ['GPTBot', null],
    ['Some-New_Bot', null],
  ])('%s: %j', (token, expected) => {
    const p = otherParserOf(token);
    if (expected === null) expect(p).toBeNull();
    else expect(p).toMatchObject(expected);
  });
  it.each([
    ['CCBot', 'assumed'],
    ['Nutch', 'known'],
  ])('%s (crawler-commons, %s) has a parser verdict exactly when the profile is implemented, looked up by name', (token, basis) => {
    const p = otherParserOf(token);
    expect(p).toEqual(isParserProfileName('crawler-commons') ? expect.objectContaining({ profile: 'crawler-commons', basis }) : null);
  });
});

describe('the differing verdict (null where the parsers agree)', () => {
  it.each([
    // Protego picks the group whose agent is the longest substring of the token; Google needs the whole token.
    ['a group named by a prefix of the token', enc('User-agent: scrap\nDisallow: /\n'), 'https://a.example/x', 'Scrapy', true, { allowed: false }],
    // Protego 0.7 allows /robots.txt itself, whatever the rules say (scrapy/protego#84).
    ['/robots.txt disallowed by the rules', enc('User-agent: *\nDisallow: /robots.txt\n'), 'https://a.example/robots.txt', 'Scrapy', false, { allowed: true }],
    // Google cuts the value at `/` (the group is `scrapy`); Protego 0.7 matches whole tokens.
    ['a group named with a version', enc('User-agent: Scrapy/2.14\nDisallow: /\n'), 'https://a.example/x', 'Scrapy', false, { allowed: true }],
    // Scrapy 2.14 drops the byte that is not UTF-8 and reads the rules as Google does.
    ['a body that is not UTF-8', LATIN1, 'https://a.example/private', 'Scrapy', false, null],
    ['the same body, a URL no rule matches', LATIN1, 'https://a.example/public', 'Scrapy', true, null],
    ['plain rules both read alike', enc('User-agent: *\nDisallow: /private\n'), 'https://a.example/private', 'Scrapy', false, null],
    ["a crawler on Google's parser", enc('User-agent: scrap\nDisallow: /\n'), 'https://a.example/x', 'Googlebot', true, null],
    ['a crawler whose parser is unknown', LATIN1, 'https://a.example/private', 'GPTBot', false, null],
  ])('%s', (_name, body, url, token, googleAllowed, expected) => {
    const v = new ParserVerdictReader(body).differing(url, token, googleAllowed);
    if (expected === null) expect(v).toBeNull();
    else expect(v).toMatchObject({ ...expected, profile: 'scrapy-protego-0.7', basis: 'known', line: null });
  });
  it('says which parser, and whether it is known or assumed', () => {
    const v = new ParserVerdictReader(enc('User-agent: *\nDisallow: /robots.txt\n')).differing('https://a.example/robots.txt', 'Scrapy', false)!;
    expect(parserVerdictText(false, v)).toBe("disallowed by Google's parser; allowed under scrapy-protego-0.7 (Protego 0.7.0, known)");
  });
});
