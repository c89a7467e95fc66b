import { describe, expect, it } from 'vitest';
import { combinedUserAgent, parseCombinedLine } from '../../../src/logs/combined.js';
import { isLogLineError } from '../../../src/logs/log-request.js';
import type { LogRequest } from '../../../src/logs/log-request.js';

const TIME = '[10/Oct/2000:13:55:36 -0700]';
const AT = '2000-10-10T20:55:36.000Z';
const LONG_AGENT = `Mozilla/5.0 (compatible; LongBot/1.0; ${'x'.repeat(8 * 1024)})`;

/** A combined line with the fields that vary; the rest as Apache's documentation writes them. */
function line(fields: { client?: string; request?: string; status?: string; size?: string; agent?: string }): string {
  const { client = '192.0.2.1', request = 'GET / HTTP/1.1', status = '200', size = '2326', agent = 'Mozilla/5.0' } = fields;
  return `${client} - - ${TIME} "${request}" ${status} ${size} "-" "${agent}"`;
}

const READ: [name: string, text: string, expected: Partial<LogRequest>][] = [
  [
    "Apache's documented example",
    String.raw`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`,
    { at: new Date(AT), host: null, clientIp: '127.0.0.1', method: 'GET', target: '/apache_pb.gif', status: 200, userAgent: 'Mozilla/4.08 [en] (Win98; I ;Nav)' },
  ],
  [
    'an offset east of UTC, back across a leap day',
    `203.0.113.9 - - [01/Mar/2024:00:10:00 +0130] "GET /a/b?c=d&e HTTP/2.0" 304 - "-" "Googlebot/2.1"`,
    { at: new Date('2024-02-29T22:40:00Z'), target: '/a/b?c=d&e', status: 304, userAgent: 'Googlebot/2.1' },
  ],
  ['an HTTP/0.9 request line', line({ request: 'GET /' }), { method: 'GET', target: '/' }],
  ['a HEAD with an absolute target (a proxy)', line({ request: 'HEAD http://example.com/x HTTP/1.1' }), { method: 'HEAD', target: 'http://example.com/x' }],
  ['a space inside the target, as the server logged it', line({ request: 'GET /a b HTTP/1.1' }), { target: '/a b' }],
  ['an IPv6 client', line({ client: '2001:db8::1' }), { clientIp: '2001:db8::1' }],
  ['the IPv6 loopback', line({ client: '::1' }), { clientIp: '::1' }],
  ['an IPv4-mapped IPv6 client', line({ client: '::ffff:192.0.2.7' }), { clientIp: '::ffff:192.0.2.7' }],
  ['status -', line({ status: '-' }), { status: null }],
  ['size -', line({ size: '-' }), { status: 200 }],
  ['user-agent -', line({ agent: '-' }), { userAgent: '' }],
  ['nginx writes " as \\x22', line({ agent: String.raw`Mozilla \x22quoted\x22` }), { userAgent: 'Mozilla "quoted"' }],
  ['Apache writes \\" and \\\\', line({ agent: String.raw`a \"b\" c\\d` }), { userAgent: 'a "b" c\\d' }],
  ['Apache writes a tab as \\t', line({ agent: String.raw`a\tb` }), { userAgent: 'a\tb' }],
  ['a \\" inside the request line', line({ request: String.raw`GET /q=\"x\" HTTP/1.1` }), { target: '/q="x"' }],
  ['UTF-8 bytes in the target', line({ request: String.raw`GET /caf\xC3\xA9 HTTP/1.1` }), { target: '/café' }],
  ['a byte that is not UTF-8 stays percent-encoded in the target', line({ request: String.raw`GET /caf\xE9 HTTP/1.1` }), { target: '/caf%E9' }],
  ['a byte that is not UTF-8 is Latin-1 in the user-agent', line({ agent: String.raw`Bot caf\xE9` }), { userAgent: 'Bot café' }],
  ['UTF-8 bytes in the user-agent', line({ agent: String.raw`Bot \xE2\x9C\x93` }), { userAgent: 'Bot ✓' }],
  ['an escaped ESC in the user-agent is kept as data', line({ agent: String.raw`\x1b[31mred\x1b[0m` }), { userAgent: '\u001b[31mred\u001b[0m' }],
  ['a raw control byte in the user-agent is kept as data', line({ agent: 'bell\u0007bot' }), { userAgent: 'bell\u0007bot' }],
  ['an 8 KiB user-agent', line({ agent: LONG_AGENT }), { userAgent: LONG_AGENT }],
  ['spaces after the last field', `${line({})}   `, { userAgent: 'Mozilla/5.0' }],
  ['a user name with a space', `192.0.2.1 - John Smith ${TIME} "GET / HTTP/1.1" 200 1 "-" "ua"`, { clientIp: '192.0.2.1', userAgent: 'ua' }],
];

describe('combined: a line into a LogRequest', () => {
  it.each(READ)('%s', (_name, text, expected) => {
    expect(parseCombinedLine(text, { vhost: false })).toMatchObject(expected);
  });

  it('reads the time to the second, its offset applied', () => {
    const result = parseCombinedLine(READ[0]![1], { vhost: false });
    expect(isLogLineError(result) ? null : result.at.toISOString()).toBe(AT);
  });
});

const VHOST: [name: string, text: string, host: string | null, clientIp: string][] = [
  ["Apache's vhost_combined, with the port", `example.com:443 192.0.2.1 - - ${TIME} "GET / HTTP/1.1" 200 5 "-" "ua"`, 'example.com', '192.0.2.1'],
  ["nginx's $host, no port, lower-cased", `WWW.Example.COM 192.0.2.1 - - ${TIME} "GET / HTTP/1.1" 200 5 "-" "ua"`, 'www.example.com', '192.0.2.1'],
  ['an IPv6 literal host with a port, an IPv6 client', `[2001:db8::1]:8443 2001:db8::2 - - ${TIME} "GET / HTTP/1.1" 200 5 "-" "ua"`, '2001:db8::1', '2001:db8::2'],
  ['an IPv6 literal host without a port', `[2001:db8::1] ::1 - - ${TIME} "GET / HTTP/1.1" 200 5 "-" "ua"`, '2001:db8::1', '::1'],
  ['a host field -', `- 192.0.2.1 - - ${TIME} "GET / HTTP/1.1" 200 5 "-" "ua"`, null, '192.0.2.1'],
];

describe('vhost-combined: the host field in front', () => {
  it.each(VHOST)('%s', (_name, text, host, clientIp) => {
    expect(parseCombinedLine(text, { vhost: true })).toMatchObject({ host, clientIp });
  });
});

const TLS_BYTES = String.raw`\x16\x03\x01\x02\x00\x01\x00\x01\xFC\x03\x03`.repeat(10);

const REFUSED: [name: string, text: string, vhost: boolean, reason: string | RegExp][] = [
  ['an empty line', '', false, 'empty line'],
  ['only spaces', '    ', false, 'empty line'],
  ['truncated in the user-agent', line({}).slice(0, -5), false, 'truncated in the user-agent'],
  ['truncated after the request line', `192.0.2.1 - - ${TIME} "GET / HTTP/1.1"`, false, 'truncated before the status'],
  ['no timestamp', `192.0.2.1 - - "GET / HTTP/1.1" 200 5 "-" "ua"`, false, /^no timestamp: "192\.0\.2\.1/],
  ['a month that is not one', line({}).replace('Oct', 'Okt'), false, 'invalid timestamp: "[10/Okt/2000:13:55:36 -0700]"'],
  ['31 February', line({}).replace('10/Oct', '31/Feb'), false, /^invalid timestamp/],
  ['an hour of 24', line({}).replace(':13:', ':24:'), false, /^invalid timestamp/],
  ['no request line (nginx writes -)', line({ request: '-', status: '400', size: '0' }), false, 'no request line: "-"'],
  ['an empty request line', line({ request: '' }), false, 'no request line: ""'],
  ['TLS bytes on a plain-HTTP port, cut short in the reason', line({ request: TLS_BYTES, status: '400' }), false, `no request line: "${TLS_BYTES.slice(0, 80)}…"`],
  ['a method that is not a token', line({ request: 'G(T / HTTP/1.1' }), false, /^no request line/],
  ['a status that is not one', line({ status: 'OK' }), false, 'invalid status: "OK"'],
  ['a size that is not one', line({ size: '12kB' }), false, 'invalid size: "12kB"'],
  ['a field after the user-agent ($http_x_forwarded_for)', `${line({})} "198.51.100.7"`, false, 'text after the user-agent: " "198.51.100.7""'],
  ['a client that is a host name (HostnameLookups On)', line({ client: 'crawl-66-249-66-1.googlebot.com' }), false, 'client is not an IP address: "crawl-66-249-66-1.googlebot.com"'],
  ['a vhost line read as plain combined', VHOST[0]![1], false, 'client is not an IP address: "example.com:443"'],
  ['a plain line read as vhost-combined', line({}), true, 'client is not an IP address: "-"'],
  ['control characters in a reason are shown, not sent', line({ client: '\u001b[2J' }), false, 'client is not an IP address: "\\x1b[2J"'],
];

describe('lines that are not requests, with their reasons', () => {
  it.each(REFUSED)('%s', (_name, text, vhost, reason) => {
    const result = parseCombinedLine(text, { vhost });
    expect(isLogLineError(result)).toBe(true);
    if (isLogLineError(result)) expect(result.error).toMatch(typeof reason === 'string' ? new RegExp(`^${escapeRegExp(reason)}$`) : reason);
  });

  it('a reason stays short whatever the line holds', () => {
    const result = parseCombinedLine(line({ request: 'X'.repeat(100_000) }), { vhost: false });
    expect(isLogLineError(result) && result.error.length).toBeLessThan(120);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('combinedUserAgent: the fast pre-filter', () => {
  const accepted = [...READ.map(([name, text]) => [name, text, false] as const), ...VHOST.map(([name, text]) => [name, text, true] as const)];

  it.each(accepted)('agrees with the parse: %s', (_name, text, vhost) => {
    const result = parseCombinedLine(text, { vhost });
    if (isLogLineError(result)) throw new Error(result.error);
    expect(combinedUserAgent(text)).toBe(result.userAgent);
  });

  it.each([
    ['a line that does not end with a quote', `${line({})} 12`],
    ['an empty line', ''],
    ['one quote alone', '"'],
    ['a last field whose opening quote is escaped', String.raw`a \"b"`],
  ])('null for %s', (_name, text) => {
    expect(combinedUserAgent(text)).toBeNull();
  });
});
