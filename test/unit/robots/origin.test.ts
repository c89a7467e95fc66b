import { describe, expect, it } from 'vitest';
import { auditableOrigin, canonicalUrl, InvalidUrlError, isInScope, normalizeOrigin, robotsTxtUrl } from '../../../src/robots/origin.js';
import type { AuditableOriginOptions } from '../../../src/robots/origin.js';

describe('R-1: the file lives at /robots.txt of an origin', () => {
  it.each([
    ['http://example.com', 'http://example.com/robots.txt'],
    ['http://example.com/folder/file', 'http://example.com/robots.txt'],
    ['https://Example.COM:443/a?b#c', 'https://example.com/robots.txt'],
    ['example.com', 'https://example.com/robots.txt'],
  ])('%s -> %s', (input, expected) => expect(robotsTxtUrl(input)).toBe(expected));
});

describe('R-2 / R-3 / R-5: scope is exactly scheme, host and port (seed tables)', () => {
  it.each([
    ['http://example.com/robots.txt', 'http://example.com/', true],
    ['http://example.com/robots.txt', 'http://example.com/folder/file', true],
    ['http://example.com/robots.txt', 'http://other.example.com/', false],
    ['http://example.com/robots.txt', 'https://example.com/', false],
    ['http://example.com/robots.txt', 'http://example.com:8181/', false],
    ['http://www.example.com/robots.txt', 'http://shop.www.example.com/', false],
    ['http://example.com:80/robots.txt', 'http://example.com/', true],
    ['http://example.com:80/robots.txt', 'http://example.com:81/', false],
    ['https://example.com/robots.txt', 'https://example.com:443/a', true],
    ['http://example.com:8181/robots.txt', 'http://example.com:8181/a', true],
    ['http://example.com:8181/robots.txt', 'http://example.com/a', false],
    ['ftp://example.com/robots.txt', 'ftp://example.com:21/a', true],
    ['http://212.96.82.21/robots.txt', 'http://212.96.82.21/', true],
    ['http://212.96.82.21/robots.txt', 'http://example.com/', false],
    ['not a url', 'http://example.com/', false],
  ])('%s covers %s: %s', (robots, url, expected) => expect(isInScope(robots, url)).toBe(expected));
});

describe('R-4: international names equal their punycode form', () => {
  it.each([
    ['http://www.müller.eu/', 'http://www.xn--mller-kva.eu/', true],
    ['http://www.müller.eu/', 'http://www.muller.eu/', false],
  ])('%s vs %s: %s', (a, b, same) => expect(isInScope(a, b)).toBe(same));

  it('normalises to punycode', () => expect(normalizeOrigin('http://www.müller.eu/x')).toBe('http://www.xn--mller-kva.eu'));
});

describe('R-6: supported schemes; bad URLs give a clear error', () => {
  it.each(['', '   ', 'mailto:a@example.com', 'javascript:alert(1)', 'http://', 'http://exa mple.com/', 'ht!tp://bad', 'http://a..b/', 'http://-a.com/'])('%j is rejected', (input) => {
    expect(() => normalizeOrigin(input)).toThrow(InvalidUrlError);
  });

  it('names the reason', () => {
    expect(() => normalizeOrigin('mailto:a@example.com')).toThrow(/unsupported scheme mailto/);
  });

  it('keeps a non-default port and drops credentials', () => {
    expect(normalizeOrigin('http://user:pw@example.com:8080/x')).toBe('http://example.com:8080');
  });
});

describe('D-5: canonical form of a URL to evaluate', () => {
  it.each([
    ['http://example.com/foo/ツ#frag', 'http://example.com/foo/%E3%83%84'],
    ['HTTP://EXAMPLE.com:80', 'http://example.com/'],
    ['example.com/a?b=c', 'https://example.com/a?b=c'],
  ])('%s -> %s', (input, expected) => expect(canonicalUrl(input)).toBe(expected));
});

describe('issue 17, item 9: the origins the CLI accepts as sites to audit', () => {
  const longHost = `${'a'.repeat(60)}.`.repeat(5) + 'example';
  it.each<[string, string, AuditableOriginOptions?]>([
    ['example.com', 'https://example.com'],
    ['trailing-dot.example.:443', 'https://trailing-dot.example'],
    ['http://Trailing-Dot.Example./x', 'http://trailing-dot.example'],
    ['https://127.0.0.1:8443', 'https://127.0.0.1:8443', { allowIpLiterals: true }],
    ['http://[::1]', 'http://[::1]', { allowIpLiterals: true }],
    [`${'a'.repeat(63)}.example`, `https://${'a'.repeat(63)}.example`],
  ])('%s -> %s', (input, origin, options) => {
    expect(auditableOrigin(input, options)).toBe(origin);
  });

  it.each<[string, RegExp]>([
    ['ftp://example.com', /unsupported scheme ftp: sites are audited over http and https only/],
    ['mailto:x@example.com', /unsupported scheme/],
    [longHost, /host too long \(312 characters; a DNS name has at most 253\)/],
    [`${'a.'.repeat(5_000)}example`, /host too long/],
    [`${'a'.repeat(64)}.example`, /invalid host name/],
    ['https://127.0.0.1', /IP address.*--allow-ip/],
    ['http://[::1]:8080', /IP address/],
    ['10.0.0.1', /IP address/],
  ])('%s is refused: %s', (input, reason) => {
    expect(() => auditableOrigin(input)).toThrow(reason);
  });

  it('a refused 10,000-character host is named in one short line', () => {
    const input = `${'a.'.repeat(5_000)}example`;
    const message = (() => {
      try {
        auditableOrigin(input);
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThan(200);
  });
});
