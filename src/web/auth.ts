/**
 * The dashboard's lock: a token every request must carry, either as `Authorization: Bearer
 * <token>` (scripts, curl) or as the cookie the login form sets (people). The cookie holds an
 * HMAC of the token, not the token, so a leaked cookie does not reveal it; both are compared in
 * constant time (on SHA-256 digests, so the lengths never differ and leak nothing either).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import net from 'node:net';

export const SESSION_COOKIE = 'robots_audit_session';
/** How long the login cookie lasts, seconds. */
export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 3600;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The cookie value that proves the token was given to the login form. */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('robots-audit dashboard session v1').digest('base64url');
}

export interface Credentials {
  authorization?: string | undefined;
  cookie?: string | undefined;
}

export function isAuthorized(credentials: Credentials, token: string): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(credentials.authorization ?? '');
  if (bearer && sameSecret(bearer[1]!.trim(), token)) return true;
  return credentials.cookie !== undefined && sameSecret(credentials.cookie, sessionValue(token));
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

/** Where to go after logging in: a path of this site only (never `//host` or `https://...`). */
export function safeNextPath(next: unknown): string {
  return typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/';
}
