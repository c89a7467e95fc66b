/**
 * The dashboard's lock and its edges, over HTTP on 127.0.0.1 against a real database: the
 * read-only session survives the connection string; a parameter with bad bytes is a 400 with a
 * message (and every answer has the security headers); a login goes back only to a path of the
 * dashboard; the session cookie is Secure behind a trusted HTTPS proxy, new at each login,
 * expired by the server, revoked by a new token; wrong tokens are throttled; a method a page does
 * not take is a 405; the login page shows the form and nothing else.
 */
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, readOnlyConnection } from '../../../src/db/client.js';
import type { DbHandle } from '../../../src/db/client.js';
import { createLogger } from '../../../src/log/logger.js';
import { createDashboard, CONTENT_SECURITY_POLICY } from '../../../src/web/server.js';
import type { DashboardOptions } from '../../../src/web/server.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const TOKEN = 'a-dashboard-token-of-some-length';

let db: TestDatabase;
let handle: DbHandle;
const opened: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url, { max: 4, readOnly: true });
});

afterAll(async () => {
  for (const o of opened.reverse()) await o.close();
  await handle?.close();
  await db?.close();
});

/** A dashboard listening on loopback; `logged` collects what it logs at error level. */
async function dashboard(options: Partial<DashboardOptions> = {}) {
  const logged: string[] = [];
  const sink = new PassThrough();
  sink.on('data', (c: Buffer) => logged.push(c.toString()));
  const app = await createDashboard({ pool: handle.pool, token: TOKEN, databaseName: 'secret_db_name', log: createLogger('error', sink), ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  opened.push(app);
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const get = (path: string, init: RequestInit = {}) => fetch(base + path, { redirect: 'manual', ...init });
  const login = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    get('/login', { method: 'POST', body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  return { base, get, login, logged };
}

const bearer = { authorization: `Bearer ${TOKEN}` };
const sessionOf = (response: Response) => /robots_audit_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];

describe('the read-only session cannot be switched off by the connection string', () => {
  it.each([
    ['options=-c%20default_transaction_read_only%3Doff'],
    ['options=--default_transaction_read_only%3Doff'],
    ['options=-c%20transaction_read_only%3Doff'],
    ['application_name=x&options=-c%20default_transaction_read_only%3Doff&options=-c%20search_path%3Dpublic'],
  ])('?%s: a temporary table cannot be created', async (query) => {
    const reader = createDb(`${db.url}?${query}`, { max: 1, readOnly: true });
    try {
      await expect(reader.pool.query('create temporary table t (x int)')).rejects.toThrow(/read-only transaction/);
      expect((await reader.pool.query<{ v: string }>("select current_setting('default_transaction_read_only') as v")).rows[0]?.v).toBe('on');
    } finally {
      await reader.close();
    }
  });

  it('options that are kept still apply (a search path), before the read-only one', async () => {
    const reader = createDb(`${db.url}?options=-c%20search_path%3Dpg_catalog`, { max: 1, readOnly: true });
    try {
      expect((await reader.pool.query<{ v: string }>("select current_setting('search_path') as v")).rows[0]?.v).toBe('pg_catalog');
    } finally {
      await reader.close();
    }
  });

  it('options ending in a backslash (which would swallow ours) are refused', () => {
    expect(() => readOnlyConnection(`${db.url}?options=-c%20application_name%3Dx%5C`)).toThrow(/backslash/);
  });
});

describe('a parameter with bad bytes is a 400 with a message, never a 500', () => {
  it.each([
    '/?q=%00',
    '/?portfolio=a%00b',
    '/site?origin=https%3A%2F%2Fa.example%00',
    '/changes?since=%00',
    '/changes?crawler=%1b',
    '/ai?q=%E2%80%AE',
    '/csv/status?q=%00',
    '/?q=%ff',
    '/runs/%00',
  ])('%s', async (path) => {
    const { get, logged } = await dashboard({ token: null });
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(await response.text()).toMatch(/class="error">[^<]*(holds U\+|not valid percent-encoded)/);
    expect(logged).toEqual([]);
  });
});

describe('after logging in, only a path of the dashboard', () => {
  it.each([
    ['/\t/evil.example', '/'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example/', '/'],
    ['/x\r\nSet-Cookie: evil=1', '/'],
    ['/x\nLocation: //evil.example', '/'],
    ['/changes?type=flip', '/changes?type=flip'],
  ])('next=%j → %s (303, with the security headers)', async (next, location) => {
    const { login } = await dashboard();
    const response = await login({ token: TOKEN, next });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(location);
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(response.headers.getSetCookie().some((c) => c.startsWith('evil'))).toBe(false);
  });

  it('the form as a browser posts it: next=/%09/evil.example is a tab, which a browser drops (//evil.example)', async () => {
    const { get } = await dashboard();
    const response = await get('/login', {
      method: 'POST',
      body: `token=${TOKEN}&next=/%09/evil.example`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
  });

  it('CR/LF in the login page\'s next is a 400 page with the security headers', async () => {
    const { get } = await dashboard();
    const response = await get('/login?next=/%0d%0aSet-Cookie:%20evil=1');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });
});

describe('the session cookie', () => {
  it('is Secure behind a trusted HTTPS proxy, and only then', async () => {
    const proxied = await dashboard({ trustProxy: ['127.0.0.1'] });
    const secure = await proxied.login({ token: TOKEN, next: '/' }, { 'x-forwarded-proto': 'https' });
    expect(secure.headers.get('set-cookie')).toMatch(/; Secure/);
    expect(secure.headers.get('set-cookie')).toMatch(/HttpOnly/);
    expect(secure.headers.get('set-cookie')).toMatch(/SameSite=Strict/);
    const plain = await proxied.login({ token: TOKEN, next: '/' });
    expect(plain.headers.get('set-cookie')).not.toMatch(/Secure/);
    // Nobody is trusted by default: a client saying https is not believed.
    const direct = await dashboard();
    const spoofed = await direct.login({ token: TOKEN, next: '/' }, { 'x-forwarded-proto': 'https' });
    expect(spoofed.headers.get('set-cookie')).not.toMatch(/Secure/);
  });

  it('is a new value at every login, each one working', async () => {
    const { login, get } = await dashboard();
    const a = sessionOf(await login({ token: TOKEN }));
    const b = sessionOf(await login({ token: TOKEN }));
    expect(a).toBeTruthy();
    expect(b).toBeTruthy();
    expect(a).not.toBe(b);
    for (const s of [a, b]) expect((await get('/runs', { headers: { cookie: `robots_audit_session=${s}` } })).status).toBe(200);
  });

  it('expires on the server: a cookie kept past its lifetime is sent to the login form', async () => {
    const { login, get } = await dashboard({ sessionSeconds: 1 });
    const response = await login({ token: TOKEN });
    expect(response.headers.get('set-cookie')).toMatch(/Max-Age=1/);
    const cookie = `robots_audit_session=${sessionOf(response)}`;
    expect((await get('/runs', { headers: { cookie } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_100));
    const later = await get('/runs', { headers: { cookie, accept: 'text/html' } });
    expect(later.status).toBe(303);
    expect(later.headers.get('location')).toBe('/login?next=%2Fruns');
  });

  it('dies with the token: a dashboard started with a new token refuses the old sessions', async () => {
    const before = await dashboard();
    const cookie = `robots_audit_session=${sessionOf(await before.login({ token: TOKEN }))}`;
    expect((await before.get('/runs', { headers: { cookie } })).status).toBe(200);
    const after = await dashboard({ token: `${TOKEN}-changed` });
    expect((await after.get('/runs', { headers: { cookie } })).status).toBe(401);
  });
});

describe('wrong tokens are throttled per client', () => {
  it('past the limit, the login form answers 429 with Retry-After, even to the right token', async () => {
    const { login } = await dashboard({ loginFailuresPerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await login({ token: 'wrong-token-of-some-length' })).status).toBe(401);
    const blocked = await login({ token: TOKEN });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await blocked.text()).toContain('Too many wrong tokens');
  });

  it('a wrong Bearer header counts too; a right one is never held', async () => {
    const { get } = await dashboard({ loginFailuresPerMinute: 2 });
    for (let i = 0; i < 2; i++) expect((await get('/runs', { headers: { authorization: 'Bearer guess-guess-guess-guess' } })).status).toBe(401);
    expect((await get('/runs', { headers: { authorization: 'Bearer guess-guess-guess-guess' } })).status).toBe(429);
    expect((await get('/runs', { headers: bearer })).status).toBe(200);
  });
});

describe('a method a page does not take is a 405 that says which it takes', () => {
  it.each([
    ['POST', '/', 'GET, HEAD'],
    ['PUT', '/changes', 'GET, HEAD'],
    ['DELETE', '/csv/status', 'GET, HEAD'],
    ['POST', '/runs/1', 'GET, HEAD'],
    ['GET', '/logout', 'POST'],
    ['PUT', '/login', 'GET, HEAD, POST'],
    ['POST', '/static/style.css', 'GET, HEAD'],
  ])('%s %s → 405, Allow: %s', async (method, path, allow) => {
    const { get } = await dashboard();
    const response = await get(path, { method, headers: bearer });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
  });

  it('OPTIONS answers the methods; an unknown path stays a 404', async () => {
    const { get } = await dashboard();
    const options = await get('/changes', { method: 'OPTIONS', headers: bearer });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD');
    expect((await get('/nowhere', { method: 'POST', headers: bearer })).status).toBe(404);
  });
});

describe('before logging in, the form and nothing else', () => {
  it('the login page names no page and no database', async () => {
    const { get } = await dashboard();
    const html = await (await get('/login')).text();
    expect(html).toContain('<form method="post" action="/login"');
    expect(html).not.toContain('<nav');
    expect(html).not.toContain('secret_db_name');
    expect(html).not.toContain('ROBOTS_AUDIT_DASHBOARD_TOKEN');
    expect(html).not.toContain('/changes');
  });

  it('nor does an error page seen before logging in', async () => {
    const { get } = await dashboard();
    const html = await (await get('/?q=%00')).text();
    expect(html).not.toContain('<nav');
    expect(html).not.toContain('secret_db_name');
  });
});
