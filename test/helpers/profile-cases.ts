/**
 * Questions for the parser-profile oracle tests (test/integration/robots/profiles): robots.txt
 * bodies, each with (url, product token) cases. Bodies: the corpus sample (test/fixtures/corpus) and
 * generated edge-case files; tokens: the crawler catalogue (src/crawlers/catalogue.json) and the
 * tokens the body names itself; URLs: derived from the body's own rules. Deterministic (seeded).
 */
import { catalogue } from '../../src/crawlers/catalogue.js';
import { loadRobotsSample } from './corpus.js';

export interface ProfileCaseFile {
  name: string;
  body: Uint8Array;
  cases: Array<[url: string, token: string]>;
}

/** A small seeded generator (mulberry32), so a failing case comes back on the next run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ORIGIN = 'https://example.com';
const AI_TOKENS = ['GPTBot', 'CCBot', 'ClaudeBot', 'Google-Extended', 'PerplexityBot', 'Bytespider', 'anthropic-ai', 'Applebot-Extended'];

function decodeLoose(body: Uint8Array): string {
  return new TextDecoder('utf-8').decode(body.length > 200_000 ? body.subarray(0, 200_000) : body);
}

/** The values of the body's user-agent and allow/disallow lines, as written. */
function rulesOf(text: string): { agents: string[]; paths: string[] } {
  const agents: string[] = [];
  const paths: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    const m = /^\s*([A-Za-z-]+)\s*:\s*([^#]*)/.exec(line);
    if (!m) continue;
    const key = m[1]!.toLowerCase();
    const value = m[2]!.trim();
    if (key === 'user-agent' && value) agents.push(value);
    else if ((key === 'allow' || key === 'disallow') && value) paths.push(value);
  }
  return { agents, paths };
}

/** URLs a crawler could ask for that hit, miss and straddle the rule `pattern`. */
function urlsForRule(pattern: string, rnd: () => number): string[] {
  const plain = pattern.replace(/\$$/, '').replace(/\*/g, rnd() < 0.5 ? 'x' : 'abc/def');
  const start = plain.startsWith('/') ? plain : `/${plain}`;
  const urls = [`${ORIGIN}${start}`, `${ORIGIN}${start}${rnd() < 0.5 ? 'more' : '/page.html?q=1'}`];
  if (start.length > 2) urls.push(`${ORIGIN}${start.slice(0, Math.max(1, Math.floor(start.length / 2)))}`);
  if (/[A-Za-z]/.test(start) && rnd() < 0.3) urls.push(`${ORIGIN}${start.toUpperCase()}`);
  if (rnd() < 0.2) urls.push(`${ORIGIN}${encodeURI(start)}`);
  return urls;
}

function pick<T>(items: readonly T[], n: number, rnd: () => number): T[] {
  if (items.length <= n) return [...items];
  const out: T[] = [];
  for (let i = 0; i < n; i += 1) out.push(items[Math.floor(rnd() * items.length)]!);
  return out;
}

const CATALOGUE_TOKENS = catalogue().map((e) => e.token);

/** Cases for one body: its rules' URLs crossed with its own tokens, catalogue and AI tokens. */
export function casesForBody(body: Uint8Array, rnd: () => number, maxCases: number): Array<[string, string]> {
  const { agents, paths } = rulesOf(decodeLoose(body));
  const tokens = [
    ...pick(agents.filter((a) => a !== '*'), 3, rnd),
    ...pick(CATALOGUE_TOKENS, 2, rnd),
    ...pick(AI_TOKENS, 2, rnd),
    rnd() < 0.3 ? 'Googlebot/2.1' : 'Googlebot',
  ];
  const urls = [`${ORIGIN}/`, `${ORIGIN}/files/a.pdf`, ...pick(paths, 6, rnd).flatMap((p) => urlsForRule(p, rnd))];
  const cases: Array<[string, string]> = [];
  for (let i = 0; i < maxCases; i += 1) {
    cases.push([urls[Math.floor(rnd() * urls.length)]!, tokens[Math.floor(rnd() * tokens.length)]!]);
  }
  return cases;
}

/** The corpus sample, `perFile` cases each. */
export function corpusCaseFiles(perFile: number, seed = 19): ProfileCaseFile[] {
  const rnd = seeded(seed);
  return loadRobotsSample().map((f) => ({ name: `corpus ${f.host} (${f.id})`, body: f.body, cases: casesForBody(f.body, rnd, perFile) }));
}

const enc = new TextEncoder();

/** Pieces the generated files are built from: each a hazard a parser may read its own way. */
const AGENT_LINES = [
  'User-agent: *',
  'User-agent: GPTBot',
  'user-agent: gptbot',
  'USER-AGENT : CCBot',
  'User-agent: CCBot/2.0',
  'User-agent: Googlebot',
  'User-agent: Googlebot-Image',
  'User-agent: bot',
  'User-agent:',
  'User-agent: * # all',
  'User-agent: ClaudeBot GPTBot',
  'User-agent:GPTBot',
  'Useragent: GPTBot',
  'User agent: GPTBot',
  'User-agent: %47PTBot',
  'User-agent: GPTBot\u00a0',
  'user agent GPTBot',
  'useragent: CCBot',
  'User-agent: GPT*',
  'User-agent: *bot',
];
const RULE_LINES = [
  'Disallow: /',
  'Disallow:',
  'Allow: /',
  'Disallow: /private',
  'Disallow: /private/',
  'Allow: /private/open',
  'Disallow: /*.pdf$',
  'Disallow: /*.pdf',
  'Disallow: /files/*',
  'Disallow: *',
  'Disallow: /search$',
  'Disallow: /*?q=',
  'Allow: /$',
  'Disallow: /a%2Fb',
  'Disallow: /caf%C3%A9',
  'Disallow: /café',
  'Disallow: /%7Euser',
  'Disallow: /~user',
  'Disallow: /a b',
  'Disallow: /a;b',
  'Disallow: /index.html?x',
  'Disallow: /p#frag',
  'Disallow: http://example.com/abs',
  'Disallow: //example.com/x',
  'Disallow: /x:y',
  'disallow : /spaced',
  'DISALLOW: /upper',
  'Disallow /nocolon',
  'Disallow: /%',
  'Disallow: /%zz',
  'Disallow: /\u00e9t\u00e9',
  'Crawl-delay: 10',
  'Crawl-delay: 1.5',
  'Request-rate: 1/5',
  'Sitemap: https://example.com/sitemap.xml',
  'Noindex: /ni',
  'dissalow: /typo',
  'disallow /lower-nocolon',
  'Allow: /dir/index.html',
  'Disallow: /dir/',
  'Disallow: /a$b',
  'Disallow: /**x',
  'Disallow: /%2a',
  'Disallow: /%2fsl',
];
const BREAKS = ['\n', '\r\n', '\r', '\n\n', '\n \n', '\n\t\n', '\n# comment\n', '\u2028', '\x0b', '\x0c', '\x1c', '\x85'];
const PATHS = [
  '/', '/private', '/private/', '/private/open/x', '/files/a.pdf', '/files/a.pdf?x=1', '/a.PDF', '/search', '/search?q=1',
  '/?q=1', '/a%2Fb', '/a/b', '/caf%C3%A9', '/café', '/~user', '/%7Euser', '/a b', '/a%20b', '/a;b', '/index.html?x', '/p',
  '/abs', '/x:y', '/spaced', '/upper', '/UPPER', '/nocolon', '/%', '/%25', '/ni', '/été', '/%C3%A9t%C3%A9', '',
  '/typo', '/lower-nocolon', '/dir/', '/dir/index.html', '/dir/x', '/a$b', '/a%24b', '/yx', '/*', '/%2Fsl', '/%2fsl', '//sl',
];
const TOKENS = ['GPTBot', 'CCBot', 'Googlebot', 'Googlebot-Image', 'ClaudeBot', 'examplebot', 'Bot', 'gptbot', 'CCBot/2.0', 'Mozilla'];

/** Generated edge-case files: random mixes of the pieces above, plus byte-level oddities. */
export function generatedCaseFiles(count: number, perFile: number, seed = 1909): ProfileCaseFile[] {
  const rnd = seeded(seed);
  const files: ProfileCaseFile[] = [];
  for (let n = 0; n < count; n += 1) {
    const lines: string[] = [];
    const groups = 1 + Math.floor(rnd() * 4);
    for (let g = 0; g < groups; g += 1) {
      for (let a = 0, k = 1 + Math.floor(rnd() * 2); a < k; a += 1) lines.push(AGENT_LINES[Math.floor(rnd() * AGENT_LINES.length)]!);
      for (let r = 0, k = Math.floor(rnd() * 5); r < k; r += 1) lines.push(RULE_LINES[Math.floor(rnd() * RULE_LINES.length)]!);
    }
    let text = '';
    for (const [i, line] of lines.entries()) {
      const lead = rnd() < 0.1 ? [' ', '\t', '\u00a0', '\u3000'][Math.floor(rnd() * 4)]! : '';
      text += lead + line + (i < lines.length - 1 || rnd() < 0.7 ? (rnd() < 0.75 ? '\n' : BREAKS[Math.floor(rnd() * BREAKS.length)]!) : '');
    }
    if (rnd() < 0.05) text = `Disallow: /before-any-agent\n${text}`;
    if (rnd() < 0.05) text += `\nDisallow: /${'x'.repeat(20_000)}`;
    // A rule Python's urlparse refuses: urllib and Protego raise on the whole file.
    if (rnd() < 0.02) text += '\nDisallow: //[x]/a';
    let body: Uint8Array = enc.encode(text);
    const odd = rnd();
    if (odd < 0.08) body = concat(Uint8Array.of(0xef, 0xbb, 0xbf), body);
    else if (odd < 0.14) body = concat(body, Uint8Array.of(0x0a, 0x44, 0x69, 0x73, 0x61, 0x6c, 0x6c, 0x6f, 0x77, 0x3a, 0x20, 0x2f, 0xe9, 0x0a));
    else if (odd < 0.17) body = concat(Uint8Array.of(0xff, 0xfe), body);
    const cases: Array<[string, string]> = [];
    for (let i = 0; i < perFile; i += 1) {
      const path = PATHS[Math.floor(rnd() * PATHS.length)]!;
      cases.push([`${ORIGIN}${path}`, TOKENS[Math.floor(rnd() * TOKENS.length)]!]);
    }
    files.push({ name: `generated #${n}`, body, cases });
  }
  return files;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * The first 500 files with their first four questions asked again with URLs a contract must
 * survive: another scheme and port, an upper-case scheme and host with the default port, a
 * relative URL, a fragment, escapes of unreserved letters, an empty path, a doubled slash.
 */
export function urlVariantFiles(files: readonly ProfileCaseFile[]): ProfileCaseFile[] {
  const variants = (url: string) => {
    const path = url.slice(ORIGIN.length);
    return [
      `http://example.com:8080${path}`,
      `HTTPS://EXAMPLE.com:443${path}`,
      path,
      `${url}#frag`,
      `${ORIGIN}${path.replace(/a/g, '%61')}`,
      ORIGIN,
      `${ORIGIN}/${path}`,
    ];
  };
  return files.slice(0, 500).map((f) => ({ ...f, name: `${f.name} (URL variants)`, cases: f.cases.slice(0, 4).flatMap(([u, t]) => variants(u).map((v) => [v, t] as [string, string])) }));
}
