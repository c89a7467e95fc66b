/**
 * Origins and URLs (R-1..R-6): which origin a robots.txt belongs to, where it lives, and
 * whether a URL falls in its scope. The WHATWG URL parser does the heavy lifting: it
 * lower-cases the scheme and host, converts international names to punycode (R-4) and drops
 * default ports (R-3).
 */

/** Schemes a robots.txt can govern (R-6): http and https matter; ftp is Google-specific. */
export const SUPPORTED_SCHEMES = ['http:', 'https:', 'ftp:'] as const;

/** Characters of a refused input quoted in its error (a 10,000-character host stays one line). */
const QUOTED_INPUT_CHARS = 80;

export class InvalidUrlError extends Error {
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`invalid URL "${input.length <= QUOTED_INPUT_CHARS ? input : `${input.slice(0, QUOTED_INPUT_CHARS)}…`}": ${reason}`);
    this.name = 'InvalidUrlError';
  }
}

/**
 * Parses a URL a person typed. A bare host (`example.com`, `example.com/a`) is read as https,
 * which is what a site owner means today. Throws InvalidUrlError with a reason.
 */
export function parseUserUrl(input: string): URL {
  const trimmed = input.trim();
  if (trimmed === '') throw new InvalidUrlError(input, 'empty');
  // `example.com:8080/x` has no scheme; `mailto:x` and `http://x` do.
  const hasScheme = /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(trimmed);
  let url: URL;
  try {
    url = new URL(hasScheme ? trimmed : `https://${trimmed}`);
  } catch {
    throw new InvalidUrlError(input, 'not a URL');
  }
  if (!(SUPPORTED_SCHEMES as readonly string[]).includes(url.protocol)) {
    throw new InvalidUrlError(input, `unsupported scheme ${url.protocol.replace(':', '')} (R-6: http, https, ftp)`);
  }
  if (url.hostname === '') throw new InvalidUrlError(input, 'no host');
  // WHATWG URL accepts hosts like `ht!tp`; a site is a DNS name (punycode) or an IP address.
  if (!isPlausibleHost(url.hostname)) {
    const host = url.hostname.length <= QUOTED_INPUT_CHARS ? url.hostname : `${url.hostname.slice(0, QUOTED_INPUT_CHARS)}…`;
    throw new InvalidUrlError(input, `invalid host name "${host}"`);
  }
  return url;
}

const DNS_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** An IPv6 literal, or dot-separated DNS labels (a final dot allowed). Checked label by label. */
function isPlausibleHost(hostname: string): boolean {
  if (hostname.startsWith('[')) return /^\[[0-9a-f:.]+\]$/.test(hostname);
  const labels = hostname.endsWith('.') ? hostname.slice(0, -1).split('.') : hostname.split('.');
  return labels.every((label) => DNS_LABEL.test(label));
}

/**
 * The normalised origin of a URL: scheme + punycode host + non-default port (R-1..R-5), e.g.
 * `https://www.xn--mller-kva.eu` or `http://example.com:8080`. Path, query, credentials and
 * fragment are dropped.
 */
export function normalizeOrigin(input: string): string {
  const url = parseUserUrl(input);
  // URL#origin is "null" for ftp in some runtimes; build it from the parts instead.
  return `${url.protocol}//${url.host}`;
}

/** RFC 1035 §2.3.4: a DNS name is at most 253 characters written out (255 octets on the wire). */
export const MAX_HOST_CHARS = 253;
/** The schemes the auditor fetches: ftp governs a robots.txt (R-6) but is never fetched. */
export const AUDITED_SCHEMES = ['http:', 'https:'] as const;

export interface AuditableOriginOptions {
  /** Accept an IP address as the host (`--allow-ip`); refused by default. */
  allowIpLiterals?: boolean;
}

/**
 * The origin of a site the auditor can audit every night, from what a person typed (`sites add`,
 * `sites import`, `track`), or InvalidUrlError with one clear reason: a scheme other than http or
 * https, a host longer than a DNS name can be (253 characters; labels of at most 63 are checked
 * by the parse), an IP address unless allowed. A host's final dot is dropped
 * (`trailing-dot.example.:443` is `https://trailing-dot.example`, not a second site).
 */
export function auditableOrigin(input: string, options: AuditableOriginOptions = {}): string {
  const url = parseUserUrl(input);
  if (!(AUDITED_SCHEMES as readonly string[]).includes(url.protocol)) {
    throw new InvalidUrlError(input, `unsupported scheme ${url.protocol.replace(':', '')}: sites are audited over http and https only`);
  }
  if (url.hostname.endsWith('.')) url.hostname = url.hostname.slice(0, -1);
  if (url.hostname.length > MAX_HOST_CHARS) {
    throw new InvalidUrlError(input, `host too long (${url.hostname.length} characters; a DNS name has at most ${MAX_HOST_CHARS})`);
  }
  if (!options.allowIpLiterals && isIpLiteral(url.hostname)) {
    throw new InvalidUrlError(input, `the host is an IP address; sites are DNS names (add it with --allow-ip if it is meant)`);
  }
  return `${url.protocol}//${url.host}`;
}

/** An IPv6 literal (`[::1]`) or an IPv4 address as the URL parser writes it (`127.0.0.1`). */
function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname);
}

/** R-1, R-19: the robots.txt of an origin lives at `/robots.txt`, case-sensitive (R-6). */
export function robotsTxtUrl(origin: string): string {
  return `${normalizeOrigin(origin)}/robots.txt`;
}

/**
 * R-2..R-5: a robots.txt governs exactly its own scheme, host and port. Returns false (never
 * throws) when either side is not a URL.
 */
export function isInScope(robotsUrlOrOrigin: string, url: string): boolean {
  try {
    return normalizeOrigin(robotsUrlOrOrigin) === normalizeOrigin(url);
  } catch {
    return false;
  }
}

/**
 * D-5: the canonical form in which the product evaluates a URL: the WHATWG serialisation
 * (percent-encodes non-ASCII, punycode host), fragment dropped. The engine itself compares
 * whatever string it is given, as Google's parser does (T29).
 */
export function canonicalUrl(input: string): string {
  const url = parseUserUrl(input);
  url.hash = '';
  return url.href;
}

/**
 * The canonical URL (D-5) an argument names on `origin`'s site: a path is resolved against the
 * origin, anything else read as a URL (a bare host as https). Throws InvalidUrlError, with the
 * reason, for a URL that cannot be parsed or belongs to another site.
 */
export function resolveSiteUrl(origin: string, input: string): string {
  const trimmed = input.trim();
  // `//other.host/x` starts with a slash too: the scope check below refuses it.
  let absolute = trimmed;
  if (trimmed.startsWith('/')) {
    try {
      absolute = new URL(trimmed, `${origin}/`).href;
    } catch {
      throw new InvalidUrlError(input, 'not a path');
    }
  }
  const url = canonicalUrl(absolute);
  if (!isInScope(origin, url)) throw new InvalidUrlError(input, `not on ${origin} (R-2..R-5: a robots.txt governs its own scheme, host and port)`);
  return url;
}
