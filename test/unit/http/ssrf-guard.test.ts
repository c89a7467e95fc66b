import { describe, expect, it } from 'vitest';
import { createSsrfGuard, parseAddress } from '../../../src/http/ssrf-guard.js';

const guard = createSsrfGuard();

describe('SSRF guard: IPv4 addresses', () => {
  it.each<[string, string]>([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata (AWS, GCP, Azure)
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'carrierGradeNat'], // Alibaba Cloud metadata
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'], // TEST-NET-1
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'], // benchmarking, listed by ipaddr.js under reserved
  ])('%s is refused (%s)', (address, range) => {
    const verdict = guard.check(address);
    expect(verdict.allowed).toBe(false);
    expect(verdict.range).toBe(range);
    expect(verdict.reason).not.toBe('');
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '11.0.0.1', '192.169.0.1'])('%s is public unicast', (address) => {
    expect(guard.check(address)).toMatchObject({ allowed: true, range: 'unicast', reason: 'public unicast' });
  });
});

describe('SSRF guard: IPv6 addresses', () => {
  it.each<[string, string]>([
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'], // AWS metadata over IPv6
    ['ff02::1', 'multicast'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2001:db8::1', 'reserved'], // documentation
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['100::1', 'discard'],
    ['64:ff9b:1::a00:1', 'rfc6052'], // local-use NAT64 prefix
    ['::7f00:1', 'ipv4Compatible'], // ::127.0.0.1, deprecated form
    ['4000::1', 'unallocated'],
  ])('%s is refused (%s)', (address, range) => {
    const verdict = guard.check(address);
    expect(verdict.allowed).toBe(false);
    expect(verdict.range).toBe(range);
  });

  it.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:82a::200e'])('%s is public unicast', (address) => {
    expect(guard.check(address)).toMatchObject({ allowed: true, reason: 'public unicast' });
  });
});

describe('SSRF guard: IPv6 forms that carry an IPv4 address are judged by that address', () => {
  it.each<[string, string, boolean]>([
    ['::ffff:127.0.0.1', 'loopback', false],
    ['::ffff:7f00:1', 'loopback', false],
    ['::ffff:10.1.2.3', 'private', false],
    ['::ffff:169.254.169.254', 'linkLocal', false],
    ['::ffff:0:127.0.0.1', 'loopback', false], // RFC 6145 translated
    ['64:ff9b::127.0.0.1', 'loopback', false], // NAT64 well-known prefix
    ['64:ff9b::a9fe:a9fe', 'linkLocal', false], // NAT64 of 169.254.169.254
    ['2002:7f00:1::1', 'loopback', false], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', 'private', false], // 6to4 of 192.168.1.1
    ['::ffff:8.8.8.8', 'unicast', true],
    ['64:ff9b::808:808', 'unicast', true],
    ['2002:808:808::1', 'unicast', true],
  ])('%s -> %s', (address, range, allowed) => {
    const verdict = guard.check(address);
    expect(verdict.range).toBe(range);
    expect(verdict.allowed).toBe(allowed);
  });
});

describe('SSRF guard: allowNetworks lifts the guard for chosen ranges only', () => {
  const loopbackAllowed = createSsrfGuard(['127.0.0.0/8']);

  it.each<[string, boolean]>([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::ffff:127.0.0.1', true], // the IPv4 network covers the mapped form
    ['::1', false], // an IPv4 network says nothing about IPv6 loopback
    ['10.0.0.1', false],
    ['169.254.169.254', false],
    ['8.8.8.8', true], // public stays public
  ])('with 127.0.0.0/8: %s allowed=%s', (address, allowed) => {
    expect(loopbackAllowed.check(address).allowed).toBe(allowed);
  });

  it('names the exception in the reason', () => {
    expect(loopbackAllowed.check('127.0.0.1').reason).toContain('allowed by 127.0.0.0/8');
  });

  it('takes IPv6 networks', () => {
    const g = createSsrfGuard(['fd00::/8', '::1/128']);
    expect(g.check('fd00:ec2::254').allowed).toBe(true);
    expect(g.check('::1').allowed).toBe(true);
    expect(g.check('fc00::1').allowed).toBe(false);
  });

  it('normalises the networks it was given', () => {
    expect(createSsrfGuard([' 10.0.0.0/8 ', '::1/128']).allowNetworks).toEqual(['10.0.0.0/8', '::1/128']);
  });

  it.each(['127.0.0.1', '10.0.0.0/33', 'not-a-cidr', ''])('refuses the invalid entry "%s"', (entry) => {
    expect(() => createSsrfGuard([entry])).toThrow(/invalid allowNetworks entry/);
  });
});

describe('SSRF guard: what counts as an address', () => {
  it.each(['example.com', '0x7f.1', '127.1', '2130706433', '1.2.3.4.5', ''])('"%s" is no address and is refused', (text) => {
    expect(parseAddress(text)).toBeNull();
    expect(guard.check(text)).toMatchObject({ allowed: false, range: 'invalid' });
  });

  it('accepts bracketed IPv6 as URLs write it', () => {
    expect(guard.check('[::1]')).toMatchObject({ allowed: false, range: 'loopback' });
  });
});
