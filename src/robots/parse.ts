/**
 * The parsed robots.txt: groups as written, sitemaps (R-58, T47), other records
 * and, on demand, the merged rule set of every agent (R-34, T9, C14, C15, C27), so
 * that one parse answers many checks fast. `parseRobotsTxt` reads the lines straight from the
 * scanner's cursor (scan.ts); `RobotsTxtBuilder` builds the same result from scanner events,
 * for consumers (the linter) that also need the per-line report. Pure.
 */
import { asciiLower, escapePattern, escapePatternText } from './encoding.js';
import { explainCheck } from './explain.js';
import type { CompiledRule, RuleMatcher } from './match.js';
import { compileRules, decideOnce, getPathParamsQuery, isAllowedBy, ruleMatcher, sortForDecision } from './match.js';
import type { KeySpelling, ScanHandler, ScannedLine, ScanSummary } from './scan.js';
import { LineCursor, isKnownUnsupportedName } from './scan.js';
import type { CallerAgent, SelectedGroup } from './selected-group.js';
import type { Explanation, Group, OtherRecord, Rule, RuleKind, SitemapRecord, UserAgentLine, Verdict } from './types.js';
import { GLOBAL_AGENT, agentToken, agentTokenOfBytes, callerAgentKey } from './user-agent.js';
import { USAGE_KEYS } from './usage/vocabulary.js';

/** Distinct caller user-agents whose group choice is cached per parsed file. */
export const MAX_CACHED_AGENTS = 1024;

/**
 * The rules of each distinct list of groups, built once and shared by every agent that list
 * selects: a group of 15,000 user-agent lines has ONE rule list, referenced by all of
 * them, so that anything done per rule set (lint, diff, matching) is not done per agent x rule
 * (house style, habit 12). A list of one group is that group's own array.
 */
export class RuleSets {
  private readonly merged = new Map<string, readonly Rule[]>();
  /** Each rule set compiled once, for every agent that uses it (15,000 agents, one matcher). */
  private readonly matchers = new WeakMap<readonly Rule[], RuleMatcher>();
  private readonly ordered = new WeakMap<readonly Rule[], readonly CompiledRule[]>();

  /** The matcher of a rule set (`rulesOf`'s arrays), built on first use. */
  matcherOf(rules: readonly Rule[]): RuleMatcher {
    let matcher = this.matchers.get(rules);
    if (matcher === undefined) this.matchers.set(rules, (matcher = ruleMatcher(rules)));
    return matcher;
  }

  /** A rule set compiled and ordered for `decide`, built on first use. */
  compiledOf(rules: readonly Rule[]): readonly CompiledRule[] {
    let compiled = this.ordered.get(rules);
    if (compiled === undefined) this.ordered.set(rules, (compiled = sortForDecision(compileRules(rules))));
    return compiled;
  }

  constructor(private readonly groups: readonly Group[]) {}

  /** The rules of the groups at `groupIndexes` (ascending), in file order. */
  rulesOf(groupIndexes: readonly number[]): readonly Rule[] {
    if (groupIndexes.length === 0) return [];
    if (groupIndexes.length === 1) return (this.groups[groupIndexes[0] as number] as Group).rules;
    const key = groupIndexes.join(',');
    let rules = this.merged.get(key);
    if (rules === undefined) {
      rules = groupIndexes.flatMap((g) => (this.groups[g] as Group).rules);
      this.merged.set(key, rules);
    }
    return rules;
  }
}

/**
 * A group as selected, filled while the agents are indexed. Its rules are the shared rule set
 * of its groups, read when first asked for; they are compiled on the first check, not at parse
 * time: most parsed files are checked for one or two agents only.
 */
class Selection implements SelectedGroup {
  tokens: string[];
  groupIndexes: number[] = [];
  userAgents: UserAgentLine[] = [];
  private shared: readonly Rule[] | null = null;
  private matcher: RuleMatcher | null = null;
  private checkedOnce = false;
  private ordered: readonly CompiledRule[] | null = null;

  constructor(
    readonly kind: 'named' | 'global',
    token: string,
    private readonly ruleSets: RuleSets,
  ) {
    this.tokens = [token];
  }

  /** R-34, T9: every group that names the agent contributes its rules, in file order. */
  get rules(): readonly Rule[] {
    this.shared ??= this.ruleSets.rulesOf(this.groupIndexes);
    return this.shared;
  }

  get compiled(): readonly CompiledRule[] {
    this.ordered ??= this.ruleSets.compiledOf(this.rules);
    return this.ordered;
  }

  decide(path: string): CompiledRule | null {
    if (this.matcher === null) {
      // The first check goes through the rules as written; a second one makes compiling them pay.
      if (!this.checkedOnce) {
        this.checkedOnce = true;
        return decideOnce(this.rules, path);
      }
      this.matcher = this.ruleSets.matcherOf(this.rules);
    }
    return this.matcher.decide(path);
  }
}

/** Which group each agent token has (R-34: groups naming the same token merged), built on first use. */
interface AgentIndex {
  named: Map<string, Selection>;
  global: Selection | null;
  /** Distinct tokens in order of first appearance (`*` included). */
  order: string[];
}

function indexAgents(groups: readonly Group[], ruleSets: RuleSets): AgentIndex {
  const index: AgentIndex = { named: new Map(), global: null, order: [] };
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g] as Group;
    for (let u = 0; u < group.userAgents.length; u++) {
      const ua = group.userAgents[u] as UserAgentLine;
      let sel = ua.token === GLOBAL_AGENT ? index.global : index.named.get(ua.token);
      if (sel === null || sel === undefined) {
        sel = new Selection(ua.token === GLOBAL_AGENT ? 'global' : 'named', ua.token, ruleSets);
        if (ua.token === GLOBAL_AGENT) index.global = sel;
        else index.named.set(ua.token, sel);
        index.order.push(ua.token);
      }
      sel.userAgents.push(ua);
      // T9, C14, C15: every group that names the agent contributes its rules, once.
      if (sel.groupIndexes[sel.groupIndexes.length - 1] === g) continue;
      sel.groupIndexes.push(g);
    }
  }
  return index;
}

const NO_GROUP = null;

/** The file-level facts a parse keeps (the scanner's summary has them). */
export type FileSummary = Pick<ScanSummary, 'lineCount' | 'byteLength' | 'bomBytes'>;

/** A parsed robots.txt. Parse once with `parseRobotsTxt`, then check as many URLs as needed. */
export class RobotsTxt {
  /** Groups as written, in file order; groups naming the same agent are merged only for matching. */
  readonly groups: readonly Group[];
  readonly sitemaps: readonly SitemapRecord[];
  /** Allow/disallow lines before the first user-agent line: ignored by Google (R-32, T6). */
  readonly rulesOutsideGroups: readonly Rule[];
  /** Number of lines, counted as Google does (R1). */
  readonly lineCount: number;
  readonly byteLength: number;
  /** Bytes of a (possibly partial) UTF-8 BOM skipped at the start (T45). */
  readonly bomBytes: number;
  /**
   * Whether some record may be a Content-Signal or Content-Usage line (src/robots/usage): known
   * from the parse itself (a line starting with either key), so that a file without one is never
   * read again for its records.
   */
  readonly hasUsageLines: boolean;

  /** The other records; null until first read, while `recordSource` holds the body they stand in. */
  private recordList: readonly OtherRecord[] | null;
  private recordSource: Uint8Array | null;
  // Built on first use: a parse that is only diffed or listed never needs them.
  private agentIndex: AgentIndex | null = null;
  /** The rule list of each distinct list of groups, shared by the agents it applies to. */
  readonly ruleSets: RuleSets;
  private cache: Map<string, SelectedGroup | null> | null = null;
  private tupleCache: Map<string, SelectedGroup | null> | null = null;

  /** `records`: the records, or the body to read them from when first asked for (see `records`). */
  constructor(parts: { groups: Group[]; sitemaps: SitemapRecord[]; records: OtherRecord[] | Uint8Array; rulesOutsideGroups: Rule[]; summary: FileSummary; hasUsageLines: boolean }) {
    this.groups = parts.groups;
    this.sitemaps = parts.sitemaps;
    const records = parts.records;
    this.recordList = Array.isArray(records) ? records : null;
    this.recordSource = Array.isArray(records) ? null : records;
    this.rulesOutsideGroups = parts.rulesOutsideGroups;
    this.lineCount = parts.summary.lineCount;
    this.byteLength = parts.summary.byteLength;
    this.bomBytes = parts.summary.bomBytes;
    this.hasUsageLines = parts.hasUsageLines;
    this.ruleSets = new RuleSets(this.groups);
  }

  /**
   * Lines with any other key (crawl-delay, host, unknown keys: R-28), in file order. `parseRobotsTxt`
   * recognises them but builds them only when first read, by reading the body again: records
   * never affect a verdict, most callers never look at them, and an HTML page served as
   * robots.txt has thousands. Until then the parse holds the body (only when it may have records).
   */
  get records(): readonly OtherRecord[] {
    let list = this.recordList;
    if (list === null) {
      list = this.recordList = readRecords(this.recordSource as Uint8Array);
      this.recordSource = null;
    }
    return list;
  }

  private get agentsIndexed(): AgentIndex {
    this.agentIndex ??= indexAgents(this.groups, this.ruleSets);
    return this.agentIndex;
  }

  /** Distinct agent tokens that have a group, in order of first appearance (`*` included). */
  agents(): string[] {
    return [...this.agentsIndexed.order];
  }

  /** The merged rules of an agent token (`*` for the global group), in file order; [] if none. */
  rulesFor(token: string): readonly Rule[] {
    const index = this.agentsIndexed;
    const sel = token === GLOBAL_AGENT ? index.global : index.named.get(asciiLower(token));
    return sel ? sel.rules : [];
  }

  /**
   * The group that applies to a caller (R-40..R-43): its own (merged) group when one names it,
   * compared whole and case-insensitively (T15, T17, C10, C30), else `*` (T18), else null
   * (T19). An empty caller name matches only an empty-named group (T2, C11).
   */
  select(userAgent: CallerAgent): SelectedGroup | null {
    // Several names are cached under their JSON form, which no single name collides with.
    const isOne = typeof userAgent === 'string';
    const cache = isOne ? (this.cache ??= new Map()) : (this.tupleCache ??= new Map());
    const cacheKey = isOne ? userAgent : JSON.stringify(userAgent);
    const cached = cache.get(cacheKey);
    if (cached !== undefined) return cached;
    const selected = this.selectUncached(isOne ? [userAgent] : userAgent);
    if (cache.size >= MAX_CACHED_AGENTS) cache.clear();
    cache.set(cacheKey, selected);
    return selected;
  }

  /**
   * Whether a group names this caller (compared whole, case-insensitively). A crawler with
   * several product tokens (R-42: Googlebot-Image also obeys `googlebot`) uses it to pick the
   * first token that has a group, as Google's `AllowedByRobotsTuple` does; the matcher itself
   * never falls back between names (C10).
   */
  hasNamedGroup(userAgent: string): boolean {
    return this.agentsIndexed.named.has(callerAgentKey(userAgent));
  }

  /** Whether `url` may be crawled by `userAgent`. */
  isAllowed(url: string, userAgent: CallerAgent): boolean {
    const sel = this.select(userAgent);
    if (sel === NO_GROUP) return true;
    return isAllowedBy(sel.decide(getPathParamsQuery(url)));
  }

  /** The verdict for `url` and the line of the rule that decided it (null: no rule matched). */
  check(url: string, userAgent: CallerAgent): Verdict {
    return this.checkPath(getPathParamsQuery(url), userAgent);
  }

  /** As `check`, for a path already extracted from its URL (path + params + query, T48). */
  checkPath(path: string, userAgent: CallerAgent): Verdict {
    const sel = this.select(userAgent);
    if (sel === NO_GROUP) return { allowed: true, line: null };
    const rule = sel.decide(path);
    return { allowed: isAllowedBy(rule), line: rule === null ? null : rule.rule.line };
  }

  /** Checks many URLs for one caller; the group is chosen once. */
  checkMany(urls: readonly string[], userAgent: CallerAgent): boolean[] {
    const sel = this.select(userAgent);
    if (sel === NO_GROUP) return urls.map(() => true);
    return urls.map((url) => isAllowedBy(sel.decide(getPathParamsQuery(url))));
  }

  /** Why `url` is allowed or not for `userAgent`: the group chosen and the rule that decided. */
  explain(url: string, userAgent: CallerAgent): Explanation {
    return explainCheck(this.select(userAgent), url, userAgent);
  }

  private selectUncached(userAgents: readonly string[]): SelectedGroup | null {
    const index = this.agentsIndexed;
    const found: Selection[] = [];
    for (const ua of userAgents) {
      const sel = index.named.get(callerAgentKey(ua));
      if (sel !== undefined && !found.includes(sel)) found.push(sel);
    }
    if (found.length === 0) return index.global;
    if (found.length === 1) return found[0] as Selection;
    // C29: several names of one crawler: the union of their groups' rules.
    const merged = new Selection('named', '', this.ruleSets);
    merged.tokens = found.flatMap((s) => s.tokens);
    merged.groupIndexes = [...new Set(found.flatMap((s) => s.groupIndexes))].sort((a, b) => a - b);
    merged.userAgents = found.flatMap((s) => s.userAgents).sort((a, b) => a.line - b.line);
    return merged;
  }
}

/**
 * Collects directives into groups, rules, sitemaps and records. The parser's fast path calls
 * its `add*` methods directly; as a ScanHandler it does the same from scanner events, so that
 * a consumer (the linter) can drive the parser and its own checks from one scan.
 */
export class RobotsTxtBuilder implements ScanHandler {
  private readonly groups: Group[] = [];
  private readonly sitemaps: SitemapRecord[] = [];
  private readonly records: OtherRecord[] = [];
  /** Set by `deferRecords`: the body the records are read from later, instead of `records`. */
  private recordSource: Uint8Array | null = null;
  private readonly outside: Rule[] = [];
  private current: Group | null = null;
  private usageLines = false;

  onLine(line: ScannedLine): void {
    if (line.type !== 'directive') return;
    switch (line.key) {
      case 'user-agent':
        this.addUserAgent(line.value, line.line);
        return;
      case 'allow':
      case 'disallow':
        this.addRule(line.key, escapePattern(line.bytes, line.valueStart, line.valueEnd), line.value, line.line);
        return;
      case 'sitemap':
        this.addSitemap(line.value, line.line);
        return;
      default:
        this.addRecord(asciiLower(line.rawKey), line.value, line.line, line.key === 'known-unsupported');
    }
  }

  /** `token`: agentToken(value), when the caller has it already. */
  addUserAgent(value: string, line: number, token: string = agentToken(value)): void {
    // C26: only a rule ends the run of user-agent lines; the next one starts a group.
    if (this.current === null || this.current.rules.length > 0) {
      this.current = { userAgents: [], rules: [] };
      this.groups.push(this.current);
    }
    this.current.userAgents.push({ value, token, line });
  }

  /** `pattern`: the value as escapePattern normalises it (T28, T49). */
  addRule(kind: RuleKind, pattern: string, value: string, line: number): void {
    const rule: Rule = { kind, pattern, value, line };
    // R-32, T6: a rule before any user-agent line belongs to no group.
    if (this.current === null) this.outside.push(rule);
    else this.current.rules.push(rule);
  }

  addSitemap(url: string, line: number): void {
    // T47, R-58: recognised anywhere, bound to no group, passed on verbatim.
    this.sitemaps.push({ url, line });
  }

  /** `key`: the key as written, ASCII lower-cased (C12). */
  addRecord(key: string, value: string, line: number, knownUnsupported: boolean): void {
    // T4, T12, R5, R6: other keys are kept for reports; they never affect verdicts.
    // As the fast path sees it (LineCursor#skippedUsageKey): a key that starts with a usage key.
    if (key.startsWith('content-signal') || key.startsWith('content-usage')) this.usageLines = true;
    this.records.push({
      key,
      value,
      line,
      knownUnsupported,
      groupIndex: this.current === null ? null : this.groups.length - 1,
    });
  }

  /** Leaves the records of `body` to be read when first asked for (RobotsTxt#records), instead of addRecord. */
  deferRecords(body: Uint8Array, hasUsageLines: boolean): void {
    this.recordSource = body;
    this.usageLines = hasUsageLines;
  }

  build(summary: FileSummary): RobotsTxt {
    return new RobotsTxt({
      groups: this.groups,
      sitemaps: this.sitemaps,
      records: this.recordSource ?? this.records,
      rulesOutsideGroups: this.outside,
      summary: { lineCount: summary.lineCount, byteLength: summary.byteLength, bomBytes: summary.bomBytes },
      hasUsageLines: this.usageLines,
    });
  }
}

/**
 * Parses a robots.txt body (bytes as served, or a string, which is UTF-8 encoded first).
 *
 * The fast path: directives are read straight off the line cursor, with no event object per
 * line, and ASCII values are sliced from the body's Latin-1 text. It builds exactly what
 * `RobotsTxtBuilder` builds from `scanRobotsTxt` (test/unit/robots/parse.test.ts compares the
 * two on the whole corpus).
 *
 * The other records are read from `body` when first asked for (`records`): until then the
 * parse keeps a reference to the bytes it was given, not a copy (copying would cost every parse
 * to spare the rare caller that rewrites its buffer in place; such a caller reads `records`
 * first, or passes a copy).
 */
export function parseRobotsTxt(body: string | Uint8Array): RobotsTxt {
  const cursor = new LineCursor(body);
  const builder = new RobotsTxtBuilder();
  // The other records are read when first asked for (RobotsTxt#records): until then only lines
  // that may hold one of the four directives are read, and whether there may be records at all.
  cursor.skipUnspelled = true;
  let hasRecords = false;
  let hasUsageLines = false;
  while (cursor.advance()) {
    if (cursor.type !== 'directive') continue;
    if (cursor.spelling !== null) addDirective(builder, cursor, cursor.spelling);
    else {
      hasRecords = true;
      hasUsageLines ||= isUsageKey(cursor.text, cursor.keyStart, cursor.keyEnd);
    }
  }
  if (hasRecords || cursor.skippedText) builder.deferRecords(cursor.bytes, hasUsageLines || cursor.skippedUsageKey);
  return builder.build({ lineCount: cursor.line, byteLength: cursor.bytes.length, bomBytes: cursor.bomBytes });
}

/**
 * The other records of a body (RobotsTxt#records), as RobotsTxtBuilder records them: only their
 * lines are decoded; user-agent and rule lines only move the group they stand in (R-30, R-31:
 * a user-agent line after a rule starts a group, and a rule before any group belongs to none).
 */
function readRecords(body: Uint8Array): OtherRecord[] {
  const cursor = new LineCursor(body);
  const records: OtherRecord[] = [];
  let groups = 0;
  let groupHasRules = false;
  while (cursor.advance()) {
    if (cursor.type !== 'directive') continue;
    const spelling = cursor.spelling;
    if (spelling === null) {
      // Key first: the cursor answers "high bytes?" fastest for ranges in order.
      const rawKey = cursor.string(cursor.keyStart, cursor.keyEnd);
      const key = cursor.hasHighBytes(cursor.keyStart, cursor.keyEnd) ? asciiLower(rawKey) : rawKey.toLowerCase();
      const value = cursor.string(cursor.valueStart, cursor.valueEnd);
      records.push({ key, value, line: cursor.line, knownUnsupported: isKnownUnsupportedName(key), groupIndex: groups === 0 ? null : groups - 1 });
    } else if (spelling.key === 'user-agent') {
      if (groups === 0 || groupHasRules) {
        groups++;
        groupHasRules = false;
      }
    } else if (spelling.key !== 'sitemap' && groups > 0) {
      groupHasRules = true;
    }
  }
  return records;
}

/** Whether the key at `text[start, end)` (Latin-1) names a usage-preference line, in any case. */
function isUsageKey(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length !== 13 && length !== 14) return false;
  return USAGE_KEYS.has(asciiLower(text.slice(start, end)));
}

function addDirective(builder: RobotsTxtBuilder, cursor: LineCursor, spelling: KeySpelling): void {
  const { text, valueStart, valueEnd } = cursor;
  const ascii = !cursor.hasHighBytes(valueStart, valueEnd);
  const value = ascii ? text.slice(valueStart, valueEnd) : cursor.string(valueStart, valueEnd);
  switch (spelling.key) {
    case 'user-agent':
      builder.addUserAgent(value, cursor.line, agentTokenOfBytes(cursor.bytes, cursor.base + valueStart, cursor.base + valueEnd, value));
      return;
    case 'sitemap':
      builder.addSitemap(value, cursor.line);
      return;
    default:
      // An ASCII value with no `%` is its own pattern (T28, T49).
      builder.addRule(spelling.key, ascii && !cursor.valueHasPercent() ? value : escapePatternText(text, valueStart, valueEnd), value, cursor.line);
  }
}
