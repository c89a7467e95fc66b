/**
 * The few pieces of Python 3.11's `str` and `urllib.parse` that the Python parsers rely on,
 * reproduced so a profile answers exactly as the library does. Behaviour read from CPython 3.11.2
 * as Debian 12 ships it (Objects/unicodeobject.c, Lib/urllib/parse.py:
 * https://github.com/python/cpython/blob/v3.11.2/Lib/urllib/parse.py). Pure: no I/O.
 */

/** Raised where the Python library would raise (ValueError, UnicodeEncodeError). */
export class PythonLibraryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PythonLibraryError';
  }
}

/** `str.isspace()`: Unicode White_Space as CPython defines it (bidi WS/B/S or category Zs). */
const PY_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

export function isPySpace(code: number): boolean {
  return PY_WHITESPACE.has(code);
}

/** `str.strip()` with no argument (not JS trim: Python strips \x1c-\x1f and \x85, keeps U+FEFF). */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && PY_WHITESPACE.has(s.charCodeAt(start))) start += 1;
  while (end > start && PY_WHITESPACE.has(s.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** `str.splitlines()`: breaks on \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028, U+2029; no trailing empty line. */
export function pySplitlines(s: string): string[] {
  const lines: string[] = [];
  let start = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 0x0a || c === 0x0b || c === 0x0c || c === 0x0d || c === 0x1c || c === 0x1d || c === 0x1e || c === 0x85 || c === 0x2028 || c === 0x2029) {
      lines.push(s.slice(start, i));
      i += c === 0x0d && s.charCodeAt(i + 1) === 0x0a ? 2 : 1;
      start = i;
    } else {
      i += 1;
    }
  }
  if (start < s.length) lines.push(s.slice(start));
  return lines;
}

/**
 * `str.lower()`. JavaScript's toLowerCase applies the same full Unicode mappings (SpecialCasing,
 * final sigma) as CPython; the oracle tests hold the two together on the corpus.
 */
export function pyLower(s: string): string {
  return s.toLowerCase();
}

/** `bytes.decode('utf-8', 'replace')`: the BOM is kept (CPython's 'utf-8' codec does not drop it). */
export function decodeUtf8Replace(body: Uint8Array): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(body);
}

/** `bytes.decode('utf-8')` (strict): undefined where CPython raises UnicodeDecodeError. */
export function decodeUtf8Strict(body: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { ignoreBOM: true, fatal: true }).decode(body);
  } catch {
    return undefined;
  }
}

/**
 * `bytes.decode('utf-8-sig', 'ignore')`: a leading BOM dropped, and every invalid sequence (its
 * maximal subpart, as Python and the WHATWG decoder delimit it) dropped too.
 */
export function decodeUtf8SigIgnore(body: Uint8Array): string {
  const out: number[] = [];
  let text = '';
  let i = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  while (i < body.length) {
    const b = body[i]!;
    if (b < 0x80) {
      out.push(b);
      i += 1;
    } else {
      // The continuation bytes needed, and the range of the first (the others are 80-BF).
      let need = 0;
      let lo = 0x80;
      let hi = 0xbf;
      if (b >= 0xc2 && b <= 0xdf) need = 1;
      else if (b >= 0xe0 && b <= 0xef) {
        need = 2;
        if (b === 0xe0) lo = 0xa0;
        else if (b === 0xed) hi = 0x9f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3;
        if (b === 0xf0) lo = 0x90;
        else if (b === 0xf4) hi = 0x8f;
      }
      let cp = need === 1 ? b & 0x1f : need === 2 ? b & 0x0f : b & 0x07;
      let j = i + 1;
      let k = 0;
      for (; k < need; k += 1, j += 1) {
        const c = body[j];
        if (c === undefined || c < (k === 0 ? lo : 0x80) || c > (k === 0 ? hi : 0xbf)) break;
        cp = (cp << 6) | (c & 0x3f);
      }
      // A whole sequence is a character; otherwise the lead byte and the continuation bytes that
      // fitted go, and the byte that did not fit starts afresh.
      if (need > 0 && k === need) out.push(cp);
      i = j;
    }
    if (out.length >= 4096) {
      text += String.fromCodePoint(...out);
      out.length = 0;
    }
  }
  return text + String.fromCodePoint(...out);
}

const HEX = /^[0-9A-Fa-f]{2}$/;

/** `urllib.parse.unquote(s)`: %XX runs in ASCII stretches decoded as UTF-8 with replacement. */
export function pyUnquote(s: string): string {
  if (!s.includes('%')) return s;
  // Python splits on runs of ASCII; each run is unquoted to bytes and decoded on its own,
  // so a sequence cut by a non-ASCII character decodes as two broken halves.
  // eslint-disable-next-line no-control-regex -- Python's own character classes include the C0 controls
  return s.replace(/[\x00-\x7f]+/g, (run) => (run.includes('%') ? decodeUtf8Replace(unquoteToBytes(run)) : run));
}

function unquoteToBytes(ascii: string): Uint8Array {
  const bytes: number[] = [];
  const bits = ascii.split('%');
  pushAscii(bytes, bits[0]!);
  for (const item of bits.slice(1)) {
    const two = item.slice(0, 2);
    if (HEX.test(two)) {
      bytes.push(parseInt(two, 16));
      pushAscii(bytes, item.slice(2));
    } else {
      bytes.push(0x25);
      pushAscii(bytes, item);
    }
  }
  return Uint8Array.from(bytes);
}

function pushAscii(bytes: number[], s: string): void {
  for (let i = 0; i < s.length; i += 1) bytes.push(s.charCodeAt(i));
}

const ALWAYS_SAFE = /[A-Za-z0-9_.\-~]/;

/** `urllib.parse.quote(s, safe)`: UTF-8, every byte outside the safe set as %XX (upper case). */
/** Per `safe` set: a string of these characters only is quoted as itself. */
const ALL_SAFE = new Map<string, RegExp>();

function allSafe(safe: string): RegExp {
  let re = ALL_SAFE.get(safe);
  if (re === undefined) {
    const extra = [...safe].filter((c) => c.charCodeAt(0) < 0x80).map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    ALL_SAFE.set(safe, (re = new RegExp(`^[A-Za-z0-9_.\\-~${extra}]*$`)));
  }
  return re;
}

export function pyQuote(s: string, safe = '/'): string {
  if (s === '') return s;
  // The common case, a path of safe ASCII, costs one test (a 500 KiB file quotes 12,000 rules).
  if (allSafe(safe).test(s)) return s;
  if (/[\ud800-\udfff]/.test(s) && hasLoneSurrogate(s)) {
    throw new PythonLibraryError("'utf-8' codec can't encode character: surrogates not allowed");
  }
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && (ALWAYS_SAFE.test(ch) || safe.includes(ch)) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 1;
        continue;
      }
      return true;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

export interface PyParseResult {
  scheme: string;
  netloc: string;
  path: string;
  params: string;
  query: string;
  fragment: string;
}

const SCHEME_CHARS = /^[A-Za-z0-9+\-.]*$/;
const USES_PARAMS = new Set(['', 'ftp', 'hdl', 'prospero', 'http', 'imap', 'https', 'shttp', 'rtsp', 'rtspu', 'sip', 'sips', 'mms', 'sftp', 'tel']);
const USES_NETLOC = new Set([
  '', 'ftp', 'http', 'gopher', 'nntp', 'telnet', 'imap', 'wais', 'file', 'mms', 'https', 'shttp', 'snews', 'prospero', 'rtsp',
  'rtspu', 'rsync', 'svn', 'svn+ssh', 'sftp', 'nfs', 'git', 'git+ssh', 'ws', 'wss',
]);

export type PySplitResult = Omit<PyParseResult, 'params'>;

/**
 * `urllib.parse.urlsplit(url)`, with its WHATWG stripping and netloc checks: Python 3.11.2's, or
 * with `py313` CPython 3.13.18's, the same but for an IPvFuture host, which may start with `V` too.
 */
export function pyUrlsplit(input: string, py313 = false): PySplitResult {
  // Leading C0 controls and spaces go; tabs and line breaks anywhere go.
  // eslint-disable-next-line no-control-regex -- Python's own character classes include the C0 controls
  let url = input.replace(/^[\x00-\x20]+/, '').replace(/[\t\r\n]/g, '');
  let scheme = '';
  let netloc = '';
  let query = '';
  let fragment = '';
  const colon = url.indexOf(':');
  if (colon > 0 && /^[A-Za-z]/.test(url) && SCHEME_CHARS.test(url.slice(0, colon))) {
    scheme = url.slice(0, colon).toLowerCase();
    url = url.slice(colon + 1);
  }
  if (url.startsWith('//')) {
    let delim = url.length;
    for (const c of '/?#') {
      const at = url.indexOf(c, 2);
      if (at >= 0) delim = Math.min(delim, at);
    }
    netloc = url.slice(2, delim);
    url = url.slice(delim);
    const open = netloc.includes('[');
    const close = netloc.includes(']');
    if (open !== close) throw new PythonLibraryError('Invalid IPv6 URL');
    if (open && close) checkBracketedNetloc(netloc, py313);
  }
  const hash = url.indexOf('#');
  if (hash >= 0) {
    fragment = url.slice(hash + 1);
    url = url.slice(0, hash);
  }
  const q = url.indexOf('?');
  if (q >= 0) {
    query = url.slice(q + 1);
    url = url.slice(0, q);
  }
  checkNetloc(netloc);
  return { scheme, netloc, path: url, query, fragment };
}

/** `urllib.parse.urlparse(url)`: urlsplit, then `;params` off the last path segment (3.11.2, or 3.13.18 with `py313`). */
export function pyUrlparse(input: string, py313 = false): PyParseResult {
  const { scheme, netloc, path, query, fragment } = pyUrlsplit(input, py313);
  let url = path;
  let params = '';
  if ((USES_PARAMS.has(scheme) || (py313 && scheme === 'rtsps')) && url.includes(';')) {
    let i: number;
    if (url.includes('/')) {
      i = url.indexOf(';', url.lastIndexOf('/'));
    } else {
      i = url.indexOf(';');
    }
    if (i >= 0) {
      params = url.slice(i + 1);
      url = url.slice(0, i);
    }
  }
  return { scheme, netloc, path: url, params, query, fragment };
}

/** `urllib.parse.urlunparse(parts)`. */
export function pyUrlunparse(parts: PyParseResult): string {
  let url = parts.params ? `${parts.path};${parts.params}` : parts.path;
  if (parts.netloc || (parts.scheme && USES_NETLOC.has(parts.scheme) && url.slice(0, 2) !== '//')) {
    if (url && url[0] !== '/') url = `/${url}`;
    url = `//${parts.netloc}${url}`;
  }
  if (parts.scheme) url = `${parts.scheme}:${url}`;
  if (parts.query) url = `${url}?${parts.query}`;
  if (parts.fragment) url = `${url}#${parts.fragment}`;
  return url;
}

/** `_checknetloc`: a non-ASCII netloc whose NFKC form gains one of / ? # @ : is refused. */
function checkNetloc(netloc: string): void {
  // eslint-disable-next-line no-control-regex -- Python's own character classes include the C0 controls
  if (!netloc || /^[\x00-\x7f]*$/.test(netloc)) return;
  const n = netloc.replace(/[@:#?]/g, '');
  const normal = n.normalize('NFKC');
  if (n === normal) return;
  if (/[/?#@:]/.test(normal)) throw new PythonLibraryError(`netloc '${netloc}' contains invalid characters under NFKC normalization`);
}

/** `_check_bracketed_netloc` and `_check_bracketed_host`. */
function checkBracketedNetloc(netloc: string, py313: boolean): void {
  const hostAndPort = netloc.slice(netloc.lastIndexOf('@') + 1);
  const open = hostAndPort.indexOf('[');
  let hostname: string;
  if (open >= 0) {
    if (open > 0) throw new PythonLibraryError('Invalid IPv6 URL');
    const bracketed = hostAndPort.slice(open + 1);
    const close = bracketed.indexOf(']');
    hostname = close >= 0 ? bracketed.slice(0, close) : bracketed;
    const port = close >= 0 ? bracketed.slice(close + 1) : '';
    if (port && !port.startsWith(':')) throw new PythonLibraryError('Invalid IPv6 URL');
  } else {
    const colon = hostAndPort.indexOf(':');
    hostname = colon >= 0 ? hostAndPort.slice(0, colon) : hostAndPort;
  }
  if (hostname.startsWith('v') || (py313 && hostname.startsWith('V'))) {
    // Python's "." stops at a line break, but urlsplit has removed those already.
    if (!(py313 ? /^[vV][a-fA-F0-9]+\.[^]+$/ : /^v[a-fA-F0-9]+\.[^]+$/).test(hostname)) throw new PythonLibraryError('IPvFuture address is invalid');
    return;
  }
  if (isPyIPv4(hostname)) throw new PythonLibraryError('An IPv4 address cannot be in brackets');
  if (!isPyIPv6(hostname)) throw new PythonLibraryError(`'${hostname}' does not appear to be an IPv4 or IPv6 address`);
}

/** `ipaddress.IPv4Address(s)` accepts it: four decimal octets, at most 3 digits, no leading zero. */
function isPyIPv4(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  return parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255 && !(p.length > 1 && p.startsWith('0')));
}

/** `ipaddress.IPv6Address(s)` accepts it (scope id after %, embedded IPv4 tail, one ::). */
function isPyIPv6(input: string): boolean {
  let s = input;
  const pct = s.indexOf('%');
  if (pct >= 0) {
    const scope = s.slice(pct + 1);
    if (!scope || scope.includes('%')) return false;
    s = s.slice(0, pct);
  }
  const parts = s.split(':');
  if (parts.length < 3) return false;
  let maxParts = 8;
  const last = parts[parts.length - 1]!;
  if (last.includes('.')) {
    if (!isPyIPv4(last)) return false;
    parts.pop();
    parts.push('0', '0');
    maxParts += 1;
  }
  if (parts.length > maxParts) return false;
  let skip: number | undefined;
  for (let i = 1; i < parts.length - 1; i += 1) {
    if (parts[i] === '') {
      if (skip !== undefined) return false;
      skip = i;
    }
  }
  let hi: number;
  let lo: number;
  if (skip !== undefined) {
    hi = skip;
    lo = parts.length - skip - 1;
    if (parts[0] === '') {
      hi -= 1;
      if (hi) return false;
    }
    if (parts[parts.length - 1] === '') {
      lo -= 1;
      if (lo) return false;
    }
    if (hi + lo >= 8) return false;
  } else {
    if (parts.length !== 8) return false;
    if (parts[0] === '' || parts[parts.length - 1] === '') return false;
    hi = parts.length;
    lo = 0;
  }
  const groups = [...parts.slice(0, hi), ...(lo ? parts.slice(parts.length - lo) : [])];
  return groups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g));
}
