/**
 * The two addresses a log line names: the client's (an IP address, as LogRequest promises) and the
 * host the request was for (a virtual-host field or a Host header, as written by the server).
 */

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** Hex groups and colons, an embedded IPv4 tail (`::ffff:192.0.2.1`) and a zone (`fe80::1%eth0`). */
const IPV6 = /^[0-9a-f]*:[0-9a-f:.]*(?:%[\w.-]+)?$/i;

/**
 * The client address without brackets, or null when it is not an IPv4 or IPv6 address (a host
 * name from Apache's HostnameLookups, a virtual-host field read as the client, `-`). The shape is
 * checked, not each group's range: the address is data to report, not to connect to.
 */
export function clientAddress(text: string): string | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (IPV4.test(bare)) return bare;
  // At least two colons: `a:b` is a host and a port, never an IPv6 address.
  if (IPV6.test(bare) && bare.indexOf(':') !== bare.lastIndexOf(':')) return bare;
  return null;
}

/**
 * The host a request was for, lower-cased and without its port: `Example.com:443` -> `example.com`,
 * `[2001:db8::1]:443` -> `2001:db8::1`. Null for an empty field or `-`. A bare IPv6 literal
 * (several colons, no brackets) is taken whole: `2001:db8::1:443` cannot be told apart from an
 * address ending in `:443`, and servers bracket a literal that carries a port.
 */
export function requestHost(text: string): string | null {
  if (text === '' || text === '-') return null;
  let host = text;
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    host = close === -1 ? host.slice(1) : host.slice(1, close);
  } else {
    const colon = host.indexOf(':');
    if (colon !== -1 && colon === host.lastIndexOf(':')) host = host.slice(0, colon);
  }
  return host === '' ? null : host.toLowerCase();
}
