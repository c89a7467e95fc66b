/**
 * The SSRF guard: which IP addresses the fetcher may connect to. A robots.txt URL comes from
 * a customer's list and its redirects come from the website itself, so neither may steer the
 * fetcher into our own network (loopback, private ranges, cloud metadata, ...). Only public
 * unicast addresses pass, unless an operator lifts the guard for chosen ranges (`allowNetworks`,
 * e.g. 127.0.0.0/8 for the test fixture server).
 *
 * Pure: parses and classifies addresses, no DNS, no sockets. The lookup and the connector
 * (guarded-lookup.ts, fetch-dispatcher.ts) call it for every address they would connect to.
 */
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** Why an address is refused, in words a report can show. */
const IPV4_REASONS: Record<string, string> = {
  unspecified: 'unspecified address (0.0.0.0/8)',
  broadcast: 'broadcast address',
  multicast: 'multicast range (224.0.0.0/4)',
  linkLocal: 'link-local range (169.254.0.0/16, cloud metadata lives here)',
  loopback: 'loopback range (127.0.0.0/8)',
  carrierGradeNat: 'carrier-grade NAT range (100.64.0.0/10)',
  private: 'private network (RFC 1918)',
  reserved: 'reserved or documentation range',
  as112: 'AS112 sink range',
  amt: 'AMT relay range',
  benchmarking: 'benchmarking range (198.18.0.0/15)',
};

const IPV6_REASONS: Record<string, string> = {
  unspecified: 'unspecified address (::)',
  linkLocal: 'link-local range (fe80::/10)',
  multicast: 'multicast range (ff00::/8)',
  loopback: 'loopback address (::1)',
  uniqueLocal: 'unique-local range (fc00::/7, includes fd00:ec2::254 cloud metadata)',
  deprecatedSiteLocal: 'site-local range (fec0::/10)',
  discard: 'discard-only range (100::/64)',
  teredo: 'Teredo tunnel (2001::/32): the IPv4 peer cannot be checked',
  benchmarking: 'benchmarking range (2001:2::/48)',
  amt: 'AMT range (2001:3::/32)',
  as112v6: 'AS112 sink range',
  deprecatedOrchid: 'ORCHID range',
  orchid2: 'ORCHIDv2 range',
  droneRemoteIdProtocolEntityTags: 'DRIP range',
  segmentRouting: 'segment-routing range (5f00::/16)',
  reserved: 'reserved or documentation range',
  rfc6052: 'local-use NAT64 range (64:ff9b:1::/48)',
};

/** IPv4-compatible IPv6 (::a.b.c.d, deprecated by RFC 4291): no longer routed, never public. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
/** RFC 6052 well-known NAT64 prefix: the low 32 bits are the IPv4 peer the gateway reaches. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** Only 2000::/3 is allocated as global unicast; anything else that ipaddr calls "unicast" is not. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

export interface AddressVerdict {
  allowed: boolean;
  /** The normalised address that was judged. */
  address: string;
  /** ipaddr.js range name of the address, or of the IPv4 address embedded in it. */
  range: string;
  /** Why it is refused, or why it passes (`public unicast`, `allowed by 10.0.0.0/8`). */
  reason: string;
}

/** Refusal of an address by the guard: a failed request, never an exception to callers. */
export class SsrfBlockedError extends Error {
  readonly code = 'SSRF_BLOCKED';
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly reason: string,
  ) {
    const target = hostname === address ? address : `${address} (resolved from ${hostname})`;
    super(`SSRF guard refused to connect to ${target}: ${reason}`);
    this.name = 'SsrfBlockedError';
  }
}

/** Parses an address as DNS or a URL gives it (`::1`, `[::1]`, `10.0.0.1`); null when it is not one. */
export function parseAddress(text: string): IPv4 | IPv6 | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  // Strict forms only: ipaddr also reads `0x7f.1`-style IPv4, which DNS never returns.
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return null;
}

/**
 * The IPv4 address an IPv6 address carries, for the forms where traffic ends up at that IPv4
 * host: IPv4-mapped (::ffff:a.b.c.d), RFC 6145 translated, RFC 6052 NAT64 and 6to4 (2002::/16).
 */
export function embeddedIPv4(address: IPv6): IPv4 | null {
  const p = address.parts;
  const fromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return fromWords(p[6]!, p[7]!);
  if (address.match(NAT64_WELL_KNOWN)) return fromWords(p[6]!, p[7]!);
  if (range === '6to4') return fromWords(p[1]!, p[2]!);
  return null;
}

/** Classifies an address with no exceptions applied: only public unicast passes. */
export function classifyAddress(address: IPv4 | IPv6): AddressVerdict {
  const text = address.toString();
  if (address.kind() === 'ipv4') {
    const range = address.range();
    if (range === 'unicast') return { allowed: true, address: text, range, reason: 'public unicast' };
    return { allowed: false, address: text, range, reason: IPV4_REASONS[range] ?? `special-purpose range (${range})` };
  }
  const v6 = address as IPv6;
  const inner = embeddedIPv4(v6);
  if (inner) {
    const verdict = classifyAddress(inner);
    const form = v6.range() === '6to4' ? '6to4' : v6.range() === 'ipv4Mapped' ? 'IPv4-mapped' : 'IPv4-embedding';
    return { ...verdict, address: text, reason: `${form} form of ${inner.toString()}: ${verdict.reason}` };
  }
  if (v6.match(IPV4_COMPATIBLE)) {
    const range = v6.range() === 'unspecified' || v6.range() === 'loopback' ? v6.range() : 'ipv4Compatible';
    const reason = IPV6_REASONS[range] ?? 'IPv4-compatible address (::/96, deprecated)';
    return { allowed: false, address: text, range, reason };
  }
  const range = v6.range();
  if (range !== 'unicast') {
    return { allowed: false, address: text, range, reason: IPV6_REASONS[range] ?? `special-purpose range (${range})` };
  }
  if (!v6.match(GLOBAL_UNICAST_V6)) {
    return { allowed: false, address: text, range: 'unallocated', reason: 'outside the global unicast space (2000::/3)' };
  }
  return { allowed: true, address: text, range, reason: 'public unicast' };
}

export interface SsrfGuard {
  /** Judges one address (as DNS or a URL host gives it); a text that is no address is refused. */
  check(address: string): AddressVerdict;
  /** The networks that lift the guard, normalised (`127.0.0.0/8`). */
  readonly allowNetworks: readonly string[];
}

/**
 * Builds the guard. `allowNetworks` are CIDRs (`127.0.0.0/8`, `fd00::/8`) whose addresses pass
 * even though they are not public; an IPv4 network also covers the IPv6 forms that embed its
 * addresses. An invalid CIDR is a configuration error and throws.
 */
export function createSsrfGuard(allowNetworks: readonly string[] = []): SsrfGuard {
  const networks = allowNetworks.map((cidr) => {
    try {
      return ipaddr.parseCIDR(cidr.trim());
    } catch {
      throw new Error(`invalid allowNetworks entry "${cidr}": expected a CIDR such as 127.0.0.0/8`);
    }
  });
  const allowedBy = (address: IPv4 | IPv6): string | null => {
    for (const [net, bits] of networks) {
      if (net.kind() === address.kind() && address.match(net, bits)) return `${net.toString()}/${bits}`;
    }
    return null;
  };
  const decide = (text: string): AddressVerdict => {
    const address = parseAddress(text);
    if (!address) return { allowed: false, address: text, range: 'invalid', reason: 'not an IP address' };
    const verdict = classifyAddress(address);
    if (verdict.allowed) return verdict;
    const inner = address.kind() === 'ipv6' ? embeddedIPv4(address as IPv6) : null;
    const exception = allowedBy(address) ?? (inner ? allowedBy(inner) : null);
    if (exception) return { ...verdict, allowed: true, reason: `${verdict.reason}; allowed by ${exception}` };
    return verdict;
  };
  // Every connection is judged twice (its lookup, then the address reached), and many hosts share
  // addresses (CDNs): verdicts are remembered per address text, the oldest forgotten first.
  const remembered = new Map<string, AddressVerdict>();
  return {
    allowNetworks: networks.map(([net, bits]) => `${net.toString()}/${bits}`),
    check(text: string): AddressVerdict {
      const known = remembered.get(text);
      if (known) return known;
      const verdict = decide(text);
      remembered.set(text, verdict);
      if (remembered.size > REMEMBERED_VERDICTS) remembered.delete(remembered.keys().next().value!);
      return verdict;
    },
  };
}

/** Address verdicts a guard remembers (a few hundred kilobytes at most). */
export const REMEMBERED_VERDICTS = 4096;
