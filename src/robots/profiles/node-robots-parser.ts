/**
 * Profile `node-robots-parser`: npm `robots-parser` 3.0.1 (https://github.com/samclarke/robots-parser,
 * Robots.js at v3.0.1), the parser most Node crawlers use. Reproduced from a reading of its source,
 * held to the package itself by test/integration/robots/profiles/node-robots-parser.oracle.int.test.ts.
 *
 * Contract: the fetched bytes decoded as fetch's `Response.text()` does (UTF-8, invalid bytes
 * replaced, a leading BOM dropped); the robots.txt URL is `/robots.txt` at the checked URL's
 * scheme, host and port; the verdict is `isAllowed(url, productToken)` and the line is
 * `getMatchingLineNumber`. The library answers `undefined` for a URL of another origin, which
 * cannot happen under this contract; a URL it cannot parse as absolute is an error here.
 *
 * What the library does:
 * - lines split at CR LF, CR or LF; `#` starts a comment; a line without `:` is skipped;
 * - consecutive user-agent lines form one group; agent names are lower-cased, cut at `/`, and
 *   compared whole with the token (lower-cased and cut the same way); rules of every group naming
 *   an agent are merged; an agent with a group (even one holding only Crawl-delay or an empty
 *   Disallow) never falls back to `*`;
 * - rules are percent-normalised (encodeURI, upper-case escapes); the longest pattern wins, Allow
 *   on a tie; `*` and a final `$` are wildcards; the URL's path and query are compared.
 */
import type { ProfileParsed, ProfileVerdict } from './types.js';
import { compileWildcard, matchesWildcard } from './wildcard-match.js';
import type { WildcardPattern } from './wildcard-match.js';

interface Rule {
  pattern: string;
  compiled: WildcardPattern;
  allow: boolean;
  line: number;
}

/** Base the library resolves relative URLs against (it never meets one under our contract). */
const RELATIVE_BASE = 'http://robots-relative.samclarke.com/';

function agentName(value: string): string {
  const lower = value.toLowerCase();
  const slash = lower.indexOf('/');
  return (slash > -1 ? lower.slice(0, slash) : lower).trim();
}

function upperEscapes(path: string): string {
  return path.replace(/%[0-9a-fA-F]{2}/g, (m) => m.toUpperCase());
}

function normalisePattern(pattern: string): string {
  try {
    // encodeURI escapes "%" too; the library undoes that, so existing escapes survive.
    return upperEscapes(encodeURI(pattern).replace(/%25/g, '%'));
  } catch {
    // A lone surrogate: encodeURI throws and the pattern stays as written.
    return pattern;
  }
}

/**
 * `*` matches any run, a final `$` anchors the end; any other character matches itself. The
 * library compiles the rule to a regular expression (`(?:.*)` for each star), whose answer
 * wildcardMatches gives without its backtracking (issue 26).
 */
export function robotsParserMatches(pattern: string, path: string): boolean {
  return matchesWildcard(compileRobotsParserPattern(pattern), path);
}

function compileRobotsParserPattern(pattern: string): WildcardPattern {
  const anchored = pattern.endsWith('$');
  return compileWildcard(anchored ? pattern.slice(0, -1) : pattern, anchored);
}

function parseUrl(url: string): URL | null {
  try {
    const parsed = new URL(url, RELATIVE_BASE);
    // The library sets the scheme's default port; for http and https that leaves it empty.
    if (!parsed.port) parsed.port = parsed.protocol === 'https:' ? '443' : '80';
    return parsed;
  } catch {
    return null;
  }
}

/** Splits a line at its first ":" into trimmed key and value; empty parts are null, as in the library. */
function splitLine(raw: string): [string | null, string | null] | null {
  const hash = raw.indexOf('#');
  const line = hash > -1 ? raw.slice(0, hash) : raw;
  const colon = line.indexOf(':');
  if (!line || colon < 0) return null;
  const key = line.slice(0, colon);
  const value = line.slice(colon + 1);
  return [key ? key.trim() : null, value ? value.trim() : null];
}

/**
 * The library's `_rules`: per agent, the rules of every group naming it, in file order. A group's
 * rules are one array shared by all the agents it names, so a group of 15,000 agents over 27,000
 * rules costs the sum, not the product (issue 26); the library copies each rule to each agent,
 * which changes no verdict.
 */
export function parseRobotsParser(text: string): Map<string, Rule[][]> {
  const rules = new Map<string, Rule[][]>();
  const agents: string[] = [];
  /** The rules of the group being read, registered with its agents at its first rule line. */
  let groupRules: Rule[] | null = null;
  const openGroup = (): Rule[] => {
    if (groupRules) return groupRules;
    const shared: Rule[] = [];
    for (const agent of agents) {
      let blocks = rules.get(agent);
      if (!blocks) rules.set(agent, (blocks = []));
      // An agent named twice in one group gets its rules once (twice would decide the same).
      if (blocks.at(-1) !== shared) blocks.push(shared);
    }
    return (groupRules = shared);
  };
  let afterOtherLine = true;
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const parts = splitLine(raw);
    if (!parts || !parts[0]) return;
    const [keyRaw, value] = parts;
    const key = keyRaw.toLowerCase();
    if (key === 'user-agent') {
      if (afterOtherLine) {
        agents.length = 0;
        groupRules = null;
      }
      if (value) agents.push(agentName(value));
    } else if (key === 'disallow' || key === 'allow') {
      // An empty value adds no rule but, as Crawl-delay does, gives the agents a group of their own.
      const shared = openGroup();
      if (value) {
        const pattern = normalisePattern(value);
        shared.push({ pattern, compiled: compileRobotsParserPattern(pattern), allow: key === 'allow', line: i + 1 });
      }
    } else if (key === 'crawl-delay') {
      // Creates the agent's group even without rules: the agent then no longer falls back to *.
      openGroup();
    }
    afterOtherLine = key !== 'user-agent';
  });
  return rules;
}

function findRule(path: string, blocks: readonly (readonly Rule[])[]): Rule | null {
  let found: Rule | null = null;
  for (const rules of blocks) {
    for (const rule of rules) {
      if (!matchesWildcard(rule.compiled, path)) continue;
      if (!found || rule.pattern.length > found.pattern.length) found = rule;
      else if (rule.pattern.length === found.pattern.length && rule.allow && !found.allow) found = rule;
    }
  }
  return found;
}

export class RobotsParserUrlError extends Error {
  constructor(url: string) {
    super(`robots-parser gives no verdict for ${JSON.stringify(url.slice(0, 200))}: not an absolute URL it can parse`);
    this.name = 'RobotsParserUrlError';
  }
}

/** The robots.txt URL of the contract: /robots.txt at the checked URL's scheme, host and port. */
export function robotsTxtUrlFor(url: string): string {
  let target: URL;
  try {
    target = new URL('/robots.txt', new URL(url));
  } catch {
    throw new RobotsParserUrlError(url);
  }
  return target.href;
}

export function checkRobotsParser(rules: Map<string, Rule[][]>, url: string, productToken: string): ProfileVerdict {
  const robotsUrl = parseUrl(robotsTxtUrlFor(url));
  const target = parseUrl(url);
  if (!robotsUrl || !target || target.protocol !== robotsUrl.protocol || target.hostname !== robotsUrl.hostname || target.port !== robotsUrl.port) {
    throw new RobotsParserUrlError(url);
  }
  const agent = agentName(productToken || '*');
  const group = rules.get(agent) ?? rules.get('*') ?? [];
  const rule = findRule(upperEscapes(target.pathname + target.search), group);
  return rule ? { allowed: rule.allow, line: rule.line } : { allowed: true };
}

/** fetch's Response.text(): UTF-8, replacement characters, leading BOM removed. */
export function decodeLikeFetch(body: Uint8Array): string {
  return new TextDecoder('utf-8').decode(body);
}

export function parseRobotsParserBody(body: Uint8Array): ProfileParsed {
  const rules = parseRobotsParser(decodeLikeFetch(body));
  return { check: (url, productToken) => checkRobotsParser(rules, url, productToken) };
}
