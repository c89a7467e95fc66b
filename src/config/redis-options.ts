/**
 * REDIS_URL, read the same way by every connection a process makes (the queues, the workers,
 * host locks, the probes, removing a prefix): a Redis server (`redis://`, `rediss://`, which
 * ioredis reads itself, as it always did), or a Redis whose primary Sentinel names
 * (`redis+sentinel://`), turned here into ioredis' Sentinel options.
 *
 *   redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db][?sentinelPassword=...]
 *
 * The user and password are the Redis servers' (what commands authenticate with, as in
 * `redis://`); Sentinels that ask for a password of their own get it from `sentinelPassword`
 * (and `sentinelUsername`). A port left out is Sentinel's, 26379. One URL rather than settings of
 * their own: REDIS_URL, `--redis-url` and every place that passes it on work unchanged, and a
 * deployment moves to Sentinel by changing one value.
 *
 * Pure (ioredis' types only): the settings check the URL when they are read, so a bad one stops
 * a process at start with one line.
 */
import type { RedisOptions } from 'ioredis';

/** The scheme of a Sentinel-managed Redis. */
export const SENTINEL_SCHEME = 'redis+sentinel:';
/** Sentinel's own port, taken when a host names none. */
export const DEFAULT_SENTINEL_PORT = 26379;

/** The query parameters a Sentinel URL may carry: the Sentinels' own credentials. */
const SENTINEL_PARAMETERS = ['sentinelUsername', 'sentinelPassword'] as const;

const FORM = 'redis+sentinel://[user:password@]host[:port][,host[:port]...]/master-name[/db]';

/**
 * A REDIS_URL that cannot be read. Its message says what is wrong without quoting the URL: when a
 * password holds an unencoded `?`, `@` or `&`, any part of it may be where a host was expected.
 */
export class RedisUrlError extends Error {
  constructor(problem: string) {
    super(`${problem} (expected ${FORM})`);
    this.name = 'RedisUrlError';
  }
}

export interface SentinelAddress {
  host: string;
  port: number;
}

/** What a Sentinel URL says: where the Sentinels are, which primary to ask them for, and as whom. */
export interface SentinelTarget {
  sentinels: SentinelAddress[];
  /** The master group's name in Sentinel's configuration (`sentinel monitor <name> ...`). */
  name: string;
  db: number;
  username?: string;
  password?: string;
  sentinelUsername?: string;
  sentinelPassword?: string;
}

/** How to reach the Redis of a REDIS_URL: the URL itself for ioredis, or a Sentinel target. */
export type RedisTarget = { kind: 'server'; url: string } | { kind: 'sentinel'; sentinel: SentinelTarget };

export function isSentinelUrl(url: string): boolean {
  return url.slice(0, SENTINEL_SCHEME.length).toLowerCase() === SENTINEL_SCHEME;
}

/**
 * The parts of a Sentinel URL as written: the user information (up to the last `@` before the
 * path, so that an `@` left unencoded in a password stays in the password), the hosts, the path
 * and the query. Null when the URL does not start with `redis+sentinel://`.
 */
export function sentinelUrlParts(url: string): { userinfo: string | null; hosts: string; path: string; query: string } | null {
  if (!isSentinelUrl(url) || url.slice(SENTINEL_SCHEME.length, SENTINEL_SCHEME.length + 2) !== '//') return null;
  const rest = url.slice(SENTINEL_SCHEME.length + 2);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const query = queryAt === -1 ? '' : rest.slice(queryAt + 1);
  const at = beforeQuery.lastIndexOf('@');
  const userinfo = at === -1 ? null : beforeQuery.slice(0, at);
  const afterUser = beforeQuery.slice(at + 1);
  const slash = afterUser.indexOf('/');
  return { userinfo, hosts: slash === -1 ? afterUser : afterUser.slice(0, slash), path: slash === -1 ? '' : afterUser.slice(slash), query };
}

function decoded(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new RedisUrlError(`the ${what} has a bad %-escape`);
  }
}

function sentinelAddress(text: string, index: number, all: readonly string[]): SentinelAddress {
  const which = all.length === 1 ? 'the Sentinel host' : `Sentinel host ${index + 1} of ${all.length}`;
  if (text === '') throw new RedisUrlError(`${which} is empty`);
  // host, host:port, [IPv6] or [IPv6]:port.
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]/]+)(?::([^:]*))?$/i.exec(text);
  if (!match) throw new RedisUrlError(`${which} is not host or host:port`);
  const host = match[1]!.startsWith('[') ? match[1]!.slice(1, -1) : match[1]!;
  const portText = match[2];
  if (portText === undefined) return { host, port: DEFAULT_SENTINEL_PORT };
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65_535) throw new RedisUrlError(`${which} has no port from 1 to 65535`);
  return { host, port };
}

function credentialsOf(userinfo: string | null): Pick<SentinelTarget, 'username' | 'password'> {
  if (userinfo === null) return {};
  const colon = userinfo.indexOf(':');
  // As in redis:// (and ioredis): `user@` names a user, `:password@` a password alone.
  const user = decoded(colon === -1 ? userinfo : userinfo.slice(0, colon), 'user');
  const password = colon === -1 ? '' : decoded(userinfo.slice(colon + 1), 'password');
  return { ...(user !== '' ? { username: user } : {}), ...(password !== '' ? { password } : {}) };
}

function masterAndDb(path: string): { name: string; db: number } {
  const segments = path.split('/').slice(1);
  const name = decoded(segments[0] ?? '', 'master name');
  if (name === '') throw new RedisUrlError('the master name is missing');
  if (segments.length > 2) throw new RedisUrlError('the path holds more than a master name and a database');
  const dbText = segments[1];
  if (dbText === undefined || dbText === '') return { name, db: 0 };
  if (!/^\d+$/.test(dbText)) throw new RedisUrlError('the database after the master name must be a number');
  return { name, db: Number(dbText) };
}

function sentinelCredentials(query: string): Pick<SentinelTarget, 'sentinelUsername' | 'sentinelPassword'> {
  const found: Pick<SentinelTarget, 'sentinelUsername' | 'sentinelPassword'> = {};
  // Split by hand rather than by URLSearchParams, which reads a `+` as a space: in a password it is a `+`.
  for (const pair of query.split('&').filter((p) => p !== '')) {
    const equals = pair.indexOf('=');
    const key = SENTINEL_PARAMETERS.find((p) => p === (equals === -1 ? pair : pair.slice(0, equals)));
    if (!key) throw new RedisUrlError(`a parameter other than ${SENTINEL_PARAMETERS.join(' and ')} (an & in a password is written %26)`);
    const value = equals === -1 ? '' : decoded(pair.slice(equals + 1), key);
    if (value !== '') found[key] = value;
  }
  return found;
}

/** A Sentinel URL read; throws RedisUrlError with what is wrong. */
export function parseSentinelUrl(url: string): SentinelTarget {
  const parts = sentinelUrlParts(url);
  if (!parts) throw new RedisUrlError('not a redis+sentinel:// URL');
  if (url.includes('#')) throw new RedisUrlError('a Sentinel URL has no #fragment');
  if (parts.hosts === '') throw new RedisUrlError('no Sentinel host');
  const sentinels = parts.hosts.split(',').map((host, i, all) => sentinelAddress(host, i, all));
  return { sentinels, ...masterAndDb(parts.path), ...credentialsOf(parts.userinfo), ...sentinelCredentials(parts.query) };
}

/**
 * How to reach REDIS_URL's Redis. Anything but a Sentinel URL is left to ioredis as it is (a
 * `redis://` or `rediss://` URL, a socket path); `rediss+sentinel://` is refused rather than read
 * without the TLS it asks for.
 */
export function redisTargetOf(url: string): RedisTarget {
  if (/^rediss\+sentinel:/i.test(url)) throw new RedisUrlError('TLS to Sentinel (rediss+sentinel://) is not supported');
  return isSentinelUrl(url) ? { kind: 'sentinel', sentinel: parseSentinelUrl(url) } : { kind: 'server', url };
}

/** The error a command gets from a replica: the primary it was talking to has been demoted. */
const READ_ONLY_REPLICA = /^READONLY\b/;
/** ioredis' answer to reconnectOnError: reconnect, then send the failed command again. */
const RECONNECT_AND_RESEND = 2;

/**
 * ioredis' options for a Sentinel target. ioredis asks the Sentinels for the primary whenever it
 * (re)connects, and checks the role of the server it reaches, so a connection lost with a dead
 * primary comes back to the one Sentinel promotes; a primary Sentinel demotes while it still
 * answers has its clients disconnected by Sentinel (CLIENT KILL), and they come back the same
 * way. A primary demoted otherwise (REPLICAOF by hand, or by Sentinel after a network split
 * while clients wrote to it from its side) keeps its clients: their next write is refused with
 * READONLY, and `reconnectOnError` then reconnects through the Sentinels and sends it again to
 * the new primary (a write a replica refused changed nothing).
 *
 * ioredis' `failoverDetector` (a subscription to `+switch-master` on every Sentinel, per
 * connection) is left off: its Sentinel connections have no error listener, so each Sentinel
 * that is down printed an "Unhandled error event" stack trace per Redis connection every minute.
 */
export function sentinelConnectionOptions(target: SentinelTarget): RedisOptions {
  return {
    sentinels: target.sentinels.map((s) => ({ ...s })),
    name: target.name,
    role: 'master',
    db: target.db,
    ...(target.username !== undefined ? { username: target.username } : {}),
    ...(target.password !== undefined ? { password: target.password } : {}),
    ...(target.sentinelUsername !== undefined ? { sentinelUsername: target.sentinelUsername } : {}),
    ...(target.sentinelPassword !== undefined ? { sentinelPassword: target.sentinelPassword } : {}),
    failoverDetector: false,
    reconnectOnError: (err) => (READ_ONLY_REPLICA.test(err.message) ? RECONNECT_AND_RESEND : false),
  };
}
