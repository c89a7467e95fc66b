/** `mailto:` channel URIs (RFC 6068), addresses only; the From's domain for Message-IDs. */
import { describe, expect, it } from 'vitest';
import { MAILTO_MAX_ADDRESSES, parseMailto } from '../../../src/mail/mailto.js';
import { mailDomain } from '../../../src/mail/smtp-sender.js';

describe('parseMailto', () => {
  it.each([
    ['mailto:seo@example.com', 'mailto:seo@example.com', ['seo@example.com']],
    ['  MAILTO:SEO@Example.COM ', 'mailto:SEO@example.com', ['SEO@example.com']],
    ['mailto:a@x.example,%20b@y.example,a@X.example', 'mailto:a@x.example,b@y.example', ['a@x.example', 'b@y.example']],
    ["mailto:first.o'brien+robots@mail.example.co.uk", "mailto:first.o'brien+robots@mail.example.co.uk", ["first.o'brien+robots@mail.example.co.uk"]],
  ])('%j', (input, url, addresses) => {
    expect(parseMailto(input)).toEqual({ url, addresses });
  });

  it.each([
    ['https://example.com', /not a mailto: URI/],
    ['mailto:', /no address/],
    ['mailto:seo@localhost', /not an e-mail address/],
    ['mailto:seo@@example.com', /not an e-mail address/],
    ['mailto:"a b"@example.com', /not an e-mail address/],
    ['mailto:seo@example.com?cc=boss@example.com', /header fields/],
    ['mailto:seo@example.com%0d%0aBcc:x@example.com', /not an e-mail address/],
    ['mailto:%E0%A4%A', /malformed %-escape/],
    [`mailto:${Array.from({ length: MAILTO_MAX_ADDRESSES + 1 }, (_, i) => `a${i}@example.com`).join(',')}`, /at most 20/],
  ])('%j is refused', (input, reason) => {
    expect(() => parseMailto(input)).toThrow(reason);
  });
});

describe('mailDomain', () => {
  it.each([
    ['alerts@Example.org', 'example.org'],
    ['robots-audit <alerts@example.org>', 'example.org'],
  ])('%j -> %s', (from, domain) => {
    expect(mailDomain(from)).toBe(domain);
  });
});
