/**
 * Profile `python-urllib-rfc9309`: CPython's `urllib.robotparser` as rewritten for RFC 9309
 * (gh-138907), as released in CPython 3.13.18 and shipped by Debian sid's libpython3.13-minimal
 * 3.13.18-1. Held to that file by the oracle test, which runs it with the urllib/parse.py of the
 * same package (test/oracle/debian-oracles.sh, test/fixtures/parser-oracle/PROVENANCE.md).
 *
 * Contract: as `python-urllib` (bytes decoded as UTF-8 with U+FFFD, `str.splitlines()`,
 * `parse(lines)`, `can_fetch(productToken, url)`). What the module does, reproduced here:
 * - groups: blank lines are ignored; a user-agent line after a rule starts a new group; rules
 *   before any user-agent line are dropped; groups naming the same agent (case-insensitively) merge;
 * - the group: the one whose agent equals the product token (case-insensitively), else the first
 *   (in order of first mention) with an agent that is a substring of the token's part before `/`,
 *   else `*`; none: allowed;
 * - rules: the longest match wins, Allow wins a tie; `*` and a final `$` are wildcards; a `$`
 *   elsewhere drops the rule; an empty Disallow allows; a wildcard rule's match length is how far
 *   its match reaches in the path, not the rule's length;
 * - rule values and the path are normalised: percent escapes decoded and everything outside
 *   `A-Za-z0-9_.-~/` re-escaped (bytes that are not UTF-8 kept as escapes); in the query `=` and
 *   `&` stay literal; the URL's fragment stays part of what is matched (as `%23...`); an empty
 *   query or fragment is dropped (the public `urlsplit` / `urlunsplit` pair);
 * - `/robots.txt` is always allowed; a URL `urlsplit` refuses (bad IPv6 brackets) raises.
 * The library keeps no line numbers, so the verdict carries none.
 */
import { PythonLibraryError, decodeUtf8Replace, pyLower, pySplitlines, pyStrip, pyUrlsplit } from './python-str.js';
import type { ProfileParsed } from './types.js';

interface Rule {
  /** The normalised path, `$` removed. */
  path: string;
  /** The path split at `*`, where it has one. */
  pieces?: string[];
  fullmatch: boolean;
  allowance: boolean;
}

interface Group {
  useragents: string[];
  rules: Rule[];
}

const QUOTE_SAFE = /^[A-Za-z0-9_.\-~/]*$/;

/**
 * `quote(unquote(s, errors='surrogateescape'), errors='surrogateescape')`: the round trip keeps
 * every byte, so it is worked on bytes: escapes decoded, then every byte outside the safe set
 * escaped in upper case. A lone surrogate outside U+DC80-U+DCFF cannot be encoded: Python raises.
 */
function normalize(s: string): string {
  if (QUOTE_SAFE.test(s)) return s;
  const bytes: number[] = [];
  const utf8 = new TextEncoder();
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 0x25 && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      bytes.push(...utf8.encode(s.slice(i, i + 2)));
      i += 1;
    } else if (c >= 0xdc80 && c <= 0xdcff) {
      bytes.push(c - 0xdc00);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      throw new PythonLibraryError("'utf-8' codec can't encode character: surrogates not allowed");
    } else {
      bytes.push(...utf8.encode(s[i]!));
    }
  }
  let out = '';
  for (const byte of bytes) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && QUOTE_SAFE.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The URL side: the path whole, the query between its `=` and `&`. */
function normalizeUri(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return normalize(url);
  return `${normalize(url.slice(0, q))}?${url.slice(q + 1).replace(/[^=&]+/g, normalize)}`;
}

/** The rule side: as the URL, with `*` and `$` kept as they are. */
function normalizePattern(value: string): string {
  const q = value.indexOf('?');
  const path = (q < 0 ? value : value.slice(0, q)).replace(/[^*$]+/g, normalize);
  return q < 0 ? path : `${path}?${value.slice(q + 1).replace(/[^=&*$]+/g, normalize)}`;
}

/** A rule line, or undefined where the library drops it (a `$` before the end, an unencodable value). */
function ruleLine(value: string, allow: boolean): Rule | undefined {
  const allowance = value === '' && !allow ? true : allow;
  let path: string;
  try {
    path = normalizePattern(value.replace(/\*{2,}/g, '*').replace(/\$[$*]+/g, '$'));
  } catch (err) {
    if (err instanceof PythonLibraryError) return undefined;
    throw err;
  }
  const fullmatch = path.endsWith('$');
  path = path.replace(/\$+$/, '');
  if (path.includes('$')) return undefined;
  return path.includes('*') ? { path, pieces: path.split('*'), fullmatch, allowance } : { path, fullmatch, allowance };
}

/**
 * How far the rule's match reaches, plus one; 0 where it does not match. A wildcard rule matches
 * from the start; its middle pieces are found leftmost and never revisited (atomic groups), the
 * last piece as far right as it occurs (a greedy `.*`), or at the very end under `$`.
 */
function matchLength(rule: Rule, path: string): number {
  const { pieces } = rule;
  if (!pieces) {
    if (rule.fullmatch) return path === rule.path ? rule.path.length + 1 : 0;
    return path.startsWith(rule.path) ? rule.path.length + 1 : 0;
  }
  const first = pieces[0]!;
  if (!path.startsWith(first)) return 0;
  let pos = first.length;
  for (let i = 1; i < pieces.length - 1; i += 1) {
    const at = path.indexOf(pieces[i]!, pos);
    if (at < 0) return 0;
    pos = at + pieces[i]!.length;
  }
  const last = pieces[pieces.length - 1]!;
  if (rule.fullmatch) return path.length - last.length >= pos && path.endsWith(last) ? path.length + 1 : 0;
  const at = path.lastIndexOf(last);
  return at >= pos ? at + last.length + 1 : 0;
}

function allowance(group: Group, path: string): boolean {
  let best = -1;
  let allowed = true;
  for (const rule of group.rules) {
    const m = matchLength(rule, path);
    if (m === 0) continue;
    if (m > best) {
      best = m;
      allowed = rule.allowance;
    } else if (m === best && !allowed) {
      allowed = rule.allowance;
    }
  }
  return allowed;
}

export interface ParsedRfc9309 {
  /** Lower-cased agent -> its merged group, in order of first mention. */
  groups: Map<string, Group>;
}

/** `RobotFileParser.parse(lines)`. */
export function parsePythonUrllibRfc9309(lines: readonly string[]): ParsedRfc9309 {
  const groups = new Map<string, Group>();
  // A merged group belongs to its one key and may grow in place; a parsed one may be shared by
  // several keys, so merging into it copies (as the library's merge_entries does), once per key.
  const merged = new Set<Group>();
  const add = (group: Group) => {
    for (const agent of group.useragents) {
      const key = pyLower(agent);
      const had = groups.get(key);
      if (had === undefined) {
        groups.set(key, group);
        continue;
      }
      const theirs = new Set(group.useragents);
      if (merged.has(had)) {
        had.useragents = had.useragents.filter((a) => theirs.has(a));
        had.rules.push(...group.rules);
      } else {
        const fresh: Group = { useragents: had.useragents.filter((a) => theirs.has(a)), rules: [...had.rules, ...group.rules] };
        merged.add(fresh);
        groups.set(key, fresh);
      }
    }
  };
  // 0: start, 1: saw a user-agent line, 2: saw a rule line.
  let state = 0;
  let group: Group = { useragents: [], rules: [] };
  for (const raw of lines) {
    const hash = raw.indexOf('#');
    const line = pyStrip(hash >= 0 ? raw.slice(0, hash) : raw);
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = pyLower(pyStrip(line.slice(0, colon)));
    const value = pyStrip(line.slice(colon + 1));
    if (key === 'user-agent') {
      if (state === 2) {
        add(group);
        group = { useragents: [], rules: [] };
      }
      group.useragents.push(value);
      state = 1;
    } else if (key === 'disallow' || key === 'allow') {
      if (state !== 0) {
        state = 2;
        const rule = ruleLine(value, key === 'allow');
        if (rule) group.rules.push(rule);
      }
    } else if (key === 'crawl-delay' || key === 'request-rate') {
      // Read for their own getters (isdecimal guards int(), which cannot raise); they end the
      // user-agent lines of a group.
      if (state !== 0) state = 2;
    }
  }
  if (state !== 0) add(group);
  return { groups };
}

/** `Entry.applies_to`: an agent (not `*`) that is a substring of the token's name. */
function appliesTo(group: Group, name: string): boolean {
  return group.useragents.some((agent) => agent !== '*' && name.includes(pyLower(agent)));
}

function findGroup(parsed: ParsedRfc9309, useragent: string): Group | undefined {
  const exact = parsed.groups.get(pyLower(useragent));
  if (exact) return exact;
  const name = pyLower(useragent.split('/')[0]!);
  for (const group of parsed.groups.values()) {
    if (appliesTo(group, name)) return group;
  }
  return parsed.groups.get('*');
}

/**
 * `can_fetch(useragent, url)` after a parse. A URL `urlsplit` refuses (brackets that are not an IPv6
 * or IPvFuture host, a host that NFKC turns into a delimiter) raises ValueError, as the module does.
 */
export function canFetchPythonUrllibRfc9309(parsed: ParsedRfc9309, useragent: string, url: string): boolean {
  const parts = pyUrlsplit(url, true);
  // urlunsplit(('', '', path, query, fragment)): a path starting `//` gains `//` so that it stays a
  // path; an empty query or fragment is dropped with its `?` or `#`.
  let target = parts.path.startsWith('//') ? `//${parts.path}` : parts.path;
  if (parts.query) target += `?${parts.query}`;
  if (parts.fragment) target += `#${parts.fragment}`;
  target = normalizeUri(target) || '/';
  if (target === '/robots.txt') return true;
  const group = findGroup(parsed, useragent);
  return group ? allowance(group, target) : true;
}

export function parsePythonUrllibRfc9309Body(body: Uint8Array): ProfileParsed {
  const parsed = parsePythonUrllibRfc9309(pySplitlines(decodeUtf8Replace(body)));
  return { check: (url, productToken) => ({ allowed: canFetchPythonUrllibRfc9309(parsed, productToken, url) }) };
}
