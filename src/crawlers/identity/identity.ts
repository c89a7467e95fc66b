/**
 * Who sent a request that claims to be a crawler (issue 29): `verified` when the address passes
 * the check its operator publishes, `spoofed` when it fails it, `unverifiable` when there is no
 * published check or it could not be made (no range file imported for the day, DNS did not
 * answer). The method and the reason say which. Pure: the range sets in force and the DNS answer
 * are given to it.
 *
 * Order: published ranges first (a lookup in memory), reverse DNS where the ranges cannot decide:
 * the address is outside them and the operator documents DNS too (its files may lag its hosts),
 * or no range set is in force.
 */
import { identityMethodsOf } from './crawler-identity.js';
import { parseIpAddress } from './ip-address.js';
import type { IdentityMethods, RangeSourceRef } from './crawler-identity.js';
import type { IpRangeSet } from './ip-ranges.js';
import type { ReverseDnsAnswer } from './reverse-dns-answer.js';

export const IDENTITIES = ['verified', 'spoofed', 'unverifiable'] as const;
export type Identity = (typeof IDENTITIES)[number];

export const IDENTITY_METHODS = ['ip_ranges', 'reverse_dns', 'none'] as const;
export type IdentityMethod = (typeof IDENTITY_METHODS)[number];

export interface IdentityVerdict {
  readonly identity: Identity;
  /** The check the verdict rests on; `none` when the operator publishes none. */
  readonly method: IdentityMethod;
  readonly reason: string;
}

export interface IdentityInput {
  /** The catalogue token the User-Agent claims (agent-match.ts). */
  readonly token: string;
  /** The client address as logged. */
  readonly ip: string;
  /** The set of a range source in force on the request's day; null if none was imported. */
  readonly rangesOf: (source: string) => IpRangeSet | null;
  /** The FCrDNS answer for the address, when the caller looked it up (see needsReverseDns). */
  readonly reverseDns?: ReverseDnsAnswer | null;
}

/** Whether a host name is a suffix's domain or under it, on a label boundary, ignoring case and a final dot. */
export function hostnameInDomain(hostname: string, suffix: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const domain = suffix.toLowerCase().replace(/^\./, '').replace(/\.$/, '');
  return host === domain || host.endsWith(`.${domain}`);
}

function byReverseDns(answer: ReverseDnsAnswer, suffixes: readonly string[]): IdentityVerdict {
  const method = 'reverse_dns';
  switch (answer.kind) {
    case 'confirmed': {
      const names = answer.hostnames ?? [answer.hostname];
      for (const name of names) {
        const suffix = suffixes.find((s) => hostnameInDomain(name, s));
        if (suffix !== undefined) return { identity: 'verified', method, reason: `${name} resolves back to the address and is in ${suffix}` };
      }
      return { identity: 'spoofed', method, reason: `${names.join(', ')} is not in ${suffixes.join(', ')}` };
    }
    case 'mismatch':
      return { identity: 'spoofed', method, reason: `PTR name does not resolve back to the address: ${answer.detail}` };
    case 'no-ptr':
      return { identity: 'spoofed', method, reason: `no PTR record: ${answer.detail}` };
    case 'failed':
      return { identity: 'unverifiable', method, reason: `reverse DNS failed: ${answer.reason}` };
  }
}

function names(sources: readonly RangeSourceRef[]): string {
  return sources.map((s) => s.name).join(', ');
}

function judgeWith(methods: IdentityMethods, input: IdentityInput): IdentityVerdict {
  const answer = input.reverseDns ?? null;
  const dns = methods.reverseDns;
  const inForce = methods.ranges.flatMap((source) => {
    const set = input.rangesOf(source.name);
    return set === null ? [] : [{ source, set }];
  });
  if (inForce.length > 0) {
    const inside = inForce.find(({ set }) => set.contains(input.ip));
    if (inside !== undefined) return { identity: 'verified', method: 'ip_ranges', reason: `inside ${inside.source.name} (${inside.source.url})` };
    if (dns.length > 0 && answer !== null) return byReverseDns(answer, dns);
    return { identity: 'spoofed', method: 'ip_ranges', reason: `outside ${names(inForce.map((r) => r.source))}` };
  }
  if (dns.length > 0) {
    if (answer !== null) return byReverseDns(answer, dns);
    return { identity: 'unverifiable', method: 'reverse_dns', reason: 'no reverse DNS answer given' };
  }
  return { identity: 'unverifiable', method: 'ip_ranges', reason: `no range set of ${names(methods.ranges)} in force on the request's day` };
}

/** The verdict on a request that claims a crawler's token. */
export function judgeIdentity(input: IdentityInput): IdentityVerdict {
  const methods = identityMethodsOf(input.token);
  if (methods === null || (methods.ranges.length === 0 && methods.reverseDns.length === 0)) {
    return { identity: 'unverifiable', method: 'none', reason: `${input.token}: its operator publishes no way to verify it` };
  }
  // A log line without a readable address says nothing about who sent it: not a failed check.
  if (parseIpAddress(input.ip) === null) return { identity: 'unverifiable', method: 'none', reason: `not an IP address: ${JSON.stringify(input.ip)}` };
  return judgeWith(methods, input);
}

/**
 * Whether a reverse DNS answer could change the verdict, so that the caller asks DNS only then:
 * the operator documents reverse DNS, and the range files in force did not verify the request
 * (none of its crawler is in force, or the address is outside them): `judgeIdentity` without an
 * answer says which.
 */
export function needsReverseDns(token: string, verifiedByRanges: boolean): boolean {
  const methods = identityMethodsOf(token);
  if (methods === null || methods.reverseDns.length === 0) return false;
  return !verifiedByRanges;
}
