/**
 * HTTPS: a robots.txt served over TLS is fetched like any other; a certificate that does not
 * verify (self-signed, expired, another name, an unknown CA) is a network_error with Node's own
 * code, never a crash. The certificates are test fixtures (test/fixtures/tls, made by
 * its make-certs.sh); the fetcher trusts the test CA through the dispatcher's `extraCa`.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchDispatcher, type FetchDispatcher } from '../../../src/http/fetch-dispatcher.js';
import { fetchRobotsTxt } from '../../../src/http/fetch-robots-txt.js';
import { FIXTURE_ALLOW_NETWORKS, FIXTURE_RESOLVE_PINS, fixtureFetchOptions } from '../../fixtures/web/fetch-options.js';

const TLS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/tls');
const pem = (name: string) => fs.readFileSync(path.join(TLS_DIR, name), 'utf8');
const BODY = 'User-agent: *\nDisallow: /over-tls/\n';

/** An HTTPS server for one certificate: /robots.txt answers BODY. */
async function tlsServer(name: string): Promise<{ server: https.Server; port: number }> {
  const server = https.createServer({ cert: pem(`${name}.pem`), key: pem(`${name}.key`) }, (req, res) => {
    res.writeHead(req.url === '/robots.txt' ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(req.url === '/robots.txt' ? BODY : 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const servers: Record<string, { server: https.Server; port: number }> = {};
let redirector: http.Server;
let redirectorPort = 0;
let trusting: FetchDispatcher;
let plain: FetchDispatcher;

beforeAll(async () => {
  for (const name of ['secure.test', 'expired.test', 'self-signed.test']) servers[name] = await tlsServer(name);
  // http://hop.test/robots.txt -> https://secure.test/robots.txt
  redirector = http.createServer((_req, res) => {
    res.writeHead(301, { location: `https://secure.test:${servers['secure.test']!.port}/robots.txt` });
    res.end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectorPort = (redirector.address() as AddressInfo).port;
  const base = { connectTimeoutMs: 1000, allowNetworks: FIXTURE_ALLOW_NETWORKS, resolvePins: FIXTURE_RESOLVE_PINS };
  trusting = createFetchDispatcher({ ...base, extraCa: [pem('ca.pem')] });
  plain = createFetchDispatcher(base);
});

afterAll(async () => {
  await trusting?.close();
  await plain?.close();
  for (const { server } of Object.values(servers)) await new Promise<void>((resolve) => server.close(() => resolve()));
  await new Promise<void>((resolve) => redirector?.close(() => resolve()));
});

const fetchVia = (dispatcher: FetchDispatcher, url: string) => fetchRobotsTxt(url, fixtureFetchOptions({ dispatcher }));
const urlOf = (host: string, server = host) => `https://${host}:${servers[server]!.port}/robots.txt`;

describe('HTTPS with a certificate that verifies', () => {
  it('is fetched as over HTTP: ok, the bytes, the address reached', async () => {
    const result = await fetchVia(trusting, urlOf('secure.test'));
    expect(result).toMatchObject({ outcome: 'ok', status: 200, errorCode: null, hops: [], remoteAddress: '127.0.0.1' });
    expect(result.body?.toString()).toBe(BODY);
    expect(result.finalUrl).toBe(urlOf('secure.test'));
  });

  it('R-11: a redirect from http to https is one recorded hop', async () => {
    const from = `http://hop.test:${redirectorPort}/robots.txt`;
    const result = await fetchVia(trusting, from);
    expect(result).toMatchObject({ outcome: 'ok', status: 200, finalUrl: urlOf('secure.test') });
    expect(result.hops).toEqual([{ url: from, status: 301, location: urlOf('secure.test') }]);
  });
});

describe('R-15: a certificate that does not verify is a network_error with the TLS code', () => {
  it.each([
    ['self-signed', () => fetchVia(trusting, urlOf('self-signed.test')), 'DEPTH_ZERO_SELF_SIGNED_CERT'],
    ['expired', () => fetchVia(trusting, urlOf('expired.test')), 'CERT_HAS_EXPIRED'],
    ['for another name', () => fetchVia(trusting, urlOf('wrong-name.test', 'secure.test')), 'ERR_TLS_CERT_ALTNAME_INVALID'],
    ['from a CA nobody trusts', () => fetchVia(plain, urlOf('secure.test')), 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
  ])('%s', async (_name, fetch, code) => {
    const result = await fetch();
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: code, status: null, body: null, cache: null });
    expect(result.errorMessage).toBeTruthy();
  });

  it('after a redirect too: the hop is kept and the TLS failure is the outcome', async () => {
    // hop.test redirects to secure.test, which the plain dispatcher does not trust.
    const result = await fetchVia(plain, `http://hop.test:${redirectorPort}/robots.txt`);
    expect(result).toMatchObject({ outcome: 'network_error', errorCode: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(result.hops).toHaveLength(1);
  });
});
