/**
 * IP addresses as numbers, so that ranges compare as numbers: IPv4 as an unsigned 32-bit number,
 * IPv6 as a 128-bit bigint. Written here rather than taken from node:net, which src/crawlers may
 * not import (it is pure), and strict on purpose: a log's address field is data, and an address
 * that two readers could read two ways (`010.1.1.1`, a zone `fe80::1%eth0`) is no address. Pure.
 */

export type IpAddress = { readonly family: 4; readonly value: number } | { readonly family: 6; readonly value: bigint };

const IPV4_MAPPED_PREFIX = 0xffffn;

/** `a.b.c.d`, each part 0-255 in decimal without a leading zero; -1 when it is not. */
export function ipv4Value(text: string): number {
  let value = 0;
  let parts = 0;
  let i = 0;
  while (parts < 4) {
    const start = i;
    let part = 0;
    for (; i < text.length && i - start < 3; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) break;
      part = part * 10 + (c - 0x30);
    }
    const digits = i - start;
    if (digits === 0 || part > 255 || (digits > 1 && text.charCodeAt(start) === 0x30)) return -1;
    value = value * 256 + part;
    parts++;
    if (parts < 4) {
      if (text.charCodeAt(i) !== 0x2e) return -1;
      i++;
    }
  }
  return i === text.length ? value : -1;
}

function hexGroup(text: string): number {
  if (text.length === 0 || text.length > 4) return -1;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20;
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x61 + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** The 16-bit groups of one side of `::` (a trailing dotted IPv4 counts as two), or null. */
function groupsOf(side: string, mayEndInIpv4: boolean): number[] | null {
  if (side === '') return [];
  const texts = side.split(':');
  const groups: number[] = [];
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i]!;
    if (mayEndInIpv4 && i === texts.length - 1 && t.includes('.')) {
      const v4 = ipv4Value(t);
      if (v4 < 0) return null;
      groups.push(Math.floor(v4 / 0x10000), v4 % 0x10000);
    } else {
      const g = hexGroup(t);
      if (g < 0) return null;
      groups.push(g);
    }
  }
  return groups;
}

/** An IPv6 address in any of RFC 4291's text forms (no zone, no brackets); null when it is not. */
export function ipv6Value(text: string): bigint | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  let groups: number[];
  if (halves.length === 2) {
    const head = groupsOf(halves[0]!, false);
    const tail = groupsOf(halves[1]!, true);
    if (head === null || tail === null || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    const all = groupsOf(text, true);
    if (all === null || all.length !== 8) return null;
    groups = all;
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

/**
 * The address a text names, or null. An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, how a
 * dual-stack server logs an IPv4 client) is that IPv4 address.
 */
export function parseIpAddress(text: string): IpAddress | null {
  if (text.includes(':')) {
    const v6 = ipv6Value(text);
    if (v6 === null) return null;
    if (v6 >> 32n === IPV4_MAPPED_PREFIX) return { family: 4, value: Number(v6 & 0xffffffffn) };
    return { family: 6, value: v6 };
  }
  const v4 = ipv4Value(text);
  return v4 < 0 ? null : { family: 4, value: v4 };
}

/** The text form of an IPv6 address for comparison (RFC 5952: lower case, longest zero run as `::`). */
export function canonicalIpv6(value: bigint): string {
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1; // a single zero group is not shortened (RFC 5952, 4.2.2)
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** An address as text in one canonical form (dotted IPv4, RFC 5952 IPv6), or null when it is none. */
export function canonicalIp(text: string): string | null {
  const ip = parseIpAddress(text);
  if (ip === null) return null;
  if (ip.family === 6) return canonicalIpv6(ip.value);
  const v = ip.value;
  return `${Math.floor(v / 0x1000000)}.${Math.floor(v / 0x10000) % 256}.${Math.floor(v / 0x100) % 256}.${v % 256}`;
}
