/**
 * The verdict on a request that claims a crawler (issue 29): verified, spoofed or unverifiable,
 * with the method it rests on and why; one case table per branch of the order (ranges first,
 * reverse DNS where they cannot decide).
 */
import { describe, expect, it } from 'vitest';
import { IpRangeSet, hostnameInDomain, judgeIdentity, needsReverseDns } from '../../../../src/crawlers/identity/index.js';
import type { IdentityInput, ReverseDnsAnswer } from '../../../../src/crawlers/identity/index.js';

const SETS: Record<string, IpRangeSet> = {
  googlebot: new IpRangeSet(['66.249.64.0/19', '2001:4860:4801:10::/64']),
  gptbot: new IpRangeSet(['132.196.86.0/24']),
  applebot: new IpRangeSet(['17.241.208.160/27']),
  'google-user-triggered-fetchers-google': new IpRangeSet(['192.178.10.0/24']),
};
const imported = (...names: string[]) => (source: string) => (names.includes(source) ? SETS[source]! : null);
const all = (source: string) => SETS[source] ?? null;
const none = () => null;

const confirmed = (hostname: string): ReverseDnsAnswer => ({ kind: 'confirmed', hostname });
const MISMATCH: ReverseDnsAnswer = { kind: 'mismatch', detail: 'crawl-1-2-3-4.googlebot.com do not resolve to 1.2.3.4' };
const NO_PTR: ReverseDnsAnswer = { kind: 'no-ptr', detail: '1.2.3.4: ENOTFOUND' };
const FAILED: ReverseDnsAnswer = { kind: 'failed', reason: 'PTR of 1.2.3.4: ETIMEOUT' };

type Case = [string, IdentityInput, string, string, RegExp];

function check([, input, identity, method, reason]: Case) {
  const verdict = judgeIdentity(input);
  expect(verdict).toMatchObject({ identity, method });
  expect(verdict.reason).toMatch(reason);
}

describe('no published method: unverifiable, method none', () => {
  it.each<Case>([
    ['a crawler whose operator publishes nothing', { token: 'ClaudeBot', ip: '1.2.3.4', rangesOf: all }, 'unverifiable', 'none', /ClaudeBot: its operator publishes no way/],
    ['a token nobody knows', { token: 'NoSuchBot', ip: '1.2.3.4', rangesOf: all }, 'unverifiable', 'none', /publishes no way/],
    ['a DNS answer changes nothing', { token: 'ClaudeBot', ip: '1.2.3.4', rangesOf: all, reverseDns: confirmed('x.anthropic.com') }, 'unverifiable', 'none', /publishes no way/],
    ['no address in the log line', { token: 'Googlebot', ip: '-', rangesOf: all }, 'unverifiable', 'none', /not an IP address: "-"/],
  ])('%s', (...c) => check(c));
});

describe('ranges in force decide', () => {
  it.each<Case>([
    ['inside: verified', { token: 'GPTBot', ip: '132.196.86.10', rangesOf: all }, 'verified', 'ip_ranges', /inside gptbot \(https:\/\/openai.com\/gptbot.json\)/],
    ['inside over IPv6', { token: 'Googlebot', ip: '2001:4860:4801:10::5', rangesOf: all }, 'verified', 'ip_ranges', /inside googlebot/],
    ['inside, IPv4-mapped', { token: 'Googlebot', ip: '::ffff:66.249.66.1', rangesOf: all }, 'verified', 'ip_ranges', /inside googlebot/],
    ['inside, whatever DNS says', { token: 'Googlebot', ip: '66.249.66.1', rangesOf: all, reverseDns: NO_PTR }, 'verified', 'ip_ranges', /inside/],
    ['inside one of several sources', { token: 'Feedfetcher-Google', ip: '192.178.10.1', rangesOf: all }, 'verified', 'ip_ranges', /inside google-user-triggered-fetchers-google/],
    ['outside, no DNS documented: spoofed', { token: 'GPTBot', ip: '8.8.8.8', rangesOf: all }, 'spoofed', 'ip_ranges', /outside gptbot/],
    ['outside, DNS documented but not asked: spoofed', { token: 'Googlebot', ip: '8.8.8.8', rangesOf: all }, 'spoofed', 'ip_ranges', /outside googlebot/],
    ['outside, a DNS answer of an operator without DNS is not used', { token: 'GPTBot', ip: '8.8.8.8', rangesOf: all, reverseDns: confirmed('x.openai.com') }, 'spoofed', 'ip_ranges', /outside gptbot/],
    ['outside the sources in force, others not imported', { token: 'Feedfetcher-Google', ip: '8.8.8.8', rangesOf: all }, 'spoofed', 'ip_ranges', /outside google-user-triggered-fetchers-google$/],
  ])('%s', (...c) => check(c));
});

describe('outside the ranges, reverse DNS documented and answered: DNS decides', () => {
  it.each<Case>([
    ['confirmed in a listed domain: verified (the files lag the hosts)', { token: 'Googlebot', ip: '8.8.4.4', rangesOf: all, reverseDns: confirmed('crawl-8-8-4-4.googlebot.com') }, 'verified', 'reverse_dns', /crawl-8-8-4-4.googlebot.com .* in googlebot.com/],
    ['confirmed elsewhere: spoofed', { token: 'Googlebot', ip: '8.8.4.4', rangesOf: all, reverseDns: confirmed('crawl.evilgooglebot.com') }, 'spoofed', 'reverse_dns', /crawl.evilgooglebot.com is not in googlebot.com, google.com, googleusercontent.com/],
    ['mismatch: spoofed', { token: 'Googlebot', ip: '8.8.4.4', rangesOf: all, reverseDns: MISMATCH }, 'spoofed', 'reverse_dns', /does not resolve back/],
    ['no PTR: spoofed', { token: 'Applebot', ip: '8.8.4.4', rangesOf: all, reverseDns: NO_PTR }, 'spoofed', 'reverse_dns', /no PTR record/],
    ['DNS failed: unverifiable', { token: 'Googlebot', ip: '8.8.4.4', rangesOf: all, reverseDns: FAILED }, 'unverifiable', 'reverse_dns', /reverse DNS failed: PTR of 1.2.3.4: ETIMEOUT/],
  ])('%s', (...c) => check(c));
});

describe('no range set in force for the day', () => {
  it.each<Case>([
    ['ranges only: unverifiable, and says which were missing', { token: 'GPTBot', ip: '132.196.86.10', rangesOf: none }, 'unverifiable', 'ip_ranges', /no range set of gptbot in force/],
    ['another source imported, not this one', { token: 'GPTBot', ip: '132.196.86.10', rangesOf: imported('googlebot') }, 'unverifiable', 'ip_ranges', /no range set of gptbot/],
    ['DNS documented, confirmed: verified', { token: 'Googlebot', ip: '66.249.66.1', rangesOf: none, reverseDns: confirmed('crawl-66-249-66-1.googlebot.com') }, 'verified', 'reverse_dns', /googlebot.com/],
    ['DNS only (Bing), confirmed', { token: 'bingbot', ip: '157.55.33.18', rangesOf: all, reverseDns: confirmed('msnbot-157-55-33-18.search.msn.com.') }, 'verified', 'reverse_dns', /in search.msn.com/],
    ['DNS only (Bing), elsewhere', { token: 'bingbot', ip: '157.55.33.18', rangesOf: all, reverseDns: confirmed('msnbot.search.msn.com.evil.example') }, 'spoofed', 'reverse_dns', /not in search.msn.com/],
    ['DNS documented, no answer given: unverifiable', { token: 'bingbot', ip: '157.55.33.18', rangesOf: all }, 'unverifiable', 'reverse_dns', /no reverse DNS answer/],
    ['DNS documented, null answer', { token: 'Applebot', ip: '17.241.208.161', rangesOf: none, reverseDns: null }, 'unverifiable', 'reverse_dns', /no reverse DNS answer/],
    ['DNS documented, failed', { token: 'Applebot', ip: '17.241.208.161', rangesOf: none, reverseDns: FAILED }, 'unverifiable', 'reverse_dns', /ETIMEOUT/],
    ['DNS documented, no PTR: spoofed', { token: 'Applebot', ip: '17.241.208.161', rangesOf: none, reverseDns: NO_PTR }, 'spoofed', 'reverse_dns', /no PTR/],
  ])('%s', (...c) => check(c));

  it('any confirmed name in a listed domain will do, when a host has several', () => {
    const answer: ReverseDnsAnswer = { kind: 'confirmed', hostname: 'other.example', hostnames: ['other.example', '17-241-208-161.applebot.apple.com'] };
    expect(judgeIdentity({ token: 'Applebot', ip: '17.241.208.161', rangesOf: none, reverseDns: answer })).toMatchObject({ identity: 'verified', method: 'reverse_dns' });
  });
});

describe('a host name is in a domain on a label boundary', () => {
  it.each([
    ['crawl-66-249-66-1.googlebot.com', 'googlebot.com', true],
    ['crawl-66-249-66-1.googlebot.com.', 'googlebot.com', true],
    ['CRAWL-66-249-66-1.GOOGLEBOT.COM', 'googlebot.com', true],
    ['geo-crawl-1-2-3-4.geo.googlebot.com', 'googlebot.com', true],
    ['googlebot.com', 'googlebot.com', true],
    ['evilgooglebot.com', 'googlebot.com', false],
    ['crawl.evilgooglebot.com', 'googlebot.com', false],
    ['googlebot.com.evil.example', 'googlebot.com', false],
    ['x.gae.googleusercontent.com', 'googleusercontent.com', true],
    ['17-58-101-179.applebot.apple.com', 'applebot.apple.com', true],
    ['applebot.apple.com.cn', 'applebot.apple.com', false],
    ['x.apple.com', 'applebot.apple.com', false],
  ])('%s in %s: %s', (hostname, suffix, inside) => {
    expect(hostnameInDomain(hostname, suffix)).toBe(inside);
  });
});

describe('needsReverseDns: DNS only where an answer can change the verdict', () => {
  it.each([
    ['ranges only', 'GPTBot', false, false, false],
    ['ranges only, none in force', 'GPTBot', false, false, false],
    ['nothing published', 'ClaudeBot', false, false, false],
    ['DNS and ranges, none in force', 'Googlebot', false, false, true],
    ['DNS and ranges, outside them', 'Googlebot', true, false, true],
    ['DNS and ranges, inside them', 'Googlebot', true, true, false],
    ['DNS only', 'bingbot', false, false, true],
    ['DNS only, case-insensitive token', 'BINGBOT', false, false, true],
  ])('%s (%s)', (_name, token, rangesAvailable, inside, needed) => {
    // The range files verify the request only when one is in force and the address is inside it.
    expect(needsReverseDns(token, rangesAvailable && inside)).toBe(needed);
  });
});
