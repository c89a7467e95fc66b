import { closedPort } from '../../fixtures/webhook-receiver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchDispatcher } from '../../../src/http/fetch-dispatcher.js';
import { fetchRobotsTxt } from '../../../src/http/fetch-robots-txt.js';
import { FetchSlots } from '../../../src/http/fetch-slots.js';
import { HostGate } from '../../../src/http/host-gate.js';
import { InvalidUrlError } from '../../../src/robots/origin.js';
import {
  BOM_BODY,
  bigBody,
  fixtureFetchOptions,
  FIXTURE_TIMEOUTS,
  gzipBomb,
  HTML_BODY,
  LATIN1_BODY,
  MIB,
  OK_BODY,
  startFixtureWeb,
  type FixtureWeb,
} from '../../fixtures/web/index.js';

let web: FixtureWeb;
const options = (overrides = {}) => fixtureFetchOptions(overrides);
const fetchHost = (host: string, overrides = {}) => fetchRobotsTxt(web.baseUrl(host), options(overrides));

beforeAll(async () => {
  web = await startFixtureWeb();
  await gzipBomb(); // built once here, so the bomb test times the fetch only
});

afterAll(async () => {
  await web.close();
});

describe('R-10: 2xx -> ok, body kept byte for byte', () => {
  it.each<[string, Buffer, string | null]>([
    ['ok', Buffer.from(OK_BODY), 'text/plain'],
    ['html', Buffer.from(HTML_BODY), 'text/html; charset=utf-8'], // parsed anyway, later
    ['empty', Buffer.alloc(0), 'text/plain'],
    ['latin1', LATIN1_BODY, 'text/plain; charset=iso-8859-1'], // bytes not re-encoded
    ['bom', BOM_BODY, 'text/plain'], // the BOM is the parser's business
  ])('%s', async (host, body, contentType) => {
    const result = await fetchHost(`${host}.test`);
    expect(result).toMatchObject({
      outcome: 'ok',
      status: 200,
      errorCode: null,
      hops: [],
      truncated: false,
      bodyBytes: body.length,
      fullSize: body.length,
      remoteAddress: '127.0.0.1',
    });
    expect(result.body?.equals(body)).toBe(true);
    expect(result.headers.contentType).toBe(contentType);
    expect(result.requestedUrl).toBe(`http://${host}.test:${web.port}/robots.txt`);
    expect(result.finalUrl).toBe(result.requestedUrl);
  });

  it.each(['gzip', 'deflate', 'deflate-raw', 'br'])('%s bodies are decoded; the bytes kept are the decoded ones', async (host) => {
    const result = await fetchHost(`${host}.test`);
    expect(result.outcome).toBe('ok');
    expect(result.body?.toString('utf8')).toBe(OK_BODY);
    expect(result.fullSize).toBe(Buffer.byteLength(OK_BODY));
    expect(result.headers.contentEncoding).not.toBeNull();
  });
});

describe('R-19: a plain, non-conditional GET with our headers', () => {
  it('sends GET /robots.txt with User-Agent, Accept and Accept-Encoding, and nothing conditional', async () => {
    web.resetCounters();
    await fetchHost('ok.test', { userAgent: 'robots-audit-test/ua-check' });
    const [request] = web.requests('ok.test');
    expect(request).toMatchObject({ method: 'GET', path: '/robots.txt' });
    expect(request?.headers).toMatchObject({
      'user-agent': 'robots-audit-test/ua-check',
      accept: 'text/plain,*/*',
      'accept-encoding': 'gzip, deflate, br',
      host: `ok.test:${web.port}`,
    });
    for (const conditional of ['if-modified-since', 'if-none-match', 'if-match', 'if-unmodified-since', 'if-range', 'range']) {
      expect(request?.headers).not.toHaveProperty(conditional);
    }
    expect(web.requestCount('ok.test')).toBe(1);
  });
});

describe('R-11: redirects are followed by hand, at least five hops, across hosts', () => {
  it.each([1, 2, 3, 4, 5])('redirect-%i: %i hops then 200', async (n) => {
    const result = await fetchHost(`redirect-${n}.test`);
    expect(result.outcome).toBe('ok');
    expect(result.status).toBe(200);
    expect(result.hops).toHaveLength(n);
    expect(result.hops.map((h) => h.status)).toEqual([301, 302, 303, 307, 308].slice(0, n));
    expect(result.hops[0]).toEqual({
      url: `http://redirect-${n}.test:${web.port}/robots.txt`,
      status: 301,
      location: `http://redirect-${n}.test:${web.port}/r/1`,
    });
    if (n >= 2) expect(result.hops[1]).toMatchObject({ location: '/r/2' }); // relative Location resolved
    expect(result.finalUrl).toBe(`http://redirect-${n}.test:${web.port}/r/${n}`);
    expect(result.body?.toString()).toBe(`# reached after ${n} redirects\nUser-agent: *\nDisallow: /chain/\n`);
  });

  it('redirect-6: a sixth redirect is past the limit -> redirect_limit (treated as 404)', async () => {
    const result = await fetchHost('redirect-6.test');
    expect(result).toMatchObject({ outcome: 'redirect_limit', errorCode: 'TOO_MANY_REDIRECTS', status: 301, body: null });
    expect(result.hops).toHaveLength(6);
    expect(web.requestCount('redirect-6.test')).toBeGreaterThanOrEqual(6);
  });

  it('the limit is the maxRedirects option', async () => {
    const result = await fetchHost('redirect-3.test', { maxRedirects: 2 });
    expect(result).toMatchObject({ outcome: 'redirect_limit', errorCode: 'TOO_MANY_REDIRECTS' });
    expect(result.hops).toHaveLength(3);
    expect((await fetchHost('redirect-6.test', { maxRedirects: 6 })).outcome).toBe('ok');
  });

  it('follows a redirect to another host', async () => {
    const result = await fetchHost('cross-host.test');
    expect(result).toMatchObject({ outcome: 'ok', finalUrl: `http://ok.test:${web.port}/robots.txt` });
    expect(result.hops).toEqual([{ url: `http://cross-host.test:${web.port}/robots.txt`, status: 301, location: `http://ok.test:${web.port}/robots.txt` }]);
    expect(result.body?.toString()).toBe(OK_BODY);
  });

  it('A -> B -> A is a loop -> redirect_limit, without running to the hop limit', async () => {
    web.resetCounters();
    const result = await fetchHost('loop.test');
    expect(result).toMatchObject({ outcome: 'redirect_limit', errorCode: 'REDIRECT_LOOP', status: 302 });
    expect(result.hops.map((h) => h.url)).toEqual([`http://loop.test:${web.port}/robots.txt`, `http://loop-b.test:${web.port}/robots.txt`]);
    expect(web.requestCount('loop.test')).toBe(1);
    expect(web.requestCount('loop-b.test')).toBe(1);
  });

  it('a redirect to itself is a loop', async () => {
    const result = await fetchHost('self-loop.test');
    expect(result).toMatchObject({ outcome: 'redirect_limit', errorCode: 'REDIRECT_LOOP' });
    expect(result.hops).toHaveLength(1);
  });

  it.each<[string, string]>([
    ['redirect-no-location', 'REDIRECT_NO_LOCATION'], // invalid response
    ['redirect-ftp', 'REDIRECT_BAD_LOCATION'],
    ['redirect-bad-location', 'REDIRECT_BAD_LOCATION'],
  ])('%s -> network_error %s', async (host, code) => {
    const result = await fetchHost(`${host}.test`);
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: code });
    expect(result.hops).toHaveLength(1);
  });
});

describe('R-12, D-4, R-13: status classes', () => {
  it.each<[string, string, number, number | null]>([
    ['s401', 'unavailable', 401, null],
    ['s403', 'unavailable', 403, null],
    ['s404', 'unavailable', 404, null],
    ['s410', 'unavailable', 410, null],
    ['s429', 'rate_limited', 429, 120],
    ['s500', 'server_error', 500, null],
    ['s502', 'server_error', 502, null],
    ['s503', 'server_error', 503, 7],
  ])('%s -> %s', async (host, outcome, status, retryAfter) => {
    const result = await fetchHost(`${host}.test`);
    expect(result).toMatchObject({ outcome, status, errorCode: null, body: null, bodyBytes: 0, retryAfterSeconds: retryAfter });
    expect(result.fullSize).toBe(`status ${status}\n`.length); // measured, not kept
  });

  it.each<[string, number]>([
    ['s304', 304],
    ['s600', 600],
  ])('%s: a status that is neither 2xx-5xx nor a followed redirect -> network_error INVALID_STATUS', async (host, status) => {
    expect(await fetchHost(`${host}.test`)).toMatchObject({ outcome: 'network_error', status, errorCode: 'INVALID_STATUS' });
  });
});

describe('R-15: failed requests and incomplete data -> network_error with a precise code', () => {
  it('headers too slow -> UND_ERR_HEADERS_TIMEOUT, within the headers timeout', async () => {
    const result = await fetchHost('slow-headers.test');
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'UND_ERR_HEADERS_TIMEOUT', status: null, cache: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(FIXTURE_TIMEOUTS.headersTimeoutMs - 50);
    expect(result.durationMs).toBeLessThan(2800); // the server would answer at 3000 ms
  });

  it('a body that stalls -> UND_ERR_BODY_TIMEOUT', async () => {
    const result = await fetchHost('stall-body.test');
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'UND_ERR_BODY_TIMEOUT', status: 200, body: null });
    expect(result.durationMs).toBeLessThan(FIXTURE_TIMEOUTS.totalTimeoutMs);
  });

  it('a trickle that never ends -> TOTAL_TIMEOUT at the total deadline', async () => {
    const result = await fetchHost('trickle.test');
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'TOTAL_TIMEOUT', status: 200, body: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(FIXTURE_TIMEOUTS.totalTimeoutMs - 50);
    expect(result.durationMs).toBeLessThan(FIXTURE_TIMEOUTS.totalTimeoutMs + 1500);
  });

  it('the total deadline covers redirects too', async () => {
    web.set('slow-hop.test', (_req, res) => {
      setTimeout(() => {
        res.writeHead(302, { location: web.url('slow-headers.test') });
        res.end();
      }, 300);
    });
    const result = await fetchHost('slow-hop.test', { totalTimeoutMs: 800, headersTimeoutMs: 2000 });
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'TOTAL_TIMEOUT' });
    expect(result.hops).toHaveLength(1);
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('connection destroyed mid-body -> the server closed it before the body it announced was complete (UND_ERR_SOCKET)', async () => {
    const result = await fetchHost('reset-mid-body.test');
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'UND_ERR_SOCKET', status: 200, body: null, truncated: false });
    expect(result.errorMessage).toMatch(/other side closed/);
  });

  it('invalid chunked encoding -> HPE_INVALID_CHUNK_SIZE', async () => {
    const result = await fetchHost('bad-chunked.test');
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'HPE_INVALID_CHUNK_SIZE', status: 200, body: null });
  });

  it.each(['bad-gzip', 'cut-gzip', 'unknown-encoding'])('%s -> DECODE_ERROR', async (host) => {
    expect(await fetchHost(`${host}.test`)).toMatchObject({ outcome: 'network_error', errorCode: 'DECODE_ERROR', status: 200, body: null });
  });

  it('an unresolvable name -> ENOTFOUND, fast and without DNS traffic (.invalid, RFC 6761)', async () => {
    const result = await fetchRobotsTxt('http://nonexistent.invalid', options());
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'ENOTFOUND', status: null, remoteAddress: null, cache: null });
    expect(result.durationMs).toBeLessThan(1000);
  });

  it('a refused port -> ECONNREFUSED', async () => {
    const port = await closedPort();
    const result = await fetchRobotsTxt(`http://refused.test:${port}`, options());
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'ECONNREFUSED', status: null });
    expect(result.errorMessage).toContain(String(port));
  });

  it('a TLS handshake that fails -> the TLS error code (here: an http server on an https URL)', async () => {
    const result = await fetchRobotsTxt(`https://ok.test:${web.port}`, options());
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'ERR_SSL_WRONG_VERSION_NUMBER', status: null });
  });

  it('a connection that cannot be set up in time -> UND_ERR_CONNECT_TIMEOUT (DNS included)', async () => {
    // A resolver that never answers stands in for a black-holed host: no packet leaves.
    const dispatcher = createFetchDispatcher({ ...options({ connectTimeoutMs: 300 }), resolver: () => {} });
    try {
      const result = await fetchRobotsTxt('http://hang.example', options({ dispatcher }));
      expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'UND_ERR_CONNECT_TIMEOUT', status: null });
      expect(result.durationMs).toBeLessThan(FIXTURE_TIMEOUTS.totalTimeoutMs);
    } finally {
      await dispatcher.close();
    }
  });

  it('ftp origins (R-6) cannot be fetched -> UNSUPPORTED_SCHEME, no throw', async () => {
    expect(await fetchRobotsTxt('ftp://ftp.example.com', options())).toMatchObject({ outcome: 'network_error', errorCode: 'UNSUPPORTED_SCHEME' });
  });
});

describe('R-18, D-6: size caps', () => {
  it('a 1 MiB body keeps its first 500 KiB, truncated, full size from Content-Length', async () => {
    const result = await fetchHost('big-1mib.test');
    expect(result).toMatchObject({ outcome: 'ok', truncated: true, bodyBytes: 500 * 1024, fullSize: MIB });
    expect(result.body?.equals(bigBody(MIB).subarray(0, 500 * 1024))).toBe(true);
  });

  it('the cap is the maxBodyBytes option', async () => {
    const result = await fetchHost('big-1mib.test', { maxBodyBytes: 1000 });
    expect(result).toMatchObject({ outcome: 'ok', truncated: true, bodyBytes: 1000 });
    expect(result.body?.equals(bigBody(MIB).subarray(0, 1000))).toBe(true);
  });

  it('an endless body returns promptly: ok, truncated', async () => {
    const result = await fetchHost('endless.test');
    expect(result).toMatchObject({ outcome: 'ok', truncated: true, bodyBytes: 500 * 1024, fullSize: null });
    expect(result.durationMs).toBeLessThan(FIXTURE_TIMEOUTS.totalTimeoutMs);
  });

  it('a gzip bomb (128 MiB of zeros) stops at the decoded cap, quickly', async () => {
    const result = await fetchHost('gzip-bomb.test');
    expect(result).toMatchObject({ outcome: 'ok', truncated: true, bodyBytes: 500 * 1024, fullSize: null });
    expect(result.body?.equals(Buffer.alloc(500 * 1024))).toBe(true);
    expect(result.durationMs).toBeLessThan(2000);
  });
});

describe('body bytes held: a body past smallBodyBytes waits for one of the large-body slots', () => {
  const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('while the only slot is taken, a large body pauses and a small one goes through; then it reads on, whole', async () => {
    const largeBodies = new FetchSlots(1);
    const taken = await largeBodies.hold();
    let settled = false;
    const big = fetchHost('big-1mib.test', { largeBodies, smallBodyBytes: 64 * 1024 }).then((r) => ((settled = true), r));
    await later(150);
    expect([settled, largeBodies.waiting]).toEqual([false, 1]);
    const small = await fetchHost('ok.test', { largeBodies, smallBodyBytes: 64 * 1024 });
    expect(small).toMatchObject({ outcome: 'ok', bodyBytes: Buffer.byteLength(OK_BODY) });
    taken();
    const result = await big;
    expect(result).toMatchObject({ outcome: 'ok', truncated: true, bodyBytes: 500 * 1024, fullSize: MIB });
    expect(result.body?.equals(bigBody(MIB).subarray(0, 500 * 1024))).toBe(true);
    expect([largeBodies.inUse, largeBodies.waiting]).toEqual([0, 0]);
  });

  it('a wait for a slot ends with the total deadline of the fetch, and leaves the line', async () => {
    const largeBodies = new FetchSlots(1);
    const taken = await largeBodies.hold();
    const result = await fetchHost('big-1mib.test', { largeBodies, smallBodyBytes: 64 * 1024, totalTimeoutMs: 300 });
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'TOTAL_TIMEOUT', body: null });
    expect([largeBodies.inUse, largeBodies.waiting]).toEqual([1, 0]);
    taken();
  });
});

describe('R-17: cache lifetime from the response', () => {
  const clock = () => new Date('2026-05-01T00:00:00Z');

  it('max-age minus Age', async () => {
    const result = await fetchHost('cached.test', { now: clock });
    expect(result.cache).toEqual({
      maxAgeSeconds: 600,
      ageSeconds: 60,
      lifetimeSeconds: 540,
      source: 'max-age',
      expiresAt: new Date('2026-05-01T00:09:00Z'),
    });
    expect(result.headers).toMatchObject({ cacheControl: 'public, max-age=600', age: '60' });
  });

  it('no-store -> 0', async () => {
    expect((await fetchHost('no-store.test')).cache).toMatchObject({ lifetimeSeconds: 0, source: 'no-store' });
  });

  it('nothing said -> the default (24 h)', async () => {
    expect((await fetchHost('ok.test')).cache).toMatchObject({ lifetimeSeconds: 86_400, source: 'default' });
    expect((await fetchHost('ok.test', { defaultCacheSeconds: 60 })).cache).toMatchObject({ lifetimeSeconds: 60 });
  });

  it('the injected clock dates the fetch and reads Retry-After dates', async () => {
    web.set('retry-date.test', { status: 503, body: 'later\n', headers: { 'retry-after': 'Fri, 01 May 2026 00:05:00 GMT' } });
    const result = await fetchHost('retry-date.test', { now: clock });
    expect(result).toMatchObject({ outcome: 'server_error', startedAt: clock(), retryAfterSeconds: 300 });
  });
});

describe('SSRF guard: refused before any connection, on every hop', () => {
  it.each(['http://127.0.0.1', 'http://[::1]', 'http://[::ffff:127.0.0.1]', 'http://localhost'])(
    '%s:<port> with no allowNetworks -> SSRF_BLOCKED, and the server never sees a connection',
    async (base) => {
      web.resetCounters();
      const result = await fetchRobotsTxt(`${base}:${web.port}`, options({ allowNetworks: [] }));
      expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'SSRF_BLOCKED', status: null, remoteAddress: null });
      expect(result.errorMessage).toMatch(/loopback/);
      expect(web.connectionCount()).toBe(0);
    },
  );

  it.each(['http', 'https'])('%s: a name pinned to a private address is refused, naming the address', async (scheme) => {
    const result = await fetchRobotsTxt(`${scheme}://blocked.test`, options({ resolvePins: ['*.test=127.0.0.1', 'blocked.test=10.0.0.1'] }));
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'SSRF_BLOCKED' });
    expect(result.errorMessage).toContain('10.0.0.1');
    expect(result.errorMessage).toContain('blocked.test');
  });

  it('a redirect to a literal metadata address is refused (no DNS for literals)', async () => {
    const result = await fetchHost('to-metadata.test');
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'SSRF_BLOCKED', finalUrl: 'http://169.254.169.254/latest/meta-data/' });
    expect(result.hops).toEqual([{ url: `http://to-metadata.test:${web.port}/robots.txt`, status: 302, location: 'http://169.254.169.254/latest/meta-data/' }]);
    expect(result.errorMessage).toContain('169.254.169.254');
  });

  it('a redirect to a name that resolves to a private address is refused before connecting', async () => {
    const pins = ['*.test=127.0.0.1', 'evil.test=10.255.255.1'];
    // A real connection attempt to 10.255.255.1 would end in a connect timeout, not SSRF_BLOCKED.
    const result = await fetchHost('to-evil.test', { resolvePins: pins, connectTimeoutMs: 5000 });
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'SSRF_BLOCKED', finalUrl: `http://evil.test:${web.port}/robots.txt` });
    expect(result.errorMessage).toContain('10.255.255.1');
    expect(result.hops).toHaveLength(1);
    expect(result.durationMs).toBeLessThan(1000);
  });
});

describe('reuse and politeness', () => {
  it('a shared dispatcher serves several fetches and keeps its guard', async () => {
    const dispatcher = createFetchDispatcher(options());
    try {
      const first = await fetchRobotsTxt(web.baseUrl('ok.test'), options({ dispatcher }));
      const second = await fetchRobotsTxt(web.baseUrl('cross-host.test'), options({ dispatcher }));
      expect([first.outcome, second.outcome]).toEqual(['ok', 'ok']);
      expect(second.remoteAddress).toBe('127.0.0.1');
      const blocked = await fetchRobotsTxt('http://169.254.169.254', options({ dispatcher }));
      expect(blocked.errorCode).toBe('SSRF_BLOCKED');
    } finally {
      await dispatcher.close();
    }
  });

  it('each request has a connection of its own, closed once its answer is read (redirect hops too): none is left open', async () => {
    const dispatcher = createFetchDispatcher(options());
    try {
      web.resetCounters();
      const results = await Promise.all(['ok.test', 'redirect-2.test', 'status-404.test'].map((host) => fetchRobotsTxt(web.baseUrl(host), options({ dispatcher }))));
      expect(results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'unavailable']);
      expect(web.connectionCount()).toBe(5);
      await new Promise((r) => setTimeout(r, 50));
      expect(web.openConnections()).toBe(0);
    } finally {
      await dispatcher.close();
    }
  });

  it('the fixture sees concurrent requests per host; HostGate brings them to one at a time', async () => {
    const slow = (host: string) =>
      web.set(host, (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '3' });
          res.end('ok\n');
        }, 150);
      });
    slow('busy.test');
    slow('gated.test');
    web.resetCounters();

    await Promise.all([1, 2, 3].map(() => fetchHost('busy.test')));
    expect(web.maxInFlight('busy.test')).toBe(3);

    const gate = new HostGate();
    const results = await Promise.all([1, 2, 3].map(() => gate.run('gated.test', () => fetchHost('gated.test'))));
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(web.maxInFlight('gated.test')).toBe(1);
    expect(web.requestCount('gated.test')).toBe(3);
    expect(web.inFlight('gated.test')).toBe(0);
  });

  it('per-test replies: a host-wide reply, then a path-specific one that wins', async () => {
    web.set('site-a.test', { status: 200, body: 'User-agent: *\nDisallow: /a/\n', headers: { 'cache-control': 'max-age=5' } });
    expect((await fetchHost('site-a.test')).body?.toString()).toBe('User-agent: *\nDisallow: /a/\n');
    web.set('site-a.test', { status: 410 }, { path: '/robots.txt' });
    expect(await fetchHost('site-a.test')).toMatchObject({ outcome: 'unavailable', status: 410 });
    web.unset('site-a.test');
    expect(await fetchHost('site-a.test')).toMatchObject({ outcome: 'unavailable', status: 404 }); // no scenario of that name
  });
});

describe('arguments: only programmer errors throw', () => {
  it.each(['', 'http://', 'gopher://robots.invalid/', 'http://exa mple.invalid'])('origin %j -> InvalidUrlError', async (origin) => {
    await expect(fetchRobotsTxt(origin, options())).rejects.toBeInstanceOf(InvalidUrlError);
  });
});
