/**
 * Profile `scrapy-protego-0.7`: Protego 0.7.0 (2026-09-21; Debian sid's python3-protego
 * 0.7.0+dfsg-1; https://github.com/scrapy/protego/tree/0.7.0/src/protego) called as Scrapy 2.14's
 * ProtegoRobotParser calls it (https://docs.scrapy.org/en/2.14/_modules/scrapy/robotstxt.html).
 * Reproduced from a reading of both (no code copied), held to the real library by
 * test/integration/robots/profiles/scrapy-protego-0.7.oracle.int.test.ts. `scrapy-protego` stays
 * Protego 0.2.1 with Scrapy 2.8.
 *
 * Contract: the fetched bytes decoded as Scrapy 2.14's decode_robotstxt does,
 * `decode("utf-8-sig", errors="ignore")` (a leading BOM dropped, invalid bytes dropped: never the
 * whole body, unlike Scrapy 2.8); `Protego.parse(text)`, then `can_fetch(url, productToken)`.
 * Protego keeps no line numbers. Python's urllib.parse is 3.13.18's (sid's Python).
 *
 * What the library does:
 * - lines by `str.splitlines()`; `#` starts a comment; `field: value` where the field is a known
 *   directive or the colon ends the line or is followed by whitespace; otherwise the first one or
 *   two whitespace-separated words, lower-cased, when they spell a known directive ("Disallow /x",
 *   "User agent foo"); misspellings of Disallow and "useragent", "user agent" are accepted;
 * - a user-agent line (even without a value) after any line but a user-agent, Sitemap or Host line
 *   starts a new group; lines with no value are otherwise skipped; groups naming the same agent
 *   share one rule set; an agent with `*` inside also names the agent without it;
 * - the crawler gets the rule set whose agent occurs in its token (lower-cased) at a token boundary
 *   (at the start, or after a character that is not a letter, digit, `-` or `_`), the longest, the
 *   first such in file order on a tie; `*` scores 1; none: allowed;
 * - `/robots.txt` is always allowed (the URL's path, by urlparse, is exactly that);
 * - rules are percent-normalised (escapes decoded but for `/`, `%` and in rules `*`; `=` stays
 *   literal), the query too, the fragment dropped; the longest pattern wins, Allow first on a tie,
 *   then file order; `*` and a final `$` are wildcards, a `$` elsewhere also yields the rule with
 *   it taken literally; a rule ending `/index.html` also allows its folder (`/dir/$`).
 */
import { PythonLibraryError, decodeUtf8SigIgnore, pyLower, pyQuote, pySplitlines, pyStrip, pyUrlparse, pyUrlsplit } from './python-str.js';
import type { ProfileParsed } from './types.js';
import { compileWildcard, matchesWildcard } from './wildcard-match.js';
import type { WildcardPattern } from './wildcard-match.js';

const DISALLOW = new Set(['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw']);
const ALLOW = new Set(['allow']);
const USER_AGENT = new Set(['user-agent', 'useragent', 'user agent']);
const SITEMAP = new Set(['sitemap', 'sitemaps', 'site-map']);
const CRAWL_DELAY = new Set(['crawl-delay', 'crawl delay']);
const REQUEST_RATE = new Set(['request-rate', 'request rate']);
const VISIT_TIME = new Set(['visit-time', 'visit time']);
const HOST = new Set(['host']);
const HEX_DIGITS = /^[0-9A-Fa-f]{2}$/;

function isDirective(field: string): boolean {
  return [DISALLOW, ALLOW, USER_AGENT, SITEMAP, CRAWL_DELAY, REQUEST_RATE, VISIT_TIME, HOST].some((set) => set.has(field));
}

function isSiteWide(field: string): boolean {
  return SITEMAP.has(field) || HOST.has(field);
}

/** Length in code points, as Python's len(). */
function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/** `str.split()` with no separator: runs of Unicode whitespace split, none at either end. */
function pySplitWords(s: string): string[] {
  const words: string[] = [];
  let word = '';
  for (const ch of s) {
    if (pyStrip(ch) === '') {
      if (word) words.push(word);
      word = '';
    } else {
      word += ch;
    }
  }
  if (word) words.push(word);
  return words;
}

/** `_extract_directive(line)`: [field, value], or undefined where the line is no directive. */
function extractDirective(line: string): [string, string] | undefined {
  let field: string | undefined;
  let value = '';
  const colon = line.indexOf(':');
  if (colon !== -1) {
    const raw = line.slice(colon + 1);
    field = pyLower(pyStrip(line.slice(0, colon)));
    value = pyStrip(raw);
    if (isDirective(field)) return [field, value];
    // An unknown field whose colon reads as a separator stays an (unknown) directive.
    if (raw === '' || pyStrip(raw.slice(0, raw.codePointAt(0)! > 0xffff ? 2 : 1)) === '') return [field, value];
  }
  const words = pySplitWords(line);
  for (let count = 1; count <= 2; count += 1) {
    const candidate = pyLower(words.slice(0, count).join(' '));
    if (isDirective(candidate)) return [candidate, words.slice(count).join(' ')];
  }
  return field === undefined ? undefined : [field, value];
}

/**
 * Protego's `_unquote(url, ignore)`: %XX escapes decoded to bytes but those of the characters in
 * `ignore` (kept, in upper case); the whole then decoded as UTF-8 with replacement. Python encodes
 * the text between escapes strictly: a lone surrogate raises.
 */
function protegoUnquote(url: string, ignore: string): string {
  if (!url.includes('%')) return url;
  if (/[\ud800-\udfff]/.test(url) && !/^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/.test(url)) {
    throw new PythonLibraryError("'utf-8' codec can't encode character: surrogates not allowed");
  }
  const ignored = new Set([...ignore].map((c) => c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')));
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const parts = url.split('%');
  chunks.push(enc.encode(parts[0]));
  for (const part of parts.slice(1)) {
    let rest = part;
    if (part.length >= 2 && HEX_DIGITS.test(part.slice(0, 2))) {
      const hex = part.slice(0, 2).toUpperCase();
      const leftover = part.slice(2);
      if (!ignored.has(hex)) {
        chunks.push(Uint8Array.of(parseInt(hex, 16)), enc.encode(leftover));
        continue;
      }
      rest = hex + leftover;
    }
    chunks.push(Uint8Array.of(0x25), enc.encode(rest));
  }
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

/** A URL of scheme, authority and a path Protego needs not quote: the path is taken as it is. */
const QUOTED_URL = /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)?(\/(?!\/)[A-Za-z0-9_.~/=-]*)$/;
/** A rule value of characters that quoting leaves alone, a final `$` allowed. */
const QUOTED_PATTERN = /^[A-Za-z0-9_.~/=*-]+\$?$/;

/** `_quote_path(url)`: the path and query, normalised; the fragment dropped. Throws where urlsplit raises. */
function quotePath(url: string): string {
  const fast = QUOTED_URL.exec(url);
  if (fast) return fast[1]!;
  const hash = url.indexOf('#');
  const noFragment = hash === -1 ? url : url.slice(0, hash);
  const parts = pyUrlsplit(noFragment, true);
  // A "?" with nothing after it still counts.
  const path = pyQuote(protegoUnquote(noFragment.includes('?') ? `${parts.path}?${parts.query}` : parts.path, '/%'), '/%=');
  return path.startsWith('/') ? path : `/${path}`;
}

/** `_quote_pattern(pattern)`. */
function quotePattern(input: string): string {
  if (QUOTED_PATTERN.test(input)) return input;
  // A rule written as an absolute URL matches a path with that URL in it.
  let pattern = /^https?:\/\//.test(input) ? `/${input}` : input;
  let anchor = '';
  if (pattern.endsWith('$')) {
    anchor = '$';
    pattern = pattern.slice(0, -1);
  }
  return pyQuote(protegoUnquote(pattern, '/%*'), '/%*=') + anchor;
}

/**
 * `_URLPattern`: without `*`, a prefix (or with a final `$` the whole path); with `*`, the pieces
 * between stars at their leftmost fit, the last one at the end under `$`. Protego 0.6.2 and later
 * match this way themselves (no regular expression); matchesWildcard is the same, linear in time.
 */
class UrlPattern {
  readonly priority: number;
  private readonly compiled: WildcardPattern;

  constructor(readonly pattern: string) {
    this.priority = pyLen(pattern);
    const anchored = pattern.endsWith('$');
    this.compiled = compileWildcard(anchored ? pattern.slice(0, -1) : pattern, anchored);
  }

  match(path: string): boolean {
    return matchesWildcard(this.compiled, path);
  }
}

interface Rule {
  allow: boolean;
  pattern: UrlPattern;
}

/** The rules one Allow or Disallow value yields, in the order Protego adds them. */
function rulesOfValue(value: string, allow: boolean, patterns: Map<string, UrlPattern | null>, into: Rule[]): void {
  // A "$" anywhere first yields the rule with every "$" taken literally (%24).
  if (value.includes('$')) rulesOfValue(value.replaceAll('$', '%24'), allow, patterns, into);
  let pattern = patterns.get(value);
  if (pattern === undefined) {
    const quoted = quotePattern(value);
    pattern = quoted ? new UrlPattern(quoted) : null;
    patterns.set(value, pattern);
  }
  if (!pattern) return;
  into.push({ allow, pattern });
  // Allowing /dir/index.html allows /dir/ itself (that path exactly).
  if (allow && pattern.pattern.endsWith('/index.html')) into.push({ allow: true, pattern: new UrlPattern(`${pattern.pattern.slice(0, -'index.html'.length)}$`) });
}

/** Longest first, Allow before Disallow on equal length, file order otherwise (a stable sort). */
function byPriority(rules: readonly Rule[]): Rule[] {
  return [...rules].sort((a, b) => b.pattern.priority - a.pattern.priority || Number(b.allow) - Number(a.allow));
}

/** The previous code point of `s` before UTF-16 index `at`. */
function codePointBefore(s: string, at: number): string {
  const low = s.charCodeAt(at - 1);
  if (at >= 2 && low >= 0xdc00 && low <= 0xdfff) {
    const high = s.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return s.slice(at - 2, at);
  }
  return s[at - 1]!;
}

/**
 * Protego's `_RuleSet`. Protego appends each rule to every rule set of the current group; here a
 * group's rules are one array its rule sets share (a group of 15,000 agents over 27,000 rules would
 * otherwise be their product, issue 26), sorted when a check first needs them.
 */
class RuleSet {
  private readonly groups: Rule[][] = [];
  private sorted: Rule[] | undefined;
  constructor(readonly userAgent: string) {}

  appliesTo(robotname: string): number {
    if (this.userAgent === '*') return 1;
    const name = pyLower(pyStrip(robotname));
    for (let at = name.indexOf(this.userAgent); at !== -1; at = name.indexOf(this.userAgent, at + 1)) {
      if (at === 0 || !/^[\p{L}\p{N}_-]$/u.test(codePointBefore(name, at))) return pyLen(this.userAgent);
    }
    return 0;
  }

  addGroup(rules: Rule[]): void {
    if (this.groups.at(-1) !== rules) this.groups.push(rules);
  }

  canFetch(url: string): boolean {
    this.sorted ??= this.groups.length === 1 ? sortedOnce(this.groups[0]!) : byPriority(this.groups.flat());
    const path = quotePath(url);
    for (const rule of this.sorted) {
      if (rule.pattern.match(path)) return rule.allow;
    }
    return true;
  }
}

const SORTED_GROUPS = new WeakMap<Rule[], Rule[]>();
function sortedOnce(rules: Rule[]): Rule[] {
  let sorted = SORTED_GROUPS.get(rules);
  if (!sorted) SORTED_GROUPS.set(rules, (sorted = byPriority(rules)));
  return sorted;
}

/** `Protego.parse(text)`: the rule sets by agent, in the order first seen. */
export function parseProtego07(text: string): Map<string, RuleSet> {
  const agents = new Map<string, RuleSet>();
  const patterns = new Map<string, UrlPattern | null>();
  let current: RuleSet[] = [];
  const inCurrent = new Set<RuleSet>();
  /** The current group's rules, one array its rule sets share (null until its first rule). */
  let groupRules: Rule[] | null = null;
  const addRules = (value: string, allow: boolean): void => {
    if (!groupRules) {
      groupRules = [];
      for (const set of current) set.addGroup(groupRules);
    }
    rulesOfValue(value, allow, patterns, groupRules);
  };
  let previousField: string | undefined;
  for (const raw of pySplitlines(text)) {
    const hash = raw.indexOf('#');
    const line = pyStrip(hash === -1 ? raw : raw.slice(0, hash));
    if (!line) continue;
    const directive = extractDirective(line);
    if (!directive) continue;
    const [field, value] = directive;
    if (USER_AGENT.has(field) && previousField !== undefined && !USER_AGENT.has(previousField)) {
      current = [];
      inCurrent.clear();
    }
    if (!isSiteWide(field)) previousField = field;
    if (!value) continue;
    if (current.length === 0 && !USER_AGENT.has(field) && !isSiteWide(field)) continue;
    if (USER_AGENT.has(field)) {
      // A user-agent line comes before the group's rules: the rules that follow are a new array.
      groupRules = null;
      const agent = pyLower(pyStrip(value));
      const withoutAsterisk = agent !== '*' && agent.includes('*') ? agent.replaceAll('*', '') : undefined;
      for (const name of [agent, withoutAsterisk]) {
        if (!name) continue;
        let set = agents.get(name);
        if (!set) agents.set(name, (set = new RuleSet(name)));
        if (!inCurrent.has(set)) {
          current.push(set);
          inCurrent.add(set);
        }
      }
    } else if (ALLOW.has(field)) {
      addRules(value, true);
    } else if (DISALLOW.has(field)) {
      addRules(value, false);
    }
    // Sitemap, Host, Crawl-delay, Request-rate and Visit-time are read for their own getters.
  }
  return agents;
}

/** `can_fetch(url, user_agent)`. Throws where urlsplit raises (ValueError). */
export function canFetchProtego07(agents: Map<string, RuleSet>, url: string, productToken: string): boolean {
  if (url.includes('/robots.txt') && pyUrlparse(url, true).path === '/robots.txt') return true;
  let best: RuleSet | undefined;
  let bestScore = 0;
  for (const set of agents.values()) {
    const score = set.appliesTo(productToken);
    if (score > bestScore) {
      best = set;
      bestScore = score;
    }
  }
  return best ? best.canFetch(url) : true;
}

export function parseScrapyProtego07Body(body: Uint8Array): ProfileParsed {
  const agents = parseProtego07(decodeUtf8SigIgnore(body));
  return { check: (url, productToken) => ({ allowed: canFetchProtego07(agents, url, productToken) }) };
}
