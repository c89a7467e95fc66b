/**
 * The DNS step of every connection the fetcher opens: resolve the name (or take its pin), then
 * put every address through the SSRF guard before the socket connects. Node calls this as the
 * `lookup` of net.connect / tls.connect, so it runs for the first request and for every redirect
 * hop to a new host; no packet leaves for a refused address. Literal IP hosts skip lookups in
 * Node, so the connector checks those itself (fetch-dispatcher.ts).
 */
import dns from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { findPin, normalizeHostname, type ResolvePin } from './resolve-pins.js';
import { SsrfBlockedError, type SsrfGuard } from './ssrf-guard.js';

/** The resolver underneath: dns.lookup (getaddrinfo, honours /etc/hosts) unless a test injects one. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => dns.lookup(hostname, options, callback);

function notFound(hostname: string, why: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException & { hostname?: string } = new Error(`getaddrinfo ENOTFOUND ${hostname} (${why})`);
  err.code = 'ENOTFOUND';
  err.syscall = 'getaddrinfo';
  err.hostname = hostname;
  return err;
}

/**
 * RFC 6761 special-use names answered without asking DNS: `.invalid` never resolves (§6.4) and
 * `localhost` is always loopback (§6.3, then refused by the guard unless allowed). This also
 * keeps such names from waiting on a resolver when the machine is offline.
 */
function specialUseAnswer(host: string): LookupAddress[] | 'invalid' | null {
  if (host === 'invalid' || host.endsWith('.invalid')) return 'invalid';
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  }
  return null;
}

export interface GuardedLookupOptions {
  guard: SsrfGuard;
  pins: readonly ResolvePin[];
  resolver?: Resolver;
}

export function createGuardedLookup({ guard, pins, resolver = systemResolver }: GuardedLookupOptions): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const answer = (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (addresses.length === 0) return callback(notFound(hostname, 'no addresses'), '', 0);
      // Every address is checked, not only the first: Node may try them all (happy eyeballs).
      for (const { address } of addresses) {
        const verdict = guard.check(address);
        if (!verdict.allowed) return callback(new SsrfBlockedError(hostname, verdict.address, verdict.reason), '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    };

    const host = normalizeHostname(hostname);
    const pin = findPin(pins, host);
    if (pin) return answer(null, [{ address: pin.address, family: pin.family }]);
    const special = specialUseAnswer(host);
    if (special === 'invalid') return answer(notFound(hostname, 'RFC 6761: .invalid names never resolve'), []);
    if (special) return answer(null, special);
    resolver(hostname, { family: options.family, hints: options.hints, all: true }, answer);
  };
}
