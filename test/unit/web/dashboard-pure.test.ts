/**
 * The dashboard's pure parts: the lock (loopback or not, token and session comparison, where a
 * login may send you), text from websites made visible, parameters checked for bad bytes, the
 * SVG's escaping, the events cursor.
 */
import { describe, expect, it } from 'vitest';
import { bodyLines } from '../../../src/reports/web-paging.js';
import { diffLines } from '../../../src/reports/web-site.js';
import { authenticate, isLoopbackHost, newSession, safeNextPath, sameSecret, sessionValid } from '../../../src/web/auth.js';
import { FailureThrottle } from '../../../src/web/failure-throttle.js';
import { escapeHtml, siteTextAttribute, siteTextHtml } from '../../../src/web/html-text.js';
import { assertCleanUrl, BadRequest, decodeCursor, encodeCursor } from '../../../src/web/query-params.js';
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

describe('the token and the sessions the login form gives', () => {
  const token = 'a-dashboard-token-of-some-length';
  const DAY = 24 * 3600;
  const now = Date.parse('2026-11-24T10:00:00Z');

  it('a Bearer header or a live session unlocks; a wrong Bearer header is a wrong guess; anything else is nothing', () => {
    const session = newSession(token, now);
    expect(authenticate({ authorization: `Bearer ${token}` }, token, DAY, now)).toBe('bearer');
    expect(authenticate({ authorization: `bearer  ${token} ` }, token, DAY, now)).toBe('bearer');
    expect(authenticate({ cookie: session }, token, DAY, now)).toBe('session');
    expect(authenticate({}, token, DAY, now)).toBe('none');
    expect(authenticate({ authorization: `Bearer ${token}x` }, token, DAY, now)).toBe('wrong');
    expect(authenticate({ authorization: `Basic ${token}` }, token, DAY, now)).toBe('none');
    // The cookie is not the token, and the token is not a cookie.
    expect(authenticate({ cookie: token }, token, DAY, now)).toBe('none');
    expect(session).not.toContain(token);
  });

  it('every login gets a new session value (rotation), each valid on its own', () => {
    const a = newSession(token, now);
    const b = newSession(token, now);
    expect(a).not.toBe(b);
    expect(sessionValid(a, token, DAY, now)).toBe(true);
    expect(sessionValid(b, token, DAY, now)).toBe(true);
  });

  it('a session expires on the server after its lifetime, whatever the browser keeps', () => {
    const session = newSession(token, now);
    expect(sessionValid(session, token, DAY, now + (DAY - 1) * 1000)).toBe(true);
    expect(sessionValid(session, token, DAY, now + DAY * 1000)).toBe(false);
    // Its issue time is under the MAC: moving it forward breaks the session.
    const [, nonce, mac] = session.split('.');
    expect(sessionValid(`${Math.floor(now / 1000) + DAY}.${nonce}.${mac}`, token, DAY, now + DAY * 1000)).toBe(false);
    // Issued in the future (beyond a minute of clock skew): refused.
    expect(sessionValid(newSession(token, now + 3_600_000), token, DAY, now)).toBe(false);
  });

  it('changing the token revokes every session', () => {
    const session = newSession(token, now);
    expect(sessionValid(session, `${token}-rotated`, DAY, now)).toBe(false);
    expect(authenticate({ cookie: session }, `${token}-rotated`, DAY, now)).toBe('none');
  });

  it('a session of the old format, or anything else, is not one', () => {
    for (const value of ['', 'x', `${Math.floor(now / 1000)}..`, 'a.b.c', `${newSession(token, now)}x`]) expect(sessionValid(value, token, DAY, now)).toBe(false);
  });

  it('compares secrets of any length without throwing (constant time on their digests)', () => {
    expect(sameSecret('', token)).toBe(false);
    expect(sameSecret(token.repeat(100), token)).toBe(false);
    expect(sameSecret(token, token)).toBe(true);
  });

  it.each([
    ['/changes?type=flip', '/changes?type=flip'],
    ['/', '/'],
    ['/site?origin=https%3A%2F%2Fa.example#verdicts', '/site?origin=https%3A%2F%2Fa.example#verdicts'],
    ['//evil.example/x', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['/\t/evil.example', '/'],
    ['/\n/evil.example', '/'],
    ['\t//evil.example', '/'],
    ['/x\r\nSet-Cookie: a=b', '/'],
    ['/ok\u0000', '/'],
    ['/caf\u00e9', '/'],
    ['/\u202e/moc.live', '/'],
    ['javascript:alert(1)', '/'],
    ['x', '/'],
    [undefined, '/'],
    [['/a'], '/'],
  ])('after logging in, next=%j goes to %s', (next, path) => {
    expect(safeNextPath(next)).toBe(path);
  });
});

describe('failed logins are throttled per client', () => {
  it('past the limit a client waits until its oldest failure leaves the window; others are not held', () => {
    let now = 0;
    const throttle = new FailureThrottle({ limit: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) {
      expect(throttle.waitMs('10.0.0.1')).toBe(0);
      throttle.fail('10.0.0.1');
      now += 1_000;
    }
    expect(throttle.waitMs('10.0.0.1')).toBe(57_000);
    expect(throttle.waitMs('10.0.0.2')).toBe(0);
    now = 60_001;
    expect(throttle.waitMs('10.0.0.1')).toBe(0);
  });

  it('remembers at most maxClients clients, the least recent going first', () => {
    const throttle = new FailureThrottle({ limit: 1, windowMs: 60_000, maxClients: 2, now: () => 0 });
    for (const ip of ['a', 'b', 'c']) throttle.fail(ip);
    expect(throttle.waitMs('a')).toBe(0);
    expect(throttle.waitMs('b')).toBeGreaterThan(0);
    expect(throttle.waitMs('c')).toBeGreaterThan(0);
  });
});

describe('text from websites is shown as it is, never as it pretends to be (house style, habit 13)', () => {
  it.each([
    ['RLO that makes toBTPG read GPTBot', 'User-agent: \u202etoBTPG', 'User-agent: <span class="hc hc-bidi" title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>toBTPG'],
    ['RLO that makes /gnp.exe read /exe.png', '/\u202egnp.exe', '/<span class="hc hc-bidi" title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>gnp.exe'],
    ['an escape sequence', 'a\u001b[31mb', 'a<span class="hc hc-control" title="U+001B ESCAPE">U+001B</span>[31mb'],
    ['a zero-width space in a token', 'GPT\u200bBot', 'GPT<span class="hc hc-invisible" title="U+200B ZERO WIDTH SPACE">U+200B</span>Bot'],
    ['markup, escaped', '<script>"&\'', '&lt;script&gt;&quot;&amp;&#39;'],
    ['markup around a hidden character, escaped', '<b>\u0000</b>', '&lt;b&gt;<span class="hc hc-control" title="U+0000 NULL">U+0000</span>&lt;/b&gt;'],
    ['tabs and other scripts stay', 'a\tb /ünï/日本', 'a\tb /ünï/日本'],
  ])('%s', (_name, text, html) => {
    expect(siteTextHtml(text)).toBe(html);
  });

  it('collects the hidden characters it showed, for the note at the top of the page', () => {
    const seen = new Map();
    siteTextHtml('a\u202eb\u202ec\u200b', seen);
    expect([...seen.keys()]).toEqual([0x202e, 0x200b]);
  });

  it('an attribute gets plain markers (it cannot hold markup); escaping is the template\'s', () => {
    expect(siteTextAttribute('/\u202egnp.exe')).toBe('/<U+202E>gnp.exe');
    expect(escapeHtml(siteTextAttribute('"\u0007'))).toBe('&quot;&lt;U+0007&gt;');
  });

  it('a body is split on CR, LF and CRLF as the engine counts lines, invalid UTF-8 shown as U+FFFD, controls kept for the page to mark', () => {
    expect(bodyLines(Buffer.from('a\r\nb\rc\nd\n'))).toEqual(['a', 'b', 'c', 'd']);
    expect(bodyLines(Buffer.from([0x61, 0xff, 0x0a, 0x62]))).toEqual(['a\uFFFD', 'b']);
    expect(bodyLines(Buffer.from('<script>x</script>\u0000\u001b'))).toEqual(['<script>x</script>\u0000\u001b']);
  });

  it('a unified diff is classed line by line', () => {
    expect(diffLines('--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z\n').map((l) => l.kind)).toEqual(['meta', 'meta', 'hunk', 'remove', 'add', 'context']);
  });
});

describe('every parameter is checked for bad bytes before a route reads it', () => {
  it.each([
    ['/?q=a%00b', /q: holds U\+0000 NULL/],
    ['/?q=%ff', /q: not valid percent-encoded UTF-8/],
    ['/?q=%E2%80%AE', /q: holds U\+202E RIGHT-TO-LEFT OVERRIDE/],
    ['/?q=a%0Ab', /q: holds U\+000A LINE FEED/],
    ['/?q=%09', /q: holds U\+0009/],
    ['/login?next=/%09/evil.com', /next: holds U\+0009/],
    ['/?%00=1', /holds U\+0000/],
    ['/runs/%00', /the path: holds U\+0000/],
    ['/site?origin=%ED%A0%80', /origin: not valid percent-encoded UTF-8/],
    ['/?q=%zz', /q: not valid percent-encoded UTF-8/],
  ])('%s', (url, message) => {
    expect(() => assertCleanUrl(url)).toThrow(BadRequest);
    expect(() => assertCleanUrl(url)).toThrow(message);
  });

  it.each(['/', '/?q=site-42', '/?q=a+b', '/site?origin=https%3A%2F%2Fwww.example.com&url=%2Fcaf%C3%A9', '/?q=%F0%9F%A4%96', '/?q=', '/?flag'])('%s is fine', (url) => {
    expect(() => assertCleanUrl(url)).not.toThrow();
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
