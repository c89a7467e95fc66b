/**
 * The dashboard's HTTP server (fastify): security headers on every answer, every path and query
 * checked for bad bytes before a route reads it, the token check and the login form (sessions
 * that rotate, expire and die with the token; failed logins throttled), 405 for a method a page
 * does not take, Server-Timing, static files, and the pages (routes.ts) and CSV downloads
 * (csv-downloads.ts). Read-only by construction: every route but the login form and "Test a
 * draft" (which only computes, draft-page.ts) is a GET, and
 * the pool's sessions are read-only (`default_transaction_read_only`, src/db/client.ts), so no
 * request can change the database. What a page computes from a site's bytes runs in a thread with
 * a deadline (page-compute.ts), so no page holds the event loop the others are answered on.
 */
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import path from 'node:path';
import type pg from 'pg';
import { DASHBOARD_DOWNLOADS, DASHBOARD_LOGIN_FAILURES, DASHBOARD_SESSION_SECONDS } from '../config/env.js';
import type { Logger } from '../log/logger.js';
import { ReportInputError } from '../reports/index.js';
import { authenticate, newSession, safeNextPath, sameSecret, SESSION_COOKIE } from './auth.js';
import { registerCsvDownloads } from './csv-downloads.js';
import { FailureThrottle } from './failure-throttle.js';
import { assertCleanUrl, BadRequest } from './query-params.js';
import { createRenderer, pageHelpers, WEB_ROOT } from './render.js';
import { NotFound } from './not-found.js';
import { registerPages } from './routes.js';
import { createPageCompute } from './page-compute.js';
import type { PageComputeOptions } from './page-compute.js';

export interface DashboardOptions {
  pool: pg.Pool;
  /** Required on every request when set (ROBOTS_AUDIT_DASHBOARD_TOKEN). */
  token: string | null;
  /** Shown in the page footer once logged in: which database this is. */
  databaseName: string;
  log?: Logger;
  /** Proxies whose X-Forwarded-* headers are believed (ROBOTS_AUDIT_DASHBOARD_TRUST_PROXY); none by default. */
  trustProxy?: readonly string[];
  /** How long a login lasts, seconds (ROBOTS_AUDIT_DASHBOARD_SESSION_SECONDS). */
  sessionSeconds?: number;
  /** Failed logins per client per minute (ROBOTS_AUDIT_DASHBOARD_LOGIN_FAILURES). */
  loginFailuresPerMinute?: number;
  /** CSV downloads streamed at once (ROBOTS_AUDIT_DASHBOARD_DOWNLOADS). */
  downloads?: number;
  /** What pages compute from a site's bytes: its deadline and threads (ROBOTS_AUDIT_DASHBOARD_COMPUTE_MS, _THREADS). */
  compute?: PageComputeOptions;
}

/**
 * No inline script or style, nothing from elsewhere: a `<script>` that a robots.txt smuggled
 * into a page would not run even if escaping failed. Inline SVG is markup, not script.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Origins travel in query strings: they are nobody else's business.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** Paths reachable without the token: the login form, logging out, and the static files the form uses. */
const OPEN_PATHS = ['/login', '/logout', '/static/'];
const LOGIN_WINDOW_MS = 60_000;
/** Methods a route may be asked for that it does not take: answered 405 with the ones it does. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

type TimedRequest = FastifyRequest & { startedAt?: bigint; authenticated?: boolean };

export async function createDashboard(options: DashboardOptions): Promise<FastifyInstance> {
  const sessionSeconds = options.sessionSeconds ?? DASHBOARD_SESSION_SECONDS;
  const app = Fastify({
    logger: false,
    // Query strings carry origins and cursors, never more than this.
    routerOptions: { maxParamLength: 2_000 },
    bodyLimit: 16_384,
    trustProxy: options.trustProxy && options.trustProxy.length > 0 ? [...options.trustProxy] : false,
  });
  const eta = createRenderer();
  const token = options.token;
  const throttle = new FailureThrottle({ limit: options.loginFailuresPerMinute ?? DASHBOARD_LOGIN_FAILURES, windowMs: LOGIN_WINDOW_MS });
  /** A page; before login (or without a token to log in with) without the navigation and the database's name. */
  const render = (reply: FastifyReply, template: string, data: Record<string, unknown>, status = 200) => {
    const request = reply.request as TimedRequest;
    const bare = template === 'login' || (token !== null && request.authenticated !== true);
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(eta.render(template, { h: pageHelpers(), databaseName: options.databaseName, bare, authenticated: token !== null && !bare, ...data }));
  };

  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);
  await app.register(fastifyStatic, { root: path.join(WEB_ROOT, 'static'), prefix: '/static/', maxAge: '1h', index: false });

  // Server time of each request, for people (Server-Timing in the browser's tools) and the bench;
  // the security headers before anything can answer, so every answer carries them.
  app.addHook('onRequest', async (request, reply) => {
    (request as TimedRequest).startedAt = process.hrtime.bigint();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    reply.header('cache-control', 'no-store');
    assertCleanUrl(request.url);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const started = (request as TimedRequest).startedAt;
    if (started !== undefined) reply.header('server-timing', `app;dur=${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)}`);
    return payload;
  });

  const tooMany = (reply: FastifyReply, waitMs: number) => reply.header('retry-after', String(Math.ceil(waitMs / 1000)));

  if (token !== null) {
    app.addHook('onRequest', async (request, reply) => {
      const url = request.url;
      const pathname = url.split('?')[0]!;
      const result = authenticate({ authorization: request.headers.authorization, cookie: request.cookies[SESSION_COOKIE] }, token, sessionSeconds);
      (request as TimedRequest).authenticated = result === 'bearer' || result === 'session';
      if ((request as TimedRequest).authenticated) return;
      if (OPEN_PATHS.some((p) => (p.endsWith('/') ? pathname.startsWith(p) : pathname === p))) return;
      if (result === 'wrong') {
        const wait = throttle.waitMs(request.ip);
        if (wait > 0) return tooMany(reply, wait).code(429).type('text/plain; charset=utf-8').send('429: too many wrong tokens; try again later\n');
        throttle.fail(request.ip);
      }
      const wantsHtml = request.method === 'GET' && (request.headers.accept ?? '').includes('text/html');
      if (wantsHtml && result !== 'wrong') return reply.redirect(`/login?next=${encodeURIComponent(url)}`, 303);
      return reply.code(401).header('www-authenticate', 'Bearer realm="robots-audit"').type('text/plain; charset=utf-8').send('401: a token is required (Authorization: Bearer <token>)\n');
    });
  }

  const loginForm = (reply: FastifyReply, next: string, error: string | null, status: number) =>
    render(reply, 'login', { title: 'Log in', next, error }, status);
  app.get('/login', async (request, reply) => {
    if (token === null) return reply.redirect('/', 303);
    return loginForm(reply, safeNextPath((request.query as { next?: unknown }).next), null, 200);
  });
  app.post('/login', async (request, reply) => {
    if (token === null) return reply.redirect('/', 303);
    const body = (request.body ?? {}) as { token?: unknown; next?: unknown };
    const next = safeNextPath(body.next);
    const wait = throttle.waitMs(request.ip);
    if (wait > 0) return loginForm(tooMany(reply, wait), next, `Too many wrong tokens: try again in ${Math.ceil(wait / 1000)} s.`, 429);
    if (typeof body.token !== 'string' || !sameSecret(body.token, token)) {
      throttle.fail(request.ip);
      return loginForm(reply, next, 'That is not the token.', 401);
    }
    // A new value at every login; Secure when the browser came over HTTPS (directly, or through a trusted proxy).
    reply.setCookie(SESSION_COOKIE, newSession(token), {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      maxAge: sessionSeconds,
    });
    return reply.redirect(next, 303);
  });
  app.post('/logout', async (_request, reply) => {
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/login', 303);
  });

  // The pages' computations over a site's bytes run in threads with a deadline (page-compute.ts); they end with the server.
  const compute = createPageCompute(options.compute);
  app.addHook('onListen', async () => compute.warm());
  app.addHook('onClose', async () => compute.close());
  registerPages(app, { pool: options.pool, render, compute });
  registerCsvDownloads(app, { pool: options.pool, downloads: options.downloads ?? DASHBOARD_DOWNLOADS, log: options.log });

  app.setNotFoundHandler(async (request, reply) => {
    // A path that exists for other methods: 405 with the ones it takes (OPTIONS asks exactly that).
    const pathname = request.url.split('?')[0]!;
    const allowed = METHODS.filter((m) => app.findRoute({ method: m, url: pathname }) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      if (request.method === 'OPTIONS') return reply.code(204).send();
      return render(reply, 'error', { title: 'Method not allowed', message: `${request.method} is not allowed here; this page takes ${allowed.join(', ')}.` }, 405);
    }
    return render(reply, 'error', { title: 'Not found', message: 'There is no such page.' }, 404);
  });
  app.setErrorHandler(async (err, request, reply) => {
    if (err instanceof BadRequest || err instanceof ReportInputError) return render(reply, 'error', { title: 'Bad request', message: err.message }, 400);
    if (err instanceof NotFound) return render(reply, 'error', { title: 'Not found', message: err.message, instead: err.instead }, 404);
    const { statusCode: status, message } = err as { statusCode?: number; message?: string };
    if (status !== undefined && status >= 400 && status < 500) return render(reply, 'error', { title: 'Bad request', message: message ?? 'Bad request.' }, status);
    options.log?.error({ err, url: request.url }, 'dashboard request failed');
    return render(reply, 'error', { title: 'Error', message: 'The page could not be built; the server log says why.' }, 500);
  });
  return app;
}
