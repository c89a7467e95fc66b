/**
 * Matching: which part of a URL is compared (T48), whether a pattern matches it (T31-T42, C5,
 * C6), and which of several matching rules decides (T21-T25, C3, C4, C31, D-2), including
 * Google's index.html rule (T34, C8). Pure and allocation-free on the hot path; no regular
 * expressions, so no backtracking.
 */
import type { Rule } from './types.js';

const SLASH = 0x2f;
const QUESTION = 0x3f;
const SEMICOLON = 0x3b;

/** `std::string::find_first_of("/?;", from)`; -1 when none. */
function findPathStart(url: string, from: number): number {
  for (let i = from; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === SLASH || c === QUESTION || c === SEMICOLON) return i;
  }
  return -1;
}

/**
 * T48, C19: Google's `GetPathParamsQuery`: drops scheme, authority and fragment and keeps
 * path + params + query, always starting with `/`. The URL is not decoded or normalised
 * (T29, C16): D-5 canonicalisation is the caller's job (origin.ts `canonicalUrl`).
 */
export function getPathParamsQuery(url: string): string {
  // Initial two slashes: a protocol-relative URL.
  const searchStart = url.length >= 2 && url.charCodeAt(0) === SLASH && url.charCodeAt(1) === SLASH ? 2 : 0;
  const earlyPath = findPathStart(url, searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  // A `/`, `?` or `;` before `://` means the `://` is not the end of a scheme.
  if (earlyPath !== -1 && (protocolEnd === -1 || earlyPath < protocolEnd)) protocolEnd = -1;
  protocolEnd = protocolEnd === -1 ? searchStart : protocolEnd + 3;

  const pathStart = findPathStart(url, protocolEnd);
  if (pathStart === -1) return '/';
  const hashPos = url.indexOf('#', searchStart);
  if (hashPos !== -1 && hashPos < pathStart) return '/';
  const pathEnd = hashPos === -1 ? url.length : hashPos;
  const path = url.slice(pathStart, pathEnd);
  // `example.com?a` -> `/?a`, `http://x;a` -> `/;a`.
  return url.charCodeAt(pathStart) === SLASH ? path : '/' + path;
}

/**
 * `prefix`: no `*`, no final `$` (T37, R-52); `exact`: no `*`, final `$` (T32);
 * `wildcard`: at least one `*`.
 */
export type PatternKind = 'prefix' | 'exact' | 'wildcard';

/**
 * A pattern prepared for matching. `$` is an anchor only as the last character (C5); every
 * other character, including `%` and a non-final `$`, is a literal byte. Patterns are ASCII
 * (escapePattern), and a non-ASCII character of a raw URL can therefore only be stepped over
 * by `*` (C32), exactly as the bytes of its UTF-8 form would be.
 */
export interface CompiledPattern {
  readonly source: string;
  readonly kind: PatternKind;
  /** Prefix/Exact: the literal. Wildcard: the text before the first `*`. */
  readonly head: string;
  /** Wildcard only: the non-empty literals between `*`s. */
  readonly middle: readonly Literal[];
  /** Wildcard only: the text after the last `*`. */
  readonly tail: Literal;
  readonly anchored: boolean;
}

/**
 * Literals at least this long are searched with Knuth-Morris-Pratt, which is linear in the
 * path; `String#indexOf` is faster on short ones but quadratic on crafted long ones
 * (`*aaaa…baaaa…` against a path of `a`s).
 */
export const KMP_MIN_LITERAL = 16;

/**
 * Below this many (path characters × literal characters), even `indexOf`'s worst case is
 * cheaper than building the KMP table: typical paths checked once never need one.
 */
export const INDEXOF_MAX_WORK = 1 << 14;

/** A literal between `*`s, with its KMP failure table when it is long. */
export class Literal {
  readonly text: string;
  /** Built on the first search: most rules of a large file are never tried. */
  private fail: Int32Array | null = null;

  constructor(text: string) {
    this.text = text;
  }

  /** The first index >= from where the literal occurs in `s`, or -1. */
  indexIn(s: string, from: number): number {
    const m = this.text.length;
    if (m < KMP_MIN_LITERAL || (s.length - from) * m <= INDEXOF_MAX_WORK) return s.indexOf(this.text, from);
    this.fail ??= failureTable(this.text);
    const fail = this.fail;
    const t = this.text;
    let k = 0;
    for (let i = from; i < s.length; i++) {
      const c = s.charCodeAt(i);
      while (k > 0 && t.charCodeAt(k) !== c) k = fail[k - 1] as number;
      if (t.charCodeAt(k) === c) k++;
      if (k === m) return i - m + 1;
    }
    return -1;
  }
}

function failureTable(t: string): Int32Array {
  const fail = new Int32Array(t.length);
  let k = 0;
  for (let i = 1; i < t.length; i++) {
    while (k > 0 && t.charCodeAt(i) !== t.charCodeAt(k)) k = fail[k - 1] as number;
    if (t.charCodeAt(i) === t.charCodeAt(k)) k++;
    fail[i] = k;
  }
  return fail;
}

const NO_LITERAL = new Literal('');
const NO_LITERALS: readonly Literal[] = Object.freeze([]);

export function compilePattern(pattern: string): CompiledPattern {
  const anchored = pattern.length > 0 && pattern.charCodeAt(pattern.length - 1) === 0x24;
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const star = body.indexOf('*');
  if (star === -1) {
    return { source: pattern, kind: anchored ? 'exact' : 'prefix', head: body, middle: NO_LITERALS, tail: NO_LITERAL, anchored };
  }
  const parts = body.split('*');
  const head = parts[0] as string;
  const tail = new Literal(parts[parts.length - 1] as string);
  const middle = parts
    .slice(1, -1)
    .filter((p) => p.length > 0)
    .map((p) => new Literal(p));
  return { source: pattern, kind: 'wildcard', head, middle, tail, anchored };
}

/**
 * Whether `path` matches the compiled pattern, anchored at its first character.
 *
 * Wildcard patterns are matched greedily: each literal between `*`s is taken at its leftmost
 * occurrence after the previous one. With `*` as the only wildcard the leftmost choice leaves
 * the longest remainder, so if any assignment matches, this one does. Each literal is
 * searched once, from a position that only moves forward, and long literals with KMP, so the
 * work is O(len(pattern) × len(path)) at worst (short literals), with no backtracking.
 */
export function matchCompiled(p: CompiledPattern, path: string): boolean {
  switch (p.kind) {
    case 'prefix':
      return path.startsWith(p.head);
    case 'exact':
      return path === p.head;
    default: {
      if (!path.startsWith(p.head)) return false;
      let pos = p.head.length;
      const middle = p.middle;
      for (let i = 0; i < middle.length; i++) {
        const lit = middle[i] as Literal;
        const at = lit.indexIn(path, pos);
        if (at === -1) return false;
        pos = at + lit.text.length;
      }
      const tail = p.tail.text;
      if (p.anchored) {
        // The text after the last `*` must end the path, after everything matched so far.
        return path.length - tail.length >= pos && path.endsWith(tail);
      }
      return tail.length === 0 || p.tail.indexIn(path, pos) !== -1;
    }
  }
}

/** Convenience for tests and tools: does `pattern` (already normalised) match `path`? */
export function matchesPattern(path: string, pattern: string): boolean {
  return matchCompiled(compilePattern(pattern), path);
}

/**
 * C8: Google's index.html rule. When the last `/`-segment of an allow pattern starts with
 * `index.htm`, the pattern `<up to that />$` also allows the directory itself. Returns that
 * pattern, or null.
 */
export function indexHtmlPattern(allowPattern: string): string | null {
  const slash = allowPattern.lastIndexOf('/');
  if (slash === -1 || !allowPattern.startsWith('/index.htm', slash)) return null;
  return allowPattern.slice(0, slash + 1) + '$';
}

/** A rule ready for matching. */
export interface CompiledRule {
  readonly rule: Rule;
  readonly allow: boolean;
  /** D-2, C3: the length of the pattern in octets, `*` and `$` included. */
  readonly priority: number;
  readonly pattern: CompiledPattern;
  /** True for the directory pattern synthesised from an index.html allow (C8). */
  readonly viaIndexHtml: boolean;
}

/** Compiles one rule, plus its index.html companion (C8) when it has one. */
export function compileRule(rule: Rule): CompiledRule[] {
  const out: CompiledRule[] = [];
  pushCompiled(out, rule);
  return out;
}

/** Compiles rules (and their index.html companions, C8) in order. */
export function compileRules(rules: readonly Rule[]): CompiledRule[] {
  const out: CompiledRule[] = [];
  for (let i = 0; i < rules.length; i++) pushCompiled(out, rules[i] as Rule);
  return out;
}

function pushCompiled(out: CompiledRule[], rule: Rule): void {
  const allow = rule.kind === 'allow';
  out.push({ rule, allow, priority: rule.pattern.length, pattern: compilePattern(rule.pattern), viaIndexHtml: false });
  if (allow) {
    const dir = indexHtmlPattern(rule.pattern);
    // Google tries the directory pattern only when the index.html pattern did not match; it is
    // always shorter, so as an ordinary candidate it can win only in exactly those cases.
    if (dir !== null) {
      out.push({ rule, allow: true, priority: dir.length, pattern: compilePattern(dir), viaIndexHtml: true });
    }
  }
}

/**
 * Orders compiled rules for `decide`: highest priority first, then file order, which is the
 * order in which Google's matcher keeps the first of equally long matches.
 */
export function sortForDecision(rules: CompiledRule[]): CompiledRule[] {
  return rules.sort((a, b) => b.priority - a.priority || a.rule.line - b.rule.line);
}

/**
 * The rule Google reports for `path` among `rules` (sorted by sortForDecision), or null when
 * none matches. Google keeps the longest matching allow and the longest matching disallow
 * (the first of equals) and reports the disallow only when it is strictly longer (T22, C4,
 * C31). Scanning from the longest down, the first match decides unless it is a disallow, in
 * which case an allow of the same length still wins.
 */
export function decide(rules: readonly CompiledRule[], path: string): CompiledRule | null {
  let found: CompiledRule | null = null;
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i] as CompiledRule;
    if (found !== null && (r.priority < found.priority || !r.allow)) {
      if (r.priority < found.priority) break;
      continue;
    }
    if (!matchCompiled(r.pattern, path)) continue;
    if (r.allow) return r;
    found = r;
  }
  return found;
}

/**
 * `decide` for a single check, without compiling the rules first: what a group checked once
 * (most groups of most files) needs. Literal patterns (no `*`) are compared as they are; only
 * wildcard patterns and the rule that wins are compiled. It reports the same rule as
 * `decide(sortForDecision(compileRules(rules)), path)`, the index.html rule (C8) included.
 */
export function decideOnce(rules: readonly Rule[], path: string): CompiledRule | null {
  let best: Rule | null = null;
  let bestPriority = -1;
  let bestAllow = false;
  let bestViaIndexHtml = false;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as Rule;
    const pattern = rule.pattern;
    const allow = rule.kind === 'allow';
    // Rules come in file order, so a rule of equal priority takes over only as an allow over a disallow (precedes).
    if (pattern.length > bestPriority || (pattern.length === bestPriority && allow && !bestAllow)) {
      if (patternMatches(pattern, path)) {
        best = rule;
        bestPriority = pattern.length;
        bestAllow = allow;
        bestViaIndexHtml = false;
        continue;
      }
    }
    if (!allow) continue;
    // C8: the directory pattern of an index.html allow (`<dir>/$`, wildcards kept).
    const dir = indexHtmlPattern(pattern);
    if (dir === null || dir.length < bestPriority || (dir.length === bestPriority && bestAllow)) continue;
    if (patternMatches(dir, path)) {
      best = rule;
      bestPriority = dir.length;
      bestAllow = true;
      bestViaIndexHtml = true;
    }
  }
  if (best === null) return null;
  const compiled = compileRule(best);
  return (bestViaIndexHtml ? compiled[1] : compiled[0]) as CompiledRule;
}

/** Whether a normalised pattern matches `path`; a literal one without building its compiled form. */
function patternMatches(pattern: string, path: string): boolean {
  if (pattern.indexOf('*') !== -1) return matchCompiled(compilePattern(pattern), path);
  const n = pattern.length;
  // An exact pattern (final `$`, T32) must be the whole path; any other literal, its start.
  if (n > 0 && pattern.charCodeAt(n - 1) === 0x24) return path.length === n - 1 && pattern.startsWith(path);
  return path.startsWith(pattern);
}

/** T23: an empty pattern matches with priority 0, which never disallows. */
export function isAllowedBy(decisive: CompiledRule | null): boolean {
  return decisive === null || decisive.allow || decisive.priority === 0;
}

/**
 * D-2, C4, C31: whether `a` takes precedence over `b` when both match: the longer pattern;
 * at equal length the allow; then the earlier line. This is the order in which `decide`
 * settles, written as a comparison: the rule it reports is the first of the matching rules.
 */
export function precedes(a: CompiledRule, b: CompiledRule): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.allow !== b.allow) return a.allow;
  return a.rule.line < b.rule.line;
}

/** The rules of one group, ready to answer which of them decides for a path. */
export interface RuleMatcher {
  /** The rule Google reports for `path`, or null when none matches (as `decide`). */
  decide(path: string): CompiledRule | null;
}

/**
 * Rule sets with at least this many compiled rules get a prefix index: below it, trying
 * every rule in order costs less than building the index (a sort of the heads) for a file
 * that may be checked only once.
 */
export const RULE_INDEX_MIN_RULES = 64;

/** A matcher for a group's rules: ordered rules for small sets, a prefix index for large ones. */
export function ruleMatcher(rules: readonly Rule[], indexMinRules: number = RULE_INDEX_MIN_RULES): RuleMatcher {
  const compiled = compileRules(rules);
  return compiled.length >= indexMinRules ? new PrefixIndex(compiled) : new OrderedRules(sortForDecision(compiled));
}

/** Every rule tried from the longest down, first match deciding (`decide`). */
class OrderedRules implements RuleMatcher {
  constructor(private readonly rules: readonly CompiledRule[]) {}

  decide(path: string): CompiledRule | null {
    return decide(this.rules, path);
  }
}

/**
 * Rules indexed by their head: the literal text a path must start with for the rule to match
 * (the pattern up to its first `*`, or the whole literal; `''` for patterns that start with
 * `*`). Only rules whose head is a prefix of the path can match it, and a file has few
 * distinct head lengths (19 among the 19,126 rules of docs.oracle.com), so a check looks up
 * the path's prefix of each such length in a map and tries the rules found there: a few
 * lookups instead of a pass over thousands of rules. Building it is one map insertion per
 * rule, with no sort of the heads, so a file checked once does not pay much for it.
 */
export class PrefixIndex implements RuleMatcher {
  /** Rules by head, each list in precedence order (`precedes`). */
  private readonly byHead = new Map<string, CompiledRule[]>();
  /** The distinct head lengths, longest first, and the highest priority among their rules. */
  private readonly lengths: number[];
  private readonly maxPriority: number[];

  constructor(compiled: readonly CompiledRule[]) {
    let longest = 0;
    for (const r of compiled) longest = Math.max(longest, r.pattern.head.length);
    // The highest priority by head length; -1: no head of that length.
    const top = new Int32Array(longest + 1).fill(-1);
    for (const r of compiled) {
      const head = r.pattern.head;
      const list = this.byHead.get(head);
      if (list === undefined) this.byHead.set(head, [r]);
      else list.push(r);
      if (r.priority > (top[head.length] as number)) top[head.length] = r.priority;
    }
    for (const list of this.byHead.values()) if (list.length > 1) list.sort(byPrecedence);
    this.lengths = [];
    this.maxPriority = [];
    for (let n = longest; n >= 0; n--) {
      if ((top[n] as number) < 0) continue;
      this.lengths.push(n);
      this.maxPriority.push(top[n] as number);
    }
  }

  decide(path: string): CompiledRule | null {
    let best: CompiledRule | null = null;
    for (let i = 0; i < this.lengths.length; i++) {
      const n = this.lengths[i] as number;
      // A rule's priority is at least its head's length, but a wildcard's can be far more, so
      // shorter heads are skipped only when none of their rules is long enough to win.
      if (n > path.length || (best !== null && (this.maxPriority[i] as number) < best.priority)) continue;
      const rules = this.byHead.get(n === path.length ? path : path.slice(0, n));
      if (rules === undefined) continue;
      for (let k = 0; k < rules.length; k++) {
        const r = rules[k] as CompiledRule;
        // The rest of this head's rules cannot beat the best so far.
        if (best !== null && !precedes(r, best)) break;
        if (matchCompiled(r.pattern, path)) {
          best = r;
          break;
        }
      }
    }
    return best;
  }
}

function byPrecedence(a: CompiledRule, b: CompiledRule): number {
  return precedes(a, b) ? -1 : precedes(b, a) ? 1 : 0;
}
