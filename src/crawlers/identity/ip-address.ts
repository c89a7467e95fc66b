/**
 * IP addresses as numbers, so that ranges compare as numbers: IPv4 as an unsigned 32-bit number,
 * IPv6 as a 128-bit bigint. The text is read by ipaddr.js (the SSRF guard's parser too), held
 * strict on purpose: a log's address field is data, and an address two readers could read two
 * ways (`010.1.1.1` octal or decimal, a zone `fe80::1%eth0`) is no address. Pure.
 */
import ipaddr from 'ipaddr.js';

export type IpAddress = { readonly family: 4; readonly value: number } | { readonly family: 6; readonly value: bigint };

function bytesValue(bytes: readonly number[]): bigint {
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return value;
}

/** `a.b.c.d`, each part 0-255 in decimal without a leading zero; -1 when it is not. */
export function ipv4Value(text: string): number {
  // Four decimal parts (not ipaddr's looser forms: `10.1`, hex, octal), no leading zeros.
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) || /(^|\.)0\d/.test(text)) return -1;
  return Number(bytesValue(ipaddr.IPv4.parse(text).toByteArray()));
}

/** An IPv6 address in any of RFC 4291's text forms (no zone, no brackets); null when it is not. */
export function ipv6Value(text: string): bigint | null {
  if (text.includes('%')) return null;
  let hex = text;
  if (text.includes('.')) {
    // An embedded IPv4 part, held to the same four decimal parts as an IPv4 address, as the two
    // groups it stands for (ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d`, which it is not).
    const tail = text.lastIndexOf(':');
    const v4 = ipv4Value(text.slice(tail + 1));
    if (v4 < 0) return null;
    hex = `${text.slice(0, tail + 1)}${Math.floor(v4 / 0x10000).toString(16)}:${(v4 % 0x10000).toString(16)}`;
  }
  if (!ipaddr.IPv6.isValid(hex)) return null;
  return bytesValue(ipaddr.IPv6.parse(hex).toByteArray());
}

/**
 * The address a text names, or null. An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, how a
 * dual-stack server logs an IPv4 client) is that IPv4 address.
 */
export function parseIpAddress(text: string): IpAddress | null {
  if (text.includes(':')) {
    const v6 = ipv6Value(text);
    if (v6 === null) return null;
    if (v6 >> 32n === 0xffffn) return { family: 4, value: Number(v6 & 0xffffffffn) };
    return { family: 6, value: v6 };
  }
  const v4 = ipv4Value(text);
  return v4 < 0 ? null : { family: 4, value: v4 };
}

/** The text form of an IPv6 address for comparison (RFC 5952: lower case, longest zero run as `::`). */
export function canonicalIpv6(value: bigint): string {
  const bytes = Array.from({ length: 16 }, (_, i) => Number((value >> BigInt((15 - i) * 8)) & 0xffn));
  return new ipaddr.IPv6(Array.from({ length: 8 }, (_, i) => bytes[2 * i]! * 256 + bytes[2 * i + 1]!)).toRFC5952String();
}

/** An address as text in one canonical form (dotted IPv4, RFC 5952 IPv6), or null when it is none. */
export function canonicalIp(text: string): string | null {
  const ip = parseIpAddress(text);
  if (ip === null) return null;
  if (ip.family === 6) return canonicalIpv6(ip.value);
  const v = ip.value;
  return `${Math.floor(v / 0x1000000)}.${Math.floor(v / 0x10000) % 256}.${Math.floor(v / 0x100) % 256}.${v % 256}`;
}
