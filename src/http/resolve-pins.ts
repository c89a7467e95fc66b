/**
 * Name pins, like curl's --resolve: `host=ip` sends one name to a fixed address, `*.suffix=ip`
 * every name under a suffix (`*.test=127.0.0.1` makes `a.test` and `x.b.test` reach the fixture
 * server). A pinned address skips DNS but not the SSRF guard, and the port still comes from the
 * URL. Pure: parsing and matching only.
 */
import { parseAddress } from './ssrf-guard.js';

export interface ResolvePin {
  /** The host name (`a.test`) or, for a wildcard, the suffix with its dot (`.test`). */
  name: string;
  wildcard: boolean;
  /** The address, normalised (`127.0.0.1`, `::1`). */
  address: string;
  family: 4 | 6;
}

/** Lower case, no trailing dot, no IPv6 brackets: the form URLs and DNS agree on. */
export function normalizeHostname(hostname: string): string {
  const lower = hostname.toLowerCase();
  const bare = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/** Parses `host=ip` / `*.suffix=ip` entries; a malformed entry is a configuration error and throws. */
export function parseResolvePins(entries: readonly string[]): ResolvePin[] {
  return entries.map((entry) => {
    const eq = entry.indexOf('=');
    const rawName = eq > 0 ? entry.slice(0, eq).trim() : '';
    const rawAddress = eq > 0 ? entry.slice(eq + 1).trim() : '';
    const address = parseAddress(rawAddress);
    if (rawName === '' || !address) {
      throw new Error(`invalid resolve pin "${entry}": expected host=ip or *.suffix=ip`);
    }
    const wildcard = rawName.startsWith('*.');
    const name = normalizeHostname(wildcard ? rawName.slice(1) : rawName);
    if (name === '' || name === '.' || name.includes('*') || /[\s/:]/.test(name)) {
      throw new Error(`invalid resolve pin "${entry}": bad host name "${rawName}"`);
    }
    return { name, wildcard, address: address.toString(), family: address.kind() === 'ipv4' ? 4 : 6 };
  });
}

/**
 * The pin that applies to a host name, or null. An exact pin beats any wildcard (so
 * `evil.test=10.0.0.1` overrides `*.test=127.0.0.1`); among wildcards the longest suffix wins.
 * A wildcard needs at least one label before its suffix: `*.test` does not match `test`.
 */
export function findPin(pins: readonly ResolvePin[], hostname: string): ResolvePin | null {
  const host = normalizeHostname(hostname);
  let best: ResolvePin | null = null;
  for (const pin of pins) {
    if (!pin.wildcard) {
      if (pin.name === host) return pin;
      continue;
    }
    if (host.length > pin.name.length && host.endsWith(pin.name) && (!best || pin.name.length > best.name.length)) {
      best = pin;
    }
  }
  return best;
}
