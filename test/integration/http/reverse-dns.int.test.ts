/**
 * Forward-confirmed reverse DNS against a real DNS server (test/helpers/dnsmasq.ts): the answers
 * the judge (src/crawlers/identity/identity.ts) turns into verified, spoofed or unverifiable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeIdentity } from '../../../src/crawlers/identity/index.js';
import { createReverseDnsChecker } from '../../../src/http/reverse-dns.js';
import type { ReverseDnsChecker } from '../../../src/http/reverse-dns.js';
import { startDnsmasq, startSilentDnsServer } from '../../helpers/dnsmasq.js';
import type { Dnsmasq, DnsRecords } from '../../helpers/dnsmasq.js';

const RECORDS: DnsRecords = {
  localZones: ['in-addr.arpa', 'ip6.arpa', 'com'],
  hosts: [
    { name: 'crawl-66-249-66-1.googlebot.com', addresses: ['66.249.66.1', '2001:4860:4801:10::1'] },
    // The PTR is the spoofer's to write; the name is in their own domain.
    { name: 'crawl-66-249-66-3.evilgooglebot.com', addresses: ['66.249.66.3'] },
    // A googlebot.com name whose A record is somewhere else.
    { name: 'crawl-66-249-66-2.googlebot.com', addresses: ['10.9.9.9'] },
  ],
  ptrs: [{ address: '66.249.66.2', name: 'crawl-66-249-66-2.googlebot.com' }],
};

const CHECKER = { timeoutMs: 500, tries: 1, cacheEntries: 100, cacheSeconds: 60 };
const noRanges = () => null;

describe('FCrDNS against dnsmasq', () => {
  let dnsmasq: Dnsmasq;
  let checker: ReverseDnsChecker;
  beforeAll(async () => {
    dnsmasq = await startDnsmasq(RECORDS);
    checker = createReverseDnsChecker({ servers: [dnsmasq.server], ...CHECKER });
  });
  afterAll(async () => {
    checker.close();
    await dnsmasq.stop();
  });

  it.each([
    { case: 'a Googlebot name that resolves back', ip: '66.249.66.1', kind: 'confirmed', identity: 'verified' },
    { case: 'the same host over IPv6', ip: '2001:4860:4801:10::1', kind: 'confirmed', identity: 'verified' },
    { case: 'IPv6 written long-hand', ip: '2001:4860:4801:0010:0:0:0:0001', kind: 'confirmed', identity: 'verified' },
    { case: 'an IPv4-mapped IPv6 address', ip: '::ffff:66.249.66.1', kind: 'confirmed', identity: 'verified' },
    { case: 'a name that resolves back, in another domain', ip: '66.249.66.3', kind: 'confirmed', identity: 'spoofed' },
    { case: 'a googlebot.com PTR whose A points elsewhere', ip: '66.249.66.2', kind: 'mismatch', identity: 'spoofed' },
    { case: 'no PTR record', ip: '66.249.66.9', kind: 'no-ptr', identity: 'spoofed' },
  ])('$case: $kind, so Googlebot is $identity', async ({ ip, kind, identity }) => {
    const answer = await checker.check(ip);
    expect(answer.kind).toBe(kind);
    const verdict = judgeIdentity({ token: 'Googlebot', ip, rangesOf: noRanges, reverseDns: answer });
    expect(verdict).toMatchObject({ identity, method: 'reverse_dns' });
  });

  it('names the confirmed host', async () => {
    expect(await checker.check('66.249.66.1')).toMatchObject({ kind: 'confirmed', hostname: 'crawl-66-249-66-1.googlebot.com' });
    expect(await checker.check('66.249.66.3')).toMatchObject({ kind: 'confirmed', hostname: 'crawl-66-249-66-3.evilgooglebot.com' });
  });

  it('asks once for concurrent checks of one address', () => {
    const first = checker.check('66.249.66.7');
    expect(checker.check('66.249.66.7')).toBe(first);
    return first;
  });

  it('text that is no address fails without asking', async () => {
    expect(await checker.check('not-an-ip')).toMatchObject({ kind: 'failed' });
  });
});

describe('a cached answer is not asked again', () => {
  it('answers from the cache once the server is gone', async () => {
    const dnsmasq = await startDnsmasq(RECORDS);
    const checker = createReverseDnsChecker({ servers: [dnsmasq.server], ...CHECKER });
    try {
      const confirmed = await checker.check('66.249.66.1');
      const noPtr = await checker.check('66.249.66.9');
      await dnsmasq.stop();
      const started = Date.now();
      expect(await checker.check('66.249.66.1')).toEqual(confirmed);
      expect(await checker.check('66.249.66.9')).toEqual(noPtr);
      expect(Date.now() - started).toBeLessThan(CHECKER.timeoutMs);
      // Not cached: the server is gone, so this one fails.
      expect(await checker.check('66.249.66.2')).toMatchObject({ kind: 'failed' });
    } finally {
      checker.close();
      await dnsmasq.stop();
    }
  });

  it('keeps at most cacheEntries answers, the least recently used going first', async () => {
    const dnsmasq = await startDnsmasq(RECORDS);
    const checker = createReverseDnsChecker({ servers: [dnsmasq.server], ...CHECKER, cacheEntries: 2 });
    try {
      await checker.check('66.249.66.1');
      await checker.check('66.249.66.9');
      await checker.check('66.249.66.1'); // touched: 66.249.66.9 is now the least recently used
      await checker.check('66.249.66.3');
      await dnsmasq.stop();
      expect(await checker.check('66.249.66.1')).toMatchObject({ kind: 'confirmed' });
      expect(await checker.check('66.249.66.3')).toMatchObject({ kind: 'confirmed' });
      expect(await checker.check('66.249.66.9')).toMatchObject({ kind: 'failed' });
    } finally {
      checker.close();
      await dnsmasq.stop();
    }
  });
});

describe('a server that does not answer', () => {
  it('fails within the configured timeout, and the judge calls it unverifiable', async () => {
    const silent = await startSilentDnsServer();
    const checker = createReverseDnsChecker({ servers: [silent.server], ...CHECKER });
    try {
      const started = Date.now();
      const answer = await checker.check('66.249.66.1');
      const took = Date.now() - started;
      expect(answer).toMatchObject({ kind: 'failed' });
      expect(answer.kind === 'failed' && answer.reason).toMatch(/ETIMEOUT/);
      // One attempt of timeoutMs (c-ares may double it once); well under any default.
      expect(took).toBeGreaterThanOrEqual(CHECKER.timeoutMs - 50);
      expect(took).toBeLessThan(CHECKER.timeoutMs * 4);
      const verdict = judgeIdentity({ token: 'Googlebot', ip: '66.249.66.1', rangesOf: noRanges, reverseDns: answer });
      expect(verdict).toMatchObject({ identity: 'unverifiable', method: 'reverse_dns' });
    } finally {
      checker.close();
      await silent.stop();
    }
  });
});
