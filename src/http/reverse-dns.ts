/**
 * Forward-confirmed reverse DNS (FCrDNS) of a client address, as crawler operators describe it
 * (issue 29, src/crawlers/identity): the PTR names of the address, then each name's addresses of
 * the same family; a name that resolves back to the address is confirmed. What the names must end
 * in is the judge's business (identity.ts), not this module's.
 *
 * Sized for a log import: asynchronous queries (c-ares, `dns.Resolver`) to the servers given, so a
 * slow answer holds no thread; every answer cached per address (confirmed, mismatch and no-PTR
 * alike, at most `cacheEntries`, the least recently used go first), a failure for a short while
 * only; one lookup per address at a time (the lines of one crawler share it).
 */
import dns from 'node:dns';
import { canonicalIp, parseIpAddress } from '../crawlers/identity/ip-address.js';
import type { ReverseDnsAnswer } from '../crawlers/identity/reverse-dns-answer.js';

export interface ReverseDnsOptions {
  /** DNS servers, `host:port` (or `host`, port 53). */
  servers: string[];
  /** Per query attempt, milliseconds. */
  timeoutMs?: number;
  /** Attempts per query. */
  tries?: number;
  /** Addresses whose answer is kept at most. */
  cacheEntries?: number;
  /** How long an answer is reused, seconds. */
  cacheSeconds?: number;
  now?: () => number;
}

export const REVERSE_DNS_DEFAULTS = {
  /** An operator's DNS answers in tens of milliseconds; 2 s means a server that is not there. */
  timeoutMs: 2_000,
  /** One retry rides out a lost UDP packet; more only multiplies a dead server's cost. */
  tries: 2,
  /** A day's log of a site meets thousands of crawler addresses, not millions. */
  cacheEntries: 50_000,
  /** Crawler PTR records change rarely; an hour keeps a day's import to one lookup per address and hour. */
  cacheSeconds: 3_600,
} as const;

/** A failure (timeout, SERVFAIL) is kept this long at most: DNS may be back soon, but not on the next line. */
const FAILED_CACHE_SECONDS = 60;
/** PTR names followed per address: operators publish one; a few covers multi-homed hosts, and bounds a hostile PTR set. */
const MAX_PTR_NAMES = 4;

/** No such name, or no record of the type: an answer, not a failure to get one. */
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);

export interface ReverseDnsChecker {
  check(ip: string): Promise<ReverseDnsAnswer>;
  /** Cancels the queries in flight (they answer `failed`). */
  close(): void;
}

interface Entry {
  readonly expires: number;
  readonly answer: ReverseDnsAnswer;
}

/**
 * The name a PTR record of the address is kept under (`1.66.249.66.in-addr.arpa`, nibbles under
 * ip6.arpa), or null when the text is no address. Queried directly: `Resolver.reverse` turns a
 * timeout into ENOTFOUND (c-ares falls back to /etc/hosts), and a timeout is no answer.
 */
export function ptrName(text: string): string | null {
  const ip = parseIpAddress(text);
  if (ip === null) return null;
  if (ip.family === 4) {
    const v = ip.value;
    return `${v % 256}.${Math.floor(v / 0x100) % 256}.${Math.floor(v / 0x10000) % 256}.${Math.floor(v / 0x1000000)}.in-addr.arpa`;
  }
  return `${[...ip.value.toString(16).padStart(32, '0')].reverse().join('.')}.ip6.arpa`;
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException | null)?.code ?? 'EUNKNOWN';
}

export function createReverseDnsChecker(options: ReverseDnsOptions): ReverseDnsChecker {
  const timeoutMs = options.timeoutMs ?? REVERSE_DNS_DEFAULTS.timeoutMs;
  const tries = options.tries ?? REVERSE_DNS_DEFAULTS.tries;
  const cacheEntries = options.cacheEntries ?? REVERSE_DNS_DEFAULTS.cacheEntries;
  const cacheSeconds = options.cacheSeconds ?? REVERSE_DNS_DEFAULTS.cacheSeconds;
  const now = options.now ?? Date.now;
  const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries });
  resolver.setServers(options.servers);
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<ReverseDnsAnswer>>();

  const remember = (ip: string, answer: ReverseDnsAnswer): ReverseDnsAnswer => {
    const seconds = answer.kind === 'failed' ? Math.min(cacheSeconds, FAILED_CACHE_SECONDS) : cacheSeconds;
    cache.delete(ip);
    cache.set(ip, { expires: now() + seconds * 1000, answer });
    if (cache.size > cacheEntries) cache.delete(cache.keys().next().value!);
    return answer;
  };

  /** Whether a name resolves back to the address: true, false, or the code of a failure to ask. */
  async function resolvesBack(name: string, ip: string, family: 4 | 6): Promise<boolean | string> {
    try {
      const addresses = family === 4 ? await resolver.resolve4(name) : await resolver.resolve6(name);
      return addresses.some((a) => canonicalIp(a) === ip);
    } catch (err) {
      return NOT_FOUND.has(codeOf(err)) ? false : codeOf(err);
    }
  }

  async function lookUp(ip: string): Promise<ReverseDnsAnswer> {
    const family = ip.includes(':') ? 6 : 4;
    let names: string[];
    try {
      names = await resolver.resolvePtr(ptrName(ip)!);
    } catch (err) {
      const code = codeOf(err);
      if (NOT_FOUND.has(code)) return { kind: 'no-ptr', detail: `${ip}: ${code}` };
      return { kind: 'failed', reason: `PTR of ${ip}: ${code}` };
    }
    if (names.length === 0) return { kind: 'no-ptr', detail: `${ip}: empty answer` };
    const followed = names.slice(0, MAX_PTR_NAMES);
    const results = await Promise.all(followed.map((name) => resolvesBack(name, ip, family)));
    const confirmed = followed.filter((_, i) => results[i] === true);
    if (confirmed.length > 0) return { kind: 'confirmed', hostname: confirmed[0]!, hostnames: confirmed };
    const failure = results.findIndex((r) => typeof r === 'string');
    if (failure >= 0) return { kind: 'failed', reason: `addresses of ${followed[failure]}: ${String(results[failure])}` };
    return { kind: 'mismatch', detail: `${followed.join(', ')} do not resolve to ${ip}` };
  }

  return {
    check(text) {
      const ip = canonicalIp(text);
      if (ip === null) return Promise.resolve({ kind: 'failed', reason: `not an IP address: ${JSON.stringify(text)}` });
      const cached = cache.get(ip);
      if (cached !== undefined && cached.expires > now()) {
        // Touch it: the least recently used goes first, not the oldest.
        cache.delete(ip);
        cache.set(ip, cached);
        return Promise.resolve(cached.answer);
      }
      let pending = inFlight.get(ip);
      if (pending === undefined) {
        pending = lookUp(ip)
          .then((answer) => remember(ip, answer))
          .finally(() => inFlight.delete(ip));
        inFlight.set(ip, pending);
      }
      return pending;
    },
    close() {
      resolver.cancel();
    },
  };
}
