/**
 * The dashboard's pure parts: the lock (loopback or not, token and cookie comparison, where a
 * login may send you), text from websites made visible, the SVG's escaping, the events cursor,
 * and the lists of kinds the changes page offers, kept equal to the pipeline's.
 */
import { describe, expect, it } from 'vitest';
import { bodyLines, visibleText } from '../../../src/reports/web-paging.js';
import { diffLines } from '../../../src/reports/web-site.js';
import { isAuthorized, isLoopbackHost, safeNextPath, sameSecret, sessionValue } from '../../../src/web/auth.js';
import { BadRequest, decodeCursor, encodeCursor } from '../../../src/web/query-params.js';
import { escapeXml, stackedBarsSvg, timelineSvg } from '../../../src/web/svg-charts.js';

describe('serve: which addresses count as loopback (only those serve without a token)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['10.0.0.1', false],
    ['example.com', false],
    ['localhost.example.com', false],
    ['128.0.0.1', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('the token', () => {
  const token = 'a-dashboard-token-of-some-length';

  it('a Bearer header or the login cookie unlocks; anything else does not', () => {
    expect(isAuthorized({ authorization: `Bearer ${token}` }, token)).toBe(true);
    expect(isAuthorized({ authorization: `bearer  ${token} ` }, token)).toBe(true);
    expect(isAuthorized({ cookie: sessionValue(token) }, token)).toBe(true);
    expect(isAuthorized({}, token)).toBe(false);
    expect(isAuthorized({ authorization: `Bearer ${token}x` }, token)).toBe(false);
    expect(isAuthorized({ authorization: `Basic ${token}` }, token)).toBe(false);
    expect(isAuthorized({ authorization: token }, token)).toBe(false);
    // The cookie is not the token, and the token is not a cookie.
    expect(isAuthorized({ cookie: token }, token)).toBe(false);
    expect(sessionValue(token)).not.toContain(token);
    expect(isAuthorized({ cookie: sessionValue(`${token}x`) }, token)).toBe(false);
  });

  it('compares secrets of any length without throwing (constant time on their digests)', () => {
    expect(sameSecret('', token)).toBe(false);
    expect(sameSecret(token.repeat(100), token)).toBe(false);
    expect(sameSecret(token, token)).toBe(true);
  });

  it.each([
    ['/changes?type=flip', '/changes?type=flip'],
    ['/', '/'],
    ['//evil.example/x', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['javascript:alert(1)', '/'],
    [undefined, '/'],
    [['/a'], '/'],
  ])('after logging in, next=%j goes to %s', (next, path) => {
    expect(safeNextPath(next)).toBe(path);
  });
});

describe('text from websites is made visible, not obeyed', () => {
  it('control characters become control pictures; tabs stay', () => {
    expect(visibleText('a\u0000b\u001b[31mc\u007f\td')).toBe('a␀b␛[31mc␡\td');
  });

  it('a body is split on CR, LF and CRLF as the engine counts lines, invalid UTF-8 shown as U+FFFD', () => {
    expect(bodyLines(Buffer.from('a\r\nb\rc\nd\n'))).toEqual(['a', 'b', 'c', 'd']);
    expect(bodyLines(Buffer.from([0x61, 0xff, 0x0a, 0x62]))).toEqual(['a\uFFFD', 'b']);
    expect(bodyLines(Buffer.from('<script>x</script>'))).toEqual(['<script>x</script>']);
  });

  it('a unified diff is classed line by line', () => {
    expect(diffLines('--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z\n').map((l) => l.kind)).toEqual(['meta', 'meta', 'hunk', 'remove', 'add', 'context']);
  });
});

describe('the SVG escapes what it carries', () => {
  it('escapeXml', () => {
    expect(escapeXml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('an outcome or a key with markup cannot leave its attribute', () => {
    const svg = timelineSvg([{ at: new Date('2026-03-01T03:00:00Z'), outcome: 'ok"><script>', status: 200, policy: 'rules', policyReason: 'R-10', changed: true }]);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('o-ok&quot;&gt;&lt;script&gt;');
    const bars = stackedBarsSvg([{ label: new Date('2026-03-02T00:00:00Z'), parts: [{ key: '<x>', value: 3 }] }], '<title>');
    expect(bars).not.toContain('<x>');
    expect(bars).toContain('aria-label="&lt;title&gt;"');
  });
});

describe('the changes page', () => {
  it('its cursor survives the URL, whatever the origin holds', () => {
    const cursor = { at: new Date('2026-03-02T03:00:00.000Z'), origin: 'https://a~b.example:8443', rank: 2, id: 12345 };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    expect(decodeCursor(undefined)).toBeNull();
    expect(() => decodeCursor('nonsense')).toThrow(BadRequest);
    expect(() => decodeCursor('not-a-date~1~2~x')).toThrow(BadRequest);
  });
});
