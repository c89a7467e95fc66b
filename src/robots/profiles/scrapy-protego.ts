/**
 * Profile `scrapy-protego`: Protego 0.2.1 (Debian 12's python3-protego;
 * https://github.com/scrapy/protego/blob/0.2.1/src/protego.py) called as Scrapy 2.8's
 * ProtegoRobotParser calls it (https://github.com/scrapy/scrapy/blob/2.8.0/scrapy/robotstxt.py).
 * Reproduced from a reading of both (no code copied), held to the real library by
 * test/integration/robots/profiles/scrapy-protego.oracle.int.test.ts.
 *
 * Contract: the fetched bytes decoded as strict UTF-8 (a BOM stays a character); a body that is
 * not valid UTF-8 is read as empty (Scrapy's decode_robotstxt), so everything is allowed;
 * `Protego.parse(text)`, then `can_fetch(url, productToken)`. Protego keeps no line numbers.
 *
 * What the library does:
 * - lines by `str.splitlines()`; `#` starts a comment; `field: value`, or without a colon the
 *   first words that spell a known field (lower case only: "disallow /x");
 *   misspellings of Disallow and "useragent", "user agent", "crawl delay" are accepted;
 * - a line with an empty value only marks the end of a run of user-agent lines;
 * - user-agent lines after any other line start a new group; groups naming the same agent
 *   share one rule set; an agent with `*` inside also names the agent without it;
 * - the crawler gets the rule set whose agent is the longest substring of its token
 *   (lower-cased), `*` scoring 1, the first such in file order on a tie;
 * - rules are percent-normalised; the longest pattern wins, Allow first on a tie, then file
 *   order; `*` and a final `$` are wildcards; a rule ending `/index.html` also allows its folder.
 */
import { decodeUtf8Strict, pyLower, pyQuote, pySplitlines, pyStrip, pyUrlparse, pyUrlunparse } from './python-str.js';
import type { ProfileParsed } from './types.js';
import { compileWildcard, matchesWildcard } from './wildcard-match.js';
import type { WildcardPattern } from './wildcard-match.js';

const DISALLOW = new Set(['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw']);
const ALLOW = new Set(['allow']);
const USER_AGENT = new Set(['user-agent', 'useragent', 'user agent']);
const SITEMAP = new Set(['sitemap', 'sitemaps', 'site-map']);
const CRAWL_DELAY = new Set(['crawl-delay', 'crawl delay']);
const REQUEST_RATE = new Set(['request-rate', 'request rate']);
const HOST = new Set(['host']);
const HEX_DIGITS = /^[0-9A-Fa-f]{2}$/;

function isDirectiveField(field: string): boolean {
  return DISALLOW.has(field) || ALLOW.has(field) || USER_AGENT.has(field) || SITEMAP.has(field) || CRAWL_DELAY.has(field) || REQUEST_RATE.has(field) || HOST.has(field);
}

/** Length in code points, as Python's len(). */
function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/**
 * Protego's own unquote: %XX escapes decoded to bytes except those in `ignore` (kept, hex
 * upper-cased); the whole string then decoded as UTF-8 with replacement.
 */
function protegoUnquote(url: string, ignore: string): string {
  if (!url.includes('%')) return url;
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
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

/** A rule's pattern as Protego matches it (`_URLPattern`), its answer without its regex's backtracking. */
class UrlPattern {
  readonly priority: number;
  /** Compiled when first matched: a check reads the rules of one rule set, often only the first few. */
  private compiled: WildcardPattern | null = null;

  constructor(private readonly pattern: string) {
    this.priority = pyLen(pattern);
  }

  private compile(): WildcardPattern {
    // Protego reads a final `$` as the end only; a `$` elsewhere is a character like any other.
    const anchored = this.pattern.endsWith('$');
    return compileWildcard(anchored ? this.pattern.slice(0, -1) : this.pattern, anchored);
  }

  /**
   * Protego: without `*`, a prefix (or, with a final `$`, the whole path); with `*`, the regex
   * `^piece.*?piece...$?` (`.` stops at "\n" only, and a checked path holds none: it is quoted).
   * matchesWildcard gives the same answer in linear time (issue 26).
   */
  match(url: string): boolean {
    this.compiled ??= this.compile();
    return matchesWildcard(this.compiled, url);
  }
}

interface Rule {
  allow: boolean;
  pattern: UrlPattern;
}

/** The rules one Allow or Disallow line yields, in Protego's order of `_add_rule` calls. */
function rulesOfLine(pattern: string, allow: boolean, into: Rule[] = []): Rule[] {
  // A "$" anywhere also yields the rule with it taken literally (%24).
  if (pattern.includes('$')) rulesOfLine(pattern.replaceAll('$', '%24'), allow, into);
  const quoted = quotePattern(pattern);
  if (!quoted) return into;
  into.push({ allow, pattern: new UrlPattern(quoted) });
  // Protego's own rule: allowing /dir/index.html allows /dir/ itself.
  if (allow && quoted.endsWith('/index.html')) rulesOfLine(`${quoted.slice(0, -10)}$`, true, into);
  return into;
}

/** Longest first, Allow before Disallow on equal length, file order otherwise (a stable sort). */
function byPriority(rules: readonly Rule[]): Rule[] {
  return [...rules].sort((a, b) => b.pattern.priority - a.pattern.priority || Number(b.allow) - Number(a.allow));
}

/**
 * Protego's `_RuleSet`. Its rules are the groups naming its agent, each group's rules one array
 * shared by every rule set the group names (Protego copies a group's rules into each; a group of
 * 15,000 agents over 27,000 rules would be their product, issue 26). They are sorted when a check
 * first needs them: the answer of Protego's sort at the end of parse, for the one set a check uses.
 */
class RuleSet {
  private readonly groups: Rule[][] = [];
  private sorted: Rule[] | undefined;
  constructor(readonly userAgent: string) {}

  appliesTo(robotname: string): number {
    const name = pyLower(pyStrip(robotname));
    if (this.userAgent === '*') return 1;
    return name.includes(this.userAgent) ? pyLen(this.userAgent) : 0;
  }

  addGroup(rules: Rule[]): void {
    if (this.groups.at(-1) !== rules) this.groups.push(rules);
  }

  private rules(): Rule[] {
    if (!this.sorted) {
      const only = this.groups.length === 1 ? this.groups[0]! : undefined;
      this.sorted = only ? sortedOnce(only) : byPriority(this.groups.flat());
    }
    return this.sorted;
  }

  canFetch(url: string): boolean {
    const path = quotePath(url);
    for (const rule of this.rules()) {
      if (rule.pattern.match(path)) return rule.allow;
    }
    return true;
  }
}

/** A group's rules sorted once for all the rule sets that hold only that group. */
const SORTED_GROUPS = new WeakMap<Rule[], Rule[]>();
function sortedOnce(rules: Rule[]): Rule[] {
  let sorted = SORTED_GROUPS.get(rules);
  if (!sorted) SORTED_GROUPS.set(rules, (sorted = byPriority(rules)));
  return sorted;
}

/**
 * Characters urlparse leaves in the path and unquote and quote (safe `/*%`) leave as they are: a
 * pattern of only these (not starting `//`, a netloc) comes out of quotePattern unchanged, as most
 * rules do; the general path reads it through four Python functions (issue 26: a 500 KiB file).
 */
const PROTEGO_UNCHANGED = /^[A-Za-z0-9_.~/*-]*$/;

function quotePattern(input: string): string {
  let pattern = input;
  let last = '';
  const end = pattern[pattern.length - 1];
  if (end === '?' || end === ';' || end === '$') {
    last = end;
    pattern = pattern.slice(0, -1);
  }
  if (PROTEGO_UNCHANGED.test(pattern) && !pattern.startsWith('//')) return pattern + last;
  const parts = pyUrlparse(pattern);
  const path = pyQuote(protegoUnquote(parts.path, '/*$%'), '/*%');
  return pyUrlunparse({ scheme: '', netloc: '', path: path + last, params: parts.params, query: parts.query, fragment: parts.fragment });
}

function quotePath(url: string): string {
  const parts = pyUrlparse(url);
  const path = pyQuote(protegoUnquote(parts.path, '/%'), '/%');
  return pyUrlunparse({ scheme: '', netloc: '', path, params: parts.params, query: parts.query, fragment: parts.fragment }) || '/';
}

function enforcePath(pattern: string): string {
  return pattern.startsWith('/') ? pattern : `/${pattern}`;
}

/** `Protego.parse(text)`: the rule sets by agent, in the order first seen. */
export function parseProtego(text: string): Map<string, RuleSet> {
  const agents = new Map<string, RuleSet>();
  let current: RuleSet[] = [];
  /** `current` as a set: a group naming 15,000 agents twice stays linear. */
  const inCurrent = new Set<RuleSet>();
  /** The rules of the current group, one array its rule sets share (null until its first rule). */
  let groupRules: Rule[] | null = null;
  const addRules = (value: string, allow: boolean): void => {
    if (!groupRules) {
      groupRules = [];
      for (const set of current) set.addGroup(groupRules);
    }
    rulesOfLine(enforcePath(value), allow, groupRules);
  };
  let previousField: string | undefined;
  for (const raw of pySplitlines(text)) {
    let line = raw;
    const hash = line.indexOf('#');
    if (hash !== -1) line = line.slice(0, hash);
    line = pyStrip(line);
    if (!line) continue;
    let field: string;
    let value: string;
    const colon = line.indexOf(':');
    if (colon !== -1) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
    } else {
      // No colon: the leading words may spell a field, compared as written (lower case only).
      const words = line.split(' ');
      if (words.length < 2) continue;
      let candidate = words[0]!;
      let found: [string, string] | undefined;
      for (let i = 1; i < words.length; i += 1) {
        if (isDirectiveField(candidate)) {
          found = [candidate, words.slice(i).join(' ')];
          break;
        }
        candidate += ` ${words[i]}`;
      }
      if (!found) continue;
      [field, value] = found;
    }
    field = pyLower(pyStrip(field));
    value = pyStrip(value);
    if (!value) {
      previousField = field;
      continue;
    }
    if (current.length === 0 && !USER_AGENT.has(field) && !SITEMAP.has(field)) continue;
    if (USER_AGENT.has(field)) {
      if (previousField && !USER_AGENT.has(previousField)) {
        current = [];
        inCurrent.clear();
      }
      // Rule sets named after a rule line start a group of their own (Protego appends to theirs).
      groupRules = null;
      const agent = pyLower(pyStrip(value));
      const withoutAsterisk = agent !== '*' && agent.includes('*') ? agent.replaceAll('*', '') : undefined;
      for (const name of [agent, withoutAsterisk]) {
        if (!name) continue;
        const existing = agents.get(name);
        if (existing) {
          if (!inCurrent.has(existing)) {
            current.push(existing);
            inCurrent.add(existing);
          }
        } else {
          const created = new RuleSet(name);
          agents.set(name, created);
          current.push(created);
          inCurrent.add(created);
        }
      }
    } else if (ALLOW.has(field)) {
      addRules(value, true);
    } else if (DISALLOW.has(field)) {
      addRules(value, false);
    }
    // Sitemap, Crawl-delay, Request-rate and Host are read for their own getters; no verdict changes.
    previousField = field;
  }
  return agents;
}

/** `can_fetch(url, user_agent)`: the best-scoring rule set, the first on a tie; none: allowed. */
export function canFetchProtego(agents: Map<string, RuleSet>, url: string, productToken: string): boolean {
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

export function parseScrapyProtegoBody(body: Uint8Array): ProfileParsed {
  // Scrapy 2.8 decode_robotstxt: not UTF-8 -> read as an empty file (everything allowed).
  const agents = parseProtego(decodeUtf8Strict(body) ?? '');
  return { check: (url, productToken) => ({ allowed: canFetchProtego(agents, url, productToken) }) };
}


