/**
 * Operators' IP range files and the sets they make (issue 29): every variant seen read, anything
 * else refused with the reason; IPv4 and IPv6 lookups; the real files of test/fixtures/crawler-ranges.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IpRangeSet, canonicalIp, parseIpAddress, parseRangeFile } from '../../../../src/crawlers/identity/index.js';

const FIXTURES = new URL('../../../fixtures/crawler-ranges/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

describe('parseRangeFile: the shapes operators publish', () => {
  it.each([
    ['six fractional digits, no zone (Google, OpenAI, Apple)', '{"creationTime": "2026-08-21T14:45:42.000000", "prefixes": [{"ipv4Prefix": "66.249.64.0/27"}]}', '2026-08-21T14:45:42.000Z'],
    ['non-zero microseconds (OpenAI chatgpt-user)', '{"creationTime": "2026-04-29T21:03:15.207621", "prefixes": [{"ipv4Prefix": "4.151.71.176/28"}]}', '2026-04-29T21:03:15.207Z'],
    ['Z, further keys (Common Crawl)', '{"synctoken": "1", "creationTime": "2026-08-04T12:40:20Z", "notes": "x", "prefixes": [{"ipv6Prefix": "2600:1f28:365:8000::/56"}]}', '2026-08-04T12:40:20.000Z'],
    ['an offset', '{"creationTime": "2026-08-04T14:40:20+02:00", "prefixes": [{"ipv4Prefix": "1.2.3.0/24"}]}', '2026-08-04T12:40:20.000Z'],
    ['Google syncToken', '{"syncToken": "1724251542000", "creationTime": "2026-08-21T14:45:42.000000", "prefixes": [{"ipv4Prefix": "1.2.3.0/24"}]}', '2026-08-21T14:45:42.000Z'],
    ['no creationTime', '{"prefixes": [{"ipv4Prefix": "1.2.3.0/24"}]}', null],
    ['creationTime null', '{"creationTime": null, "prefixes": [{"ipv4Prefix": "1.2.3.0/24"}]}', null],
  ])('%s', (_name, text, publishedAt) => {
    const file = parseRangeFile(text);
    expect(file.publishedAt?.toISOString() ?? null).toBe(publishedAt);
    expect(file.prefixes.length).toBe(1);
  });

  it('keeps the prefixes as written, in order, IPv4 and IPv6', () => {
    const file = parseRangeFile('{"prefixes": [{"ipv6Prefix": "2001:4860:4801:10::/64"}, {"ipv4Prefix": "66.249.64.0/27"}]}');
    expect(file.prefixes).toEqual(['2001:4860:4801:10::/64', '66.249.64.0/27']);
  });
});

describe('parseRangeFile refuses anything else, saying what', () => {
  it.each([
    ['not JSON', '<html>', /not JSON/],
    ['a JSON array', '[]', /not a JSON object/],
    ['no prefixes', '{"creationTime": "2026-08-21T14:45:42.000000"}', /no "prefixes" array/],
    ['prefixes not an array', '{"prefixes": {"ipv4Prefix": "1.2.3.0/24"}}', /no "prefixes" array/],
    ['an empty list', '{"prefixes": []}', /lists no prefixes/],
    ['an entry not an object', '{"prefixes": ["1.2.3.0/24"]}', /prefix #1 is not an object/],
    ['an entry of another shape', '{"prefixes": [{"ip_prefix": "1.2.3.0/24"}]}', /prefix #1 has not exactly one of ipv4Prefix and ipv6Prefix/],
    ['both keys', '{"prefixes": [{"ipv4Prefix": "1.2.3.0/24", "ipv6Prefix": "::/0"}]}', /prefix #1 has not exactly one/],
    ['an invalid IPv4 prefix', '{"prefixes": [{"ipv4Prefix": "1.2.3.0/24"}, {"ipv4Prefix": "1.2.3.256/24"}]}', /prefix #2: ipv4Prefix "1.2.3.256\/24" is not an IPv4 CIDR prefix/],
    ['no length', '{"prefixes": [{"ipv4Prefix": "1.2.3.0"}]}', /prefix #1: ipv4Prefix "1.2.3.0"/],
    ['too long a length', '{"prefixes": [{"ipv4Prefix": "1.2.3.0/33"}]}', /is not an IPv4 CIDR prefix/],
    ['IPv6 under ipv4Prefix', '{"prefixes": [{"ipv4Prefix": "2001:db8::/32"}]}', /ipv4Prefix "2001:db8::\/32" is not an IPv4/],
    ['IPv4 under ipv6Prefix', '{"prefixes": [{"ipv6Prefix": "1.2.3.0/24"}]}', /ipv6Prefix "1.2.3.0\/24" is not an IPv6/],
    ['an invalid IPv6 prefix', '{"prefixes": [{"ipv6Prefix": "2001:db8:::/32"}]}', /is not an IPv6 CIDR prefix/],
    ['a prefix not a string', '{"prefixes": [{"ipv4Prefix": 16909056}]}', /is not an IPv4 CIDR prefix/],
    ['a date in another format', '{"creationTime": "21/08/2026", "prefixes": [{"ipv4Prefix": "1.2.3.0/24"}]}', /creationTime "21\/08\/2026" is not an ISO date-time/],
    ['an impossible date', '{"creationTime": "2026-13-40T00:00:00Z", "prefixes": [{"ipv4Prefix": "1.2.3.0/24"}]}', /not a real date/],
  ])('%s', (_name, text, error) => {
    expect(() => parseRangeFile(text)).toThrow(error);
  });
});

describe('IpRangeSet.contains', () => {
  const set = new IpRangeSet(['66.249.64.0/27', '66.249.64.32/27', '192.0.2.7/32', '2001:4860:4801:10::/64', '2600:1f28:365:8000::/56', '10.1.2.3/8']);
  it.each([
    ['first address of a range', '66.249.64.0', true],
    ['last address of two touching ranges', '66.249.64.63', true],
    ['just past them', '66.249.64.64', false],
    ['just before them', '66.249.63.255', false],
    ['a /32', '192.0.2.7', true],
    ['next to a /32', '192.0.2.8', false],
    ['host bits of a prefix ignored (10.1.2.3/8 is 10.0.0.0/8)', '10.255.255.255', true],
    ['IPv4-mapped IPv6', '::ffff:66.249.64.1', true],
    ['IPv4-mapped IPv6, hexadecimal', '::ffff:42f9:4001', true],
    ['IPv6 inside', '2001:4860:4801:10::1', true],
    ['IPv6, long-hand and upper case', '2001:4860:4801:0010:0000:0000:0000:ABCD', true],
    ['IPv6 last of a /64', '2001:4860:4801:10:ffff:ffff:ffff:ffff', true],
    ['IPv6 past it', '2001:4860:4801:11::', false],
    ['IPv6 inside a /56', '2600:1f28:365:80ff::1', true],
    ['IPv4-compatible is not IPv4', '::66.249.64.1', false],
    ['not an address', 'googlebot', false],
    ['empty', '', false],
    ['leading zero (octal to some readers)', '066.249.64.1', false],
    ['a zone', 'fe80::1%eth0', false],
    ['brackets', '[2001:4860:4801:10::1]', false],
    ['too many groups', '1:2:3:4:5:6:7:8:9', false],
    ['two ::', '2001::10::1', false],
    ['with a port', '66.249.64.1:443', false],
  ])('%s: %s', (_name, ip, inside) => {
    expect(set.contains(ip)).toBe(inside);
  });

  it('/0 holds every address of its family', () => {
    const all = new IpRangeSet(['0.0.0.0/0', '::/0']);
    expect(['0.0.0.0', '255.255.255.255', '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'].map((ip) => all.contains(ip))).toEqual([true, true, true, true]);
  });

  it('an empty set holds nothing', () => {
    expect(new IpRangeSet([]).contains('66.249.64.1')).toBe(false);
  });

  it('refuses a prefix that is none, naming it', () => {
    expect(() => new IpRangeSet(['66.249.64.0/27', 'nonsense'])).toThrow(/not a CIDR prefix: "nonsense"/);
  });

  it('looks up in 10,000 ranges as in two (binary search)', () => {
    const prefixes = Array.from({ length: 10_000 }, (_, i) => `10.${Math.floor(i / 256)}.${i % 256}.0/25`);
    const many = new IpRangeSet(prefixes);
    expect(many.contains('10.39.15.127')).toBe(true);
    expect(many.contains('10.39.15.128')).toBe(false);
  });
});

describe('addresses read one way', () => {
  it.each([
    ['66.249.66.1', '66.249.66.1'],
    ['::ffff:66.249.66.1', '66.249.66.1'],
    ['2001:4860:4801:0010:0:0:0:0001', '2001:4860:4801:10::1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['256.1.1.1', null],
  ])('%s -> %s', (text, canonical) => {
    expect(canonicalIp(text)).toBe(canonical);
  });
  it('IPv4 is a 32-bit number, IPv6 a bigint', () => {
    expect(parseIpAddress('255.255.255.255')).toEqual({ family: 4, value: 0xffffffff });
    expect(parseIpAddress('::2')).toEqual({ family: 6, value: 2n });
  });
});

describe('the real files (test/fixtures/crawler-ranges, README.md there)', () => {
  it.each([
    { file: 'google-common-crawlers.json', date: '2026-08-21T14:45:42.000Z', count: 315, inside: ['66.249.66.1', '66.249.79.1', '2001:4860:4801:10::1', '::ffff:66.249.66.1'] },
    { file: 'google-special-crawlers.json', date: '2026-08-21T14:46:19.000Z', count: 270, inside: ['2001:4860:4801:2008::1'] },
    { file: 'openai-gptbot.json', date: '2025-10-30T11:00:00.000Z', count: 21, inside: ['132.196.86.1', '172.182.202.127'] },
    { file: 'openai-searchbot.json', date: '2026-01-02T11:00:00.000Z', count: 35, inside: ['135.234.64.200', '104.210.140.129'] },
    { file: 'openai-chatgpt-user.json', date: '2026-04-29T21:03:15.207Z', count: 240, inside: ['104.210.139.193', '13.65.138.100'] },
    { file: 'apple-applebot.json', date: '2026-09-15T10:00:00.000Z', count: 24, inside: ['17.241.208.161', '17.166.20.1'] },
    { file: 'perplexity-user.json', date: '2025-03-28T15:35:00.000Z', count: 3, inside: ['44.208.221.197', '18.97.21.3'] },
    { file: 'commoncrawl-ccbot.json', date: '2026-08-04T12:40:20.000Z', count: 6, inside: ['18.97.14.81', '2600:1f28:365:8000::1'] },
  ])('$file: dated $date, $count prefixes, its addresses inside and others not', ({ file, date, count, inside }) => {
    const parsed = parseRangeFile(fixture(file));
    expect(parsed.publishedAt?.toISOString()).toBe(date);
    expect(parsed.prefixes.length).toBe(count);
    const set = new IpRangeSet(parsed.prefixes);
    expect(inside.filter((ip) => !set.contains(ip))).toEqual([]);
    expect(['8.8.8.8', '1.1.1.1', '203.0.113.9', '2001:db8::1', '::ffff:8.8.8.8'].filter((ip) => set.contains(ip))).toEqual([]);
  });

  it('the families of crawlers are apart: Googlebot is not in the special crawlers, GPTBot not in Applebot', () => {
    const special = new IpRangeSet(parseRangeFile(fixture('google-special-crawlers.json')).prefixes);
    const apple = new IpRangeSet(parseRangeFile(fixture('apple-applebot.json')).prefixes);
    expect(special.contains('66.249.66.1')).toBe(false);
    expect(apple.contains('132.196.86.1')).toBe(false);
  });
});
