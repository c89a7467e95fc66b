/**
 * The parsed robots.txt: groups as written, sitemaps (R-58, T47), other records
 * and the merged, precompiled rule set of every agent (R-34, T9, C14, C15, C27), so
 * that one parse answers many checks fast. Built from the scanner's events (scan.ts). Pure.
 */
import { asciiLower, escapePattern } from './encoding.js';
import { explainCheck } from './explain.js';
import type { CompiledRule } from './match.js';
import { compileRule, decide, getPathParamsQuery, isAllowedBy, sortForDecision } from './match.js';
import type { ScanHandler, ScannedLine, ScanSummary } from './scan.js';
import { scanRobotsTxt } from './scan.js';
import type { Explanation, Group, OtherRecord, Rule, SitemapRecord, UserAgentLine, Verdict } from './types.js';
import { GLOBAL_AGENT, agentToken, callerAgentKey } from './user-agent.js';

/** Distinct caller user-agents whose group choice is cached per parsed file. */
export const MAX_CACHED_AGENTS = 1024;

/** A caller's user-agent, or several treated as one crawler (C29). */
export type CallerAgent = string | readonly string[];

/** The (merged) group that applies to a caller. */
export interface SelectedGroup {
  /** `named`: the caller has its own group(s) (T26); `global`: the `*` group(s) (T18). */
  readonly kind: 'named' | 'global';
  /** The tokens that selected it: the caller's names, or `*`. */
  readonly tokens: readonly string[];
  /** Indexes into `groups` of every group merged into it, ascending. */
  readonly groupIndexes: readonly number[];
  /** The user-agent lines that name the selected token(s), in file order. */
  readonly userAgents: readonly UserAgentLine[];
  /** Its rules in file order (C27: their position does not matter, only their length). */
  readonly rules: readonly Rule[];
  /** The rules compiled and ordered for `decide`. */
  readonly compiled: readonly CompiledRule[];
}

interface MutableSelection {
  kind: 'named' | 'global';
  tokens: string[];
  groupIndexes: number[];
  userAgents: UserAgentLine[];
  rules: Rule[];
  compiled: CompiledRule[];
}

const NO_GROUP = null;

/** A parsed robots.txt. Parse once with `parseRobotsTxt`, then check as many URLs as needed. */
export class RobotsTxt {
  /** Groups as written, in file order; groups naming the same agent are merged only for matching. */
  readonly groups: readonly Group[];
  readonly sitemaps: readonly SitemapRecord[];
  readonly records: readonly OtherRecord[];
  /** Allow/disallow lines before the first user-agent line: ignored by Google (R-32, T6). */
  readonly rulesOutsideGroups: readonly Rule[];
  /** Number of lines, counted as Google does (R1). */
  readonly lineCount: number;
  readonly byteLength: number;
  /** Bytes of a (possibly partial) UTF-8 BOM skipped at the start (T45). */
  readonly bomBytes: number;

  private readonly named = new Map<string, MutableSelection>();
  private readonly global: MutableSelection | null;
  private readonly agentOrder: string[] = [];
  private readonly cache = new Map<string, SelectedGroup | null>();
  private readonly tupleCache = new Map<string, SelectedGroup | null>();

  constructor(parts: {
    groups: Group[];
    sitemaps: SitemapRecord[];
    records: OtherRecord[];
    rulesOutsideGroups: Rule[];
    summary: ScanSummary;
  }) {
    this.groups = parts.groups;
    this.sitemaps = parts.sitemaps;
    this.records = parts.records;
    this.rulesOutsideGroups = parts.rulesOutsideGroups;
    this.lineCount = parts.summary.lineCount;
    this.byteLength = parts.summary.byteLength;
    this.bomBytes = parts.summary.bomBytes;

    let global: MutableSelection | null = null;
    const known = new Set<string>();
    for (let index = 0; index < parts.groups.length; index++) {
      const group = parts.groups[index] as Group;
      const seen = new Set<string>();
      for (const ua of group.userAgents) {
        let sel: MutableSelection | undefined;
        if (ua.token === GLOBAL_AGENT) {
          global ??= emptySelection('global', GLOBAL_AGENT);
          sel = global;
        } else {
          sel = this.named.get(ua.token);
          if (sel === undefined) {
            sel = emptySelection('named', ua.token);
            this.named.set(ua.token, sel);
          }
        }
        if (!known.has(ua.token)) {
          known.add(ua.token);
          this.agentOrder.push(ua.token);
        }
        sel.userAgents.push(ua);
        // T9, C14, C15: every group that names the agent contributes its rules, once.
        if (seen.has(ua.token)) continue;
        seen.add(ua.token);
        sel.groupIndexes.push(index);
        for (const rule of group.rules) sel.rules.push(rule);
      }
    }
    this.global = global;
    for (const sel of [...this.named.values(), ...(global ? [global] : [])]) {
      sel.compiled = sortForDecision(sel.rules.flatMap(compileRule));
    }
  }

  /** Distinct agent tokens that have a group, in order of first appearance (`*` included). */
  agents(): string[] {
    return [...this.agentOrder];
  }

  /** The merged rules of an agent token (`*` for the global group), in file order; [] if none. */
  rulesFor(token: string): readonly Rule[] {
    const sel = token === GLOBAL_AGENT ? this.global : this.named.get(asciiLower(token));
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
    const cache = isOne ? this.cache : this.tupleCache;
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
    return this.named.has(callerAgentKey(userAgent));
  }

  /** Whether `url` may be crawled by `userAgent`. */
  isAllowed(url: string, userAgent: CallerAgent): boolean {
    const sel = this.select(userAgent);
    if (sel === NO_GROUP) return true;
    return isAllowedBy(decide(sel.compiled, getPathParamsQuery(url)));
  }

  /** The verdict for `url` and the line of the rule that decided it (null: no rule matched). */
  check(url: string, userAgent: CallerAgent): Verdict {
    return this.checkPath(getPathParamsQuery(url), userAgent);
  }

  /** As `check`, for a path already extracted from its URL (path + params + query, T48). */
  checkPath(path: string, userAgent: CallerAgent): Verdict {
    const sel = this.select(userAgent);
    if (sel === NO_GROUP) return { allowed: true, line: null };
    const rule = decide(sel.compiled, path);
    return { allowed: isAllowedBy(rule), line: rule === null ? null : rule.rule.line };
  }

  /** Checks many URLs for one caller; the group is chosen once. */
  checkMany(urls: readonly string[], userAgent: CallerAgent): boolean[] {
    const sel = this.select(userAgent);
    if (sel === NO_GROUP) return urls.map(() => true);
    const compiled = sel.compiled;
    return urls.map((url) => isAllowedBy(decide(compiled, getPathParamsQuery(url))));
  }

  /** Why `url` is allowed or not for `userAgent`: the group chosen and the rule that decided. */
  explain(url: string, userAgent: CallerAgent): Explanation {
    return explainCheck(this, url, userAgent);
  }

  private selectUncached(userAgents: readonly string[]): SelectedGroup | null {
    const found: MutableSelection[] = [];
    for (const ua of userAgents) {
      const sel = this.named.get(callerAgentKey(ua));
      if (sel !== undefined && !found.includes(sel)) found.push(sel);
    }
    if (found.length === 0) return this.global;
    if (found.length === 1) return found[0] as MutableSelection;
    // C29: several names of one crawler: the union of their groups' rules.
    const merged = emptySelection('named', '');
    merged.tokens = found.flatMap((s) => s.tokens);
    merged.groupIndexes = [...new Set(found.flatMap((s) => s.groupIndexes))].sort((a, b) => a - b);
    merged.userAgents = found.flatMap((s) => s.userAgents).sort((a, b) => a.line - b.line);
    merged.rules = [...new Set(found.flatMap((s) => s.rules))].sort((a, b) => a.line - b.line);
    merged.compiled = sortForDecision(merged.rules.flatMap(compileRule));
    return merged;
  }
}

function emptySelection(kind: 'named' | 'global', token: string): MutableSelection {
  return { kind, tokens: [token], groupIndexes: [], userAgents: [], rules: [], compiled: [] };
}

/**
 * Collects the scanner's events into groups, rules, sitemaps and records. Exposed so that a
 * consumer (the linter) can drive the parser and its own checks from one scan.
 */
export class RobotsTxtBuilder implements ScanHandler {
  private readonly groups: Group[] = [];
  private readonly sitemaps: SitemapRecord[] = [];
  private readonly records: OtherRecord[] = [];
  private readonly outside: Rule[] = [];
  private current: Group | null = null;

  onLine(line: ScannedLine): void {
    if (line.type !== 'directive') return;
    switch (line.key) {
      case 'user-agent': {
        // C26: only a rule ends the run of user-agent lines; the next one starts a group.
        if (this.current === null || this.current.rules.length > 0) {
          this.current = { userAgents: [], rules: [] };
          this.groups.push(this.current);
        }
        this.current.userAgents.push({ value: line.value, token: agentToken(line.value), line: line.line });
        return;
      }
      case 'allow':
      case 'disallow': {
        const rule: Rule = {
          kind: line.key,
          pattern: escapePattern(line.bytes, line.valueStart, line.valueEnd),
          value: line.value,
          line: line.line,
        };
        // R-32, T6: a rule before any user-agent line belongs to no group.
        if (this.current === null) this.outside.push(rule);
        else this.current.rules.push(rule);
        return;
      }
      case 'sitemap':
        // T47, R-58: recognised anywhere, bound to no group, passed on verbatim.
        this.sitemaps.push({ url: line.value, line: line.line });
        return;
      default:
        // T4, T12, R5, R6: other keys are kept for reports; they never affect verdicts.
        this.records.push({
          key: asciiLower(line.rawKey),
          value: line.value,
          line: line.line,
          knownUnsupported: line.key === 'known-unsupported',
          groupIndex: this.current === null ? null : this.groups.length - 1,
        });
    }
  }

  build(summary: ScanSummary): RobotsTxt {
    return new RobotsTxt({
      groups: this.groups,
      sitemaps: this.sitemaps,
      records: this.records,
      rulesOutsideGroups: this.outside,
      summary,
    });
  }
}

/** Parses a robots.txt body (bytes as served, or a string, which is UTF-8 encoded first). */
export function parseRobotsTxt(body: string | Uint8Array): RobotsTxt {
  const builder = new RobotsTxtBuilder();
  const summary = scanRobotsTxt(body, builder);
  return builder.build(summary);
}
