/**
 * The resolver under the fetcher's guarded lookup, sized for a night of 100,000 hosts with 512
 * fetches in flight:
 * - asynchronous DNS queries (c-ares, `dns.Resolver`), not getaddrinfo: getaddrinfo runs on
 *   libuv's thread pool (4 threads by default), so a few slow answers would hold every fetch;
 * - names DNS does not answer (an /etc/hosts entry, an intranet search domain) fall back to the
 *   system's getaddrinfo, as a browser would see them;
 * - answers are cached for their TTL (capped), failures for a short while, at most `maxEntries`
 *   names (the oldest go first), and one query per name at a time (concurrent fetches share it).
 */
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { Resolver } from './guarded-lookup.js';

export interface DnsQueries {
  resolve4(hostname: string): Promise<{ address: string; ttl: number }[]>;
  resolve6(hostname: string): Promise<{ address: string; ttl: number }[]>;
}

export interface CachingResolverOptions {
  /** Longest time an answer is reused, seconds (a record's own TTL is used when shorter). */
  cacheSeconds: number;
  /** How long a name that does not resolve is not asked again, seconds. */
  negativeCacheSeconds: number;
  /** Names kept at most. */
  maxEntries: number;
  /** DNS queries (tests inject them); default: a c-ares resolver. */
  queries?: DnsQueries;
  /** The system's lookup for names DNS does not answer (tests inject it); default: dns.lookup. */
  systemLookup?: (hostname: string) => Promise<LookupAddress[]>;
  now?: () => number;
}

/** Per query attempt, and attempts per query: a dead server costs seconds, not the fetch's whole connect timeout. */
const QUERY_TIMEOUT_MS = 2_500;
const QUERY_TRIES = 2;
/** Answers of 0 s TTL are still shared by the fetches asking at the same time. */
const MIN_CACHE_MS = 1_000;

interface Entry {
  expires: number;
  addresses: LookupAddress[] | null;
  error: NodeJS.ErrnoException | null;
}

/** No such name, or no address of that family: the answer is "nothing", not a failure to ask. */
const NO_ANSWER = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);

function notFound(hostname: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException & { hostname?: string } = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  err.code = 'ENOTFOUND';
  err.syscall = 'getaddrinfo';
  err.hostname = hostname;
  return err;
}

export function createCachingResolver(options: CachingResolverOptions): Resolver {
  const now = options.now ?? Date.now;
  const cares = new dns.promises.Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
  const queries: DnsQueries = options.queries ?? {
    resolve4: (h) => cares.resolve4(h, { ttl: true }),
    resolve6: (h) => cares.resolve6(h, { ttl: true }),
  };
  const systemLookup = options.systemLookup ?? ((h: string) => dns.promises.lookup(h, { all: true }));
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Entry>>();

  const remember = (host: string, entry: Entry): Entry => {
    cache.delete(host);
    cache.set(host, entry);
    if (cache.size > options.maxEntries) cache.delete(cache.keys().next().value!);
    return entry;
  };

  async function ask(host: string): Promise<Entry> {
    const [v4, v6] = await Promise.allSettled([queries.resolve4(host), queries.resolve6(host)]);
    const records = [v4, v6].flatMap((r, i) => (r.status === 'fulfilled' ? r.value.map((a) => ({ ...a, family: i === 0 ? 4 : 6 })) : []));
    if (records.length > 0) {
      const ttlMs = Math.min(options.cacheSeconds * 1000, ...records.map((r) => r.ttl * 1000));
      return remember(host, { expires: now() + Math.max(MIN_CACHE_MS, ttlMs), addresses: records.map(({ address, family }) => ({ address, family })), error: null });
    }
    // DNS said nothing usable (no such name, or no server reachable): ask the system, which also
    // reads /etc/hosts and the search domains.
    try {
      const addresses = await systemLookup(host);
      if (addresses.length === 0) throw notFound(host);
      return remember(host, { expires: now() + options.cacheSeconds * 1000, addresses, error: null });
    } catch (err) {
      const error = err as NodeJS.ErrnoException;
      const known = error.code !== undefined && NO_ANSWER.has(error.code);
      return remember(host, { expires: now() + options.negativeCacheSeconds * 1000, addresses: null, error: known ? notFound(host) : error });
    }
  }

  return (hostname, _lookupOptions, callback) => {
    const host = hostname.toLowerCase();
    const cached = cache.get(host);
    const settle = (entry: Entry) => (entry.error ? callback(entry.error, []) : callback(null, entry.addresses!));
    if (cached && cached.expires > now()) return settle(cached);
    let pending = inFlight.get(host);
    if (!pending) {
      pending = ask(host).finally(() => inFlight.delete(host));
      inFlight.set(host, pending);
    }
    pending.then(settle, (err: NodeJS.ErrnoException) => callback(err, []));
  };
}
