/**
 * Profile `crawler-commons` (ASSUMED): crawler-commons' SimpleRobotRulesParser (1.4 and later, the
 * RFC 9309 rewrite with exact user-agent matching by default), the parser of Apache Nutch and
 * so of Common Crawl's CCBot. It is Java and cannot be run here, so this is built from its
 * javadoc and a reading of its source
 * (https://github.com/crawler-commons/crawler-commons/blob/master/src/main/java/crawlercommons/robots/SimpleRobotRulesParser.java,
 * SimpleRobotRules.java, filters/basic/BasicURLNormalizer.java; read 2026-11-24), no code copied,
 * and tested on the behaviours its documentation and source state
 * (test/unit/robots/profiles/crawler-commons.test.ts). No oracle: label it assumed wherever shown.
 *
 * Contract: `parseContent(url, bytes, "text/plain", [lower-cased product token])`, then
 * `isAllowed(url)`. What it does, as read:
 * - an empty body allows everything; a UTF-8 BOM is skipped, a UTF-16 BOM switches the decoding;
 *   otherwise UTF-8 (malformed bytes replaced);
 * - a body that looks like HTML (`<html>`, `<head>`, `<body>`) without any `user-agent:` allows
 *   everything; with one, tags are stripped from each line;
 * - lines end at CR, LF, NEL, U+2028, U+2029; `#` starts a comment; keys are matched as prefixes,
 *   case-insensitively, with a colon or blanks before the value, misspellings included
 *   (`useragent`, `disalow`, `dissallow`, `user agent`, ...);
 * - groups are chosen by the exact product token (or, for a value that is not a token, its
 *   leading letters: `CCBot/2.0` names `ccbot`); `*` applies only while no group names the crawler;
 *   all groups naming it are merged;
 * - rules are percent-normalised (unreserved escapes decoded, the rest upper-cased, unsafe bytes
 *   encoded); the longest matching rule wins, Allow on a tie; `*` and a final `$` are wildcards;
 *   a rule ending in `index.htm(l)` also matches its folder; `/robots.txt` is always allowed;
 * - a Crawl-delay over 300 seconds for the crawler disallows everything (DEFAULT_MAX_CRAWL_DELAY).
 */
import type { ProfileParsed } from './types.js';

/** SimpleRobotRulesParser.DEFAULT_MAX_CRAWL_DELAY, in milliseconds. */
export const CRAWLER_COMMONS_MAX_CRAWL_DELAY_MS = 300_000;

const DIRECTIVES: Record<string, 'user-agent' | 'disallow' | 'allow' | 'crawl-delay' | 'other'> = {
  'user-agent': 'user-agent',
  useragent: 'user-agent',
  'useg-agent': 'user-agent',
  'ser-agent': 'user-agent',
  'users-agent': 'user-agent',
  'user agent': 'user-agent',
  'user-agnet': 'user-agent',
  'user-agents': 'user-agent',
  disallow: 'disallow',
  desallow: 'disallow',
  dissallow: 'disallow',
  dissalow: 'disallow',
  disalow: 'disallow',
  dssalow: 'disallow',
  dsallow: 'disallow',
  diasllow: 'disallow',
  disallaw: 'disallow',
  diallow: 'disallow',
  disallows: 'disallow',
  disllow: 'disallow',
  allow: 'allow',
  'crawl-delay': 'crawl-delay',
  'crawl delay': 'crawl-delay',
  'clawl-delay': 'crawl-delay',
  'craw-delay': 'crawl-delay',
  'crawl-deley': 'crawl-delay',
  sitemap: 'other',
  sitemaps: 'other',
  host: 'other',
  'no-index': 'other',
  'request-rate': 'other',
  'visit-time': 'other',
  'robot-version': 'other',
  comment: 'other',
  http: 'other',
  https: 'other',
};
const PREFIXES = Object.keys(DIRECTIVES).sort((a, b) => a.length - b.length);

/** RFC 3986 unreserved: kept decoded. */
function isUnreserved(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

/** Always percent-encoded in a path: controls, space, " # < > [ ] ^ ` { | } DEL. */
function isEscaped(c: number): boolean {
  return c <= 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x5e || c === 0x60 || c === 0x7b || c === 0x7c || c === 0x7d || c === 0x7f;
}

const HEX = (b: number) => b.toString(16).toUpperCase().padStart(2, '0');
const isHex = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** BasicURLNormalizer.unescapePath then escapePath: the path as both rules and URLs are compared. */
export function normalisePath(path: string, escapeWildcards: boolean): string {
  const unescaped = path.replace(/%([0-9A-Fa-f]{2})/g, (m, hex: string) => {
    const c = parseInt(hex, 16);
    return isUnreserved(c) ? String.fromCharCode(c) : m.toUpperCase();
  });
  const bytes = new TextEncoder().encode(unescaped);
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) {
    const b = bytes[i]!;
    if (b >= 0x80 || isEscaped(b) || (escapeWildcards && (b === 0x2a || b === 0x24))) {
      out += `%${HEX(b)}`;
    } else if (b === 0x25) {
      if (i + 2 < bytes.length && isHex(bytes[i + 1]!) && isHex(bytes[i + 2]!)) {
        out += String.fromCharCode(b, bytes[i + 1]!, bytes[i + 2]!);
        i += 2;
      } else {
        out += '%25';
      }
    } else {
      out += String.fromCharCode(b);
    }
  }
  return out;
}

/**
 * Java's String.trim(): every char up to U+0020 at either end. A scan, not a regular expression:
 * it runs on every line of a file a crawler of this profile reads, and the expression was 8% of
 * a first night's CPU (npm run bench:night).
 */
function javaTrim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start += 1;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end -= 1;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

function decode(body: Uint8Array): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return new TextDecoder('utf-8', { ignoreBOM: true }).decode(body.subarray(3));
  if (body[0] === 0xff && body[1] === 0xfe) return new TextDecoder('utf-16le', { ignoreBOM: true }).decode(body.subarray(2));
  if (body[0] === 0xfe && body[1] === 0xff) return new TextDecoder('utf-16be', { ignoreBOM: true }).decode(body.subarray(2));
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(body);
}

/** The directive a (trimmed) line holds and its value: the shortest known key prefix followed by a colon or blanks. */
function tokenize(line: string): { directive: (typeof DIRECTIVES)[string]; value: string } | null {
  const lower = line.toLowerCase();
  for (const prefix of PREFIXES) {
    if (!lower.startsWith(prefix)) continue;
    const m = /^[ \t]*:[ \t]*(.*)$/s.exec(line.slice(prefix.length)) ?? /^[ \t]+(.*)$/s.exec(line.slice(prefix.length));
    if (m) return { directive: DIRECTIVES[prefix]!, value: javaTrim(m[1]!) };
  }
  return null;
}

interface Rule {
  prefix: string;
  allow: boolean;
}

const PRODUCT_TOKEN = /^[a-zA-Z_-]+$/;

export interface CrawlerCommonsRules {
  mode: 'allow-all' | 'allow-none' | 'some';
  rules: Rule[];
}

/** `parseContent` for one crawler (its product token, lower-cased as the API requires). */
export function parseCrawlerCommons(body: Uint8Array, productToken: string): CrawlerCommonsRules {
  if (body.length === 0) return { mode: 'allow-all', rules: [] };
  const text = decode(body);
  let html = false;
  if (/<(html|head|body)\s*>/i.test(text)) {
    if (!/user-agent:/i.test(text)) return { mode: 'allow-all', rules: [] };
    html = true;
  }
  const target = productToken.toLowerCase();
  let rules: Rule[] = [];
  let matchedRealName = false;
  let matchedWildcard = false;
  let addingRules = false;
  let addingCrawlDelay = false;
  let finishedAgentFields = false;
  let crawlDelaySetRealName = false;
  let crawlDelay: number | undefined;
  const setCrawlDelay = (delay: number) => {
    if (matchedRealName) {
      if (crawlDelaySetRealName && addingCrawlDelay) {
        if (crawlDelay! > delay) crawlDelay = delay;
      } else {
        crawlDelay = delay;
      }
      crawlDelaySetRealName = true;
    } else if (crawlDelay === undefined || crawlDelay > delay) {
      crawlDelay = delay;
    }
  };
  for (const raw of text.split(/[\n\r\u0085\u2028\u2029]+/)) {
    let line = html ? raw.replace(/<[^>]+>/g, '') : raw;
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    line = javaTrim(line);
    if (!line) continue;
    const token = tokenize(line);
    if (!token) continue;
    switch (token.directive) {
      case 'user-agent': {
        if (addingRules && finishedAgentFields) {
          addingRules = false;
          addingCrawlDelay = false;
        }
        finishedAgentFields = false;
        const name = javaTrim(token.value).toLowerCase();
        const leading = /^[a-zA-Z_-]+/.exec(name)?.[0];
        if (!name) break;
        if (name === '*' && !matchedRealName) {
          matchedWildcard = true;
          addingRules = true;
          addingCrawlDelay = true;
        } else if (name === target || (!PRODUCT_TOKEN.test(name) && leading === target)) {
          if (matchedWildcard) {
            // A group naming the crawler replaces what `*` gave it.
            rules = [];
            crawlDelay = undefined;
          }
          matchedRealName = true;
          addingRules = true;
          addingCrawlDelay = true;
          matchedWildcard = false;
        }
        break;
      }
      case 'disallow':
      case 'allow': {
        finishedAgentFields = true;
        if (!addingRules) break;
        const path = normalisePath(javaTrim(token.value), false);
        // An empty rule is ignored (RFC 9309 leaves it without effect).
        if (path) rules.push({ prefix: path, allow: token.directive === 'allow' });
        break;
      }
      case 'crawl-delay': {
        if (addingCrawlDelay && token.value) {
          const v = token.value;
          if (v.includes('.')) {
            if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/.test(v)) setCrawlDelay(Math.round(parseFloat(v) * 1000));
          } else if (/^[+-]?\d+$/.test(v) && Math.abs(Number(v)) <= 2 ** 31 - 1) {
            setCrawlDelay(Number(v) * 1000);
          }
        }
        addingCrawlDelay = false;
        break;
      }
      default:
        break;
    }
  }
  if (crawlDelay !== undefined && crawlDelay > CRAWLER_COMMONS_MAX_CRAWL_DELAY_MS) return { mode: 'allow-none', rules: [] };
  // Longest first, Allow before Disallow on equal length; duplicates dropped.
  const seen = new Set<string>();
  const sorted = [...rules]
    .sort((a, b) => b.prefix.length - a.prefix.length || Number(b.allow) - Number(a.allow))
    .filter((r) => {
      const key = `${r.allow ? 'a' : 'd'}${r.prefix}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return { mode: 'some', rules: sorted };
}

/** Length of the rule when it matches `text` (`*` any run, a final `$` the end), else -1. */
export function crawlerCommonsRuleMatches(text: string, pattern: string): number {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const pieces = body.split('*');
  // The first piece is a prefix; each later piece is found at its leftmost place after the last.
  if (!text.startsWith(pieces[0]!)) return -1;
  let at = pieces[0]!.length;
  for (let i = 1; i < pieces.length; i += 1) {
    const piece = pieces[i]!;
    if (piece === '') {
      if (i === pieces.length - 1) return pattern.length;
      continue;
    }
    const found = text.indexOf(piece, at);
    if (found < 0) return -1;
    at = found + piece.length;
  }
  return !anchored || at === text.length ? pattern.length : -1;
}

export function crawlerCommonsAllowed(parsed: CrawlerCommonsRules, url: string): boolean {
  if (parsed.mode === 'allow-none') return false;
  if (parsed.mode === 'allow-all') return true;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    // An invalid URL is checked as the root: "the fetch will fail" (SimpleRobotRules.getPath).
    target = new URL('http://invalid/');
  }
  const path = normalisePath((target.pathname || '/') + target.search, true);
  if (path === '/robots.txt') return true;
  let allowed = true;
  let longest = -Infinity;
  for (const rule of parsed.rules) {
    let length = crawlerCommonsRuleMatches(path, rule.prefix);
    if (length === -1) {
      const index = rule.prefix.indexOf('index.htm');
      if (!(rule.prefix.endsWith('index.htm') || rule.prefix.endsWith('index.html'))) continue;
      length = crawlerCommonsRuleMatches(path, `${rule.prefix.slice(0, index)}$`);
      if (length === -1) continue;
    }
    if (length > longest) {
      longest = length;
      allowed = rule.allow;
    } else if (length === longest) {
      allowed ||= rule.allow;
    }
  }
  return allowed;
}

export function parseCrawlerCommonsBody(body: Uint8Array): ProfileParsed {
  // The parser selects the groups of one crawler while it reads, so each token gets its own parse.
  const byToken = new Map<string, CrawlerCommonsRules>();
  return {
    check: (url, productToken) => {
      const key = productToken.toLowerCase();
      let parsed = byToken.get(key);
      if (!parsed) byToken.set(key, (parsed = parseCrawlerCommons(body, key)));
      return { allowed: crawlerCommonsAllowed(parsed, url) };
    },
  };
}
