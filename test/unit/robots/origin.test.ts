import { describe, expect, it } from 'vitest';
import { canonicalUrl, InvalidUrlError, isInScope, normalizeOrigin, robotsTxtUrl } from '../../../src/robots/origin.js';

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
