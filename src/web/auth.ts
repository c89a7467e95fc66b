/**
 * The dashboard's lock: a token every request must carry, either as `Authorization: Bearer
 * <token>` (scripts, curl) or as the session cookie the login form sets (people). Both are
 * compared in constant time (on SHA-256 digests, so the lengths never differ and leak nothing).
 *
 * A session is `<issued at>.<nonce>.<mac>`: the second it was issued, 16 random bytes, and an
 * HMAC of both keyed with the token. So a leaked cookie does not reveal the token; every login
 * gets a new value (the nonce); the server refuses a session older than its lifetime whatever the
 * browser keeps (the issue time is under the MAC); and changing the token revokes every session
 * at once (the key is gone).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';

export const SESSION_COOKIE = 'robots_audit_session';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The MAC of a session's issue time and nonce under the token. */
const sessionMac = (token: string, issued: string, nonce: string) =>
  createHmac('sha256', token).update(`robots-audit dashboard session v2 ${issued} ${nonce}`).digest('base64url');

/** A new session for a login at `nowMs`: a value no other login gets. */
export function newSession(token: string, nowMs: number = Date.now()): string {
  const issued = String(Math.floor(nowMs / 1000));
  const nonce = randomBytes(16).toString('base64url');
  return `${issued}.${nonce}.${sessionMac(token, issued, nonce)}`;
}

/** Seconds a session's clock may run ahead of the server's (several dashboards behind one proxy). */
const CLOCK_SKEW_SECONDS = 60;

/** Whether a session value was issued under this token less than `maxAgeSeconds` ago. */
export function sessionValid(value: string, token: string, maxAgeSeconds: number, nowMs: number = Date.now()): boolean {
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!m) return false;
  const [, issued, nonce, mac] = m as unknown as [string, string, string, string];
  if (!sameSecret(mac, sessionMac(token, issued, nonce))) return false;
  const age = nowMs / 1000 - Number(issued);
  return age < maxAgeSeconds && age > -CLOCK_SKEW_SECONDS;
}

export interface Credentials {
  authorization?: string | undefined;
  cookie?: string | undefined;
}

export type AuthResult = 'bearer' | 'session' | 'none' | 'wrong';

/**
 * What the request proves: the token as a Bearer header, a live session, nothing at all, or a
 * wrong token (a Bearer header that is not it: a guess, which the throttle counts). A cookie
 * that is stale or from an older token is `none`: the browser is sent to the login form.
 */
export function authenticate(credentials: Credentials, token: string, maxAgeSeconds: number, nowMs: number = Date.now()): AuthResult {
  const bearer = /^Bearer\s+(.+)$/i.exec(credentials.authorization ?? '');
  if (bearer) return sameSecret(bearer[1]!.trim(), token) ? 'bearer' : 'wrong';
  if (credentials.cookie !== undefined && sessionValid(credentials.cookie, token, maxAgeSeconds, nowMs)) return 'session';
  return 'none';
}

/**
 * Loopback addresses, where only this machine's users can connect: 127.0.0.0/8, ::1, and the
 * name `localhost`. Anything else (0.0.0.0, a LAN address, a host name) may be reached by others.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

const SAME_SITE = 'http://dashboard.invalid';

/**
 * Where to go after logging in: a path of this site only. Printable ASCII without a backslash,
 * starting with one `/`, and still on this site once resolved: a browser drops tabs and line
 * breaks from a URL (so `/\t/evil.example` is `//evil.example`, another host) and reads `\` as
 * `/`, hence none of them is let through. Anything else goes to the overview.
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2_000 || !/^\/(?![/\\])[\x21-\x7e]*$/.test(next) || next.includes('\\')) return '/';
  const resolved = new URL(next, SAME_SITE);
  return resolved.origin === SAME_SITE ? next : '/';
}
