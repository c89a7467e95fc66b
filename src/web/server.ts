/**
 * The dashboard's HTTP server (fastify): security headers and the token check on every
 * request, the login form, static files, and the pages (routes.ts). Read-only by construction:
 * every route but the login form and "Test a draft" (which only computes, draft-page.ts) is a
 * GET, and the pool's sessions are read-only (`default_transaction_read_only`), so no request can
 * change the database.
 */
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from '../log/logger.js';
import { ReportInputError } from '../reports/index.js';
import { isAuthorized, safeNextPath, sameSecret, SESSION_COOKIE, SESSION_MAX_AGE_SECONDS, sessionValue } from './auth.js';
import { BadRequest } from './query-params.js';
import { createRenderer, HELPERS, WEB_ROOT } from './render.js';
import { NotFound, registerPages } from './routes.js';

export interface DashboardOptions {
  pool: pg.Pool;
  /** Required on every request when set (ROBOTS_AUDIT_DASHBOARD_TOKEN). */
  token: string | null;
  /** Shown in the page footer: which database this is. */
  databaseName: string;
  log?: Logger;
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

export async function createDashboard(options: DashboardOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    // Query strings carry origins and cursors, never more than this.
    routerOptions: { maxParamLength: 2_000 },
    bodyLimit: 16_384,
  });
  const eta = createRenderer();
  const render = (reply: FastifyReply, template: string, data: Record<string, unknown>, status = 200) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(eta.render(template, { h: HELPERS, databaseName: options.databaseName, authenticated: options.token !== null && template !== 'login', ...data }));

  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);
  await app.register(fastifyStatic, { root: path.join(WEB_ROOT, 'static'), prefix: '/static/', maxAge: '1h', index: false });

  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });

  // Server time of each request, for people (Server-Timing in the browser's tools) and the bench.
  app.addHook('onRequest', async (request) => {
    (request as FastifyRequest & { startedAt?: bigint }).startedAt = process.hrtime.bigint();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const started = (request as FastifyRequest & { startedAt?: bigint }).startedAt;
    if (started !== undefined) reply.header('server-timing', `app;dur=${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)}`);
    return payload;
  });

  const token = options.token;
  if (token !== null) {
    app.addHook('onRequest', async (request, reply) => {
      const url = request.url;
      const pathname = url.split('?')[0]!;
      if (OPEN_PATHS.some((p) => (p.endsWith('/') ? pathname.startsWith(p) : pathname === p))) return;
      if (isAuthorized({ authorization: request.headers.authorization, cookie: request.cookies[SESSION_COOKIE] }, token)) return;
      const wantsHtml = request.method === 'GET' && (request.headers.accept ?? '').includes('text/html');
      if (wantsHtml) return reply.redirect(`/login?next=${encodeURIComponent(url)}`, 303);
      return reply.code(401).header('www-authenticate', 'Bearer realm="robots-audit"').type('text/plain; charset=utf-8').send('401: a token is required (Authorization: Bearer <token>)\n');
    });
  }

  app.get('/login', async (request, reply) => {
    if (token === null) return reply.redirect('/', 303);
    return render(reply, 'login', { title: 'Log in', next: safeNextPath((request.query as { next?: unknown }).next), error: null });
  });
  app.post('/login', async (request, reply) => {
    if (token === null) return reply.redirect('/', 303);
    const body = (request.body ?? {}) as { token?: unknown; next?: unknown };
    const next = safeNextPath(body.next);
    if (typeof body.token !== 'string' || !sameSecret(body.token, token)) {
      return render(reply, 'login', { title: 'Log in', next, error: 'That is not the token.' }, 401);
    }
    reply.setCookie(SESSION_COOKIE, sessionValue(token), { path: '/', httpOnly: true, sameSite: 'strict', maxAge: SESSION_MAX_AGE_SECONDS });
    return reply.redirect(next, 303);
  });
  app.post('/logout', async (_request, reply) => {
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/login', 303);
  });

  registerPages(app, { pool: options.pool, render });

  app.setNotFoundHandler(async (_request, reply) => render(reply, 'error', { title: 'Not found', message: 'There is no such page.' }, 404));
  app.setErrorHandler(async (err, request, reply) => {
    if (err instanceof BadRequest || err instanceof ReportInputError) return render(reply, 'error', { title: 'Bad request', message: err.message }, 400);
    if (err instanceof NotFound) return render(reply, 'error', { title: 'Not found', message: err.message }, 404);
    const { statusCode: status, message } = err as { statusCode?: number; message?: string };
    if (status !== undefined && status >= 400 && status < 500) return render(reply, 'error', { title: 'Bad request', message: message ?? 'Bad request.' }, status);
    options.log?.error({ err, url: request.url }, 'dashboard request failed');
    return render(reply, 'error', { title: 'Error', message: 'The page could not be built; the server log says why.' }, 500);
  });
  return app;
}
