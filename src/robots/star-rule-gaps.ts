/**
 * Paths the `*` group disallows that a group naming a crawler leaves open. A crawler obeys only
 * the (merged) group that names it (R-40, T26): nothing of `*` is inherited, so every path `*`
 * disallows is open to a named crawler unless its own group blocks it too. The linter reports
 * each such path (`star-rule-not-inherited`); alerting may use the gaps as data. Pure.
 */
import { isAllowedBy, ruleMatcher } from './match.js';
import type { RuleMatcher } from './match.js';
import type { RobotsTxt } from './parse.js';
import type { SelectedGroup } from './selected-group.js';
import type { Rule, UserAgentLine } from './types.js';
import { GLOBAL_AGENT } from './user-agent.js';

/** One `*` Disallow path that the group of some named crawlers does not block. */
export interface StarRuleGap {
  /**
   * The crawlers concerned, as Google reads their names (lower case, T15, T16): all the tokens
   * whose merged group is made of the same groups (T9, R-34), in order of first appearance.
   */
  tokens: string[];
  /** The `*` rule's path as written, e.g. `/private/`. */
  path: string;
  /** The same path as the matcher compares it (T28, T49). */
  pattern: string;
  /** Line of the `*` group's Disallow. */
  starLine: number;
  /** The first user-agent line that names one of `tokens`. */
  groupLine: number;
}

/**
 * Stands for "any text" in a probe path: a character no pattern holds (patterns are ASCII once
 * normalised, T28, T49), so that a rule matches it only through a `*`.
 */
const ANY_TEXT = '\u0100';

/**
 * The path checked for a `*` Disallow pattern: its literal text with every `*` and the open end
 * (no final `$`) filled with text no rule names. `/private/` gives `/private/…`, `/*.pdf$` gives
 * `/….pdf`. A named group blocks this path only when one of its rules covers the whole pattern,
 * whatever the wildcards stand for: `Disallow: /` or `/priv` for `/private/`, `/*.pdf` for
 * `/*.pdf$`, but not `/private/$` nor `/private/secret`, which leave other paths of `/private/`
 * open. Null for a pattern that starts with neither `/` nor `*`, which never matches (C6).
 */
export function probePath(pattern: string): string | null {
  const first = pattern.charCodeAt(0);
  if (first !== 0x2f && first !== 0x2a) return null;
  // C5: only a final `$` anchors the pattern; any other `$` is a literal.
  const anchored = pattern.endsWith('$');
  let body = anchored ? pattern.slice(0, -1) : pattern;
  if (body.includes('*')) body = body.replaceAll('*', ANY_TEXT);
  const probe = anchored ? body : body + ANY_TEXT;
  // Every path starts with `/` (T48); a leading `*` stands for it too.
  return first === 0x2f ? probe : '/' + probe;
}

/**
 * The most gaps `starRuleGaps` returns by default; each becomes a lint warning. The corpus file
 * with the most has 2,984 (www.mathworks.com); a file crafted to have millions must not fill the
 * memory of the worker that lints it.
 */
export const MAX_STAR_RULE_GAPS = 10_000;

/**
 * The most verdicts (a probe in one distinct named rule set) `starRuleGaps` asks for by
 * default: the check is quadratic, and a file crafted with thousands of distinct named groups
 * and thousands of `*` rules must not keep a worker busy for seconds. The whole corpus asks for
 * about 71,000 verdicts, 3,755 at most in one file (www.mathworks.com).
 */
export const MAX_STAR_RULE_VERDICTS = 200_000;

/**
 * The most rules `starRuleGaps` hands its matchers by default, summed over its verdicts (a
 * verdict that a set lookup cannot settle costs one comparison per rule of the group asked): the
 * verdicts bound counts questions, this their size (issue 26). A file of 50 groups of 170
 * wildcard rules needed 1.7 million, 0.67 s (this bound: about 0.15 s); the corpus file that
 * needs the most, www.mathworks.com, 102,743 (6 ms).
 */
export const MAX_STAR_RULE_WORK = 250_000;

export interface StarRuleGapLimits {
  /** Default MAX_STAR_RULE_GAPS. */
  maxGaps?: number;
  /** Default MAX_STAR_RULE_VERDICTS. */
  maxVerdicts?: number;
  /** Default MAX_STAR_RULE_WORK. */
  maxWork?: number;
}

export interface StarRuleGaps {
  /** In `*` line order, then group line order. */
  gaps: StarRuleGap[];
  /** False when a limit stopped the search: the gaps found until then are all in `gaps`, in order. */
  complete: boolean;
  /** Rules weighed (see MAX_STAR_RULE_WORK). */
  work: number;
}

/**
 * Every `*` Disallow path that a named group leaves open: for each distinct non-empty `*`
 * Disallow pattern whose probe path `*` itself disallows (an empty Disallow disallows nothing,
 * T23; a longer `*` Allow may reopen it, D-2), each group of named crawlers whose own rules
 * allow that path. A group that names `*` and a crawler together (C14) gives that crawler its
 * rules, so they are no gap; tokens that name no real crawler (an empty name, C9, C11) are left
 * out.
 *
 * The work is (distinct `*` Disallow patterns) × (distinct named rule sets) verdicts, most of
 * them a set lookup (see `GroupVerdicts`): groups with the same rules are decided once, a set
 * that blocks every path (the usual list of unwanted bots) is not asked at all, and a file
 * without named groups costs nothing. `limits` bound the gaps and the verdicts.
 */
export function starRuleGaps(robots: RobotsTxt, limits: StarRuleGapLimits = {}): StarRuleGaps {
  const maxGaps = limits.maxGaps ?? MAX_STAR_RULE_GAPS;
  const maxVerdicts = limits.maxVerdicts ?? MAX_STAR_RULE_VERDICTS;
  const maxWork = limits.maxWork ?? MAX_STAR_RULE_WORK;
  const none: StarRuleGaps = { gaps: [], complete: true, work: 0 };
  // A caller named `*` matches no named group (a `*` value always means the global group, C9),
  // so this is the merged `*` group (R-34, C15), or null.
  const star = robots.select(GLOBAL_AGENT);
  if (star === null) return none;
  // The distinct rule sets, each with its units in group line order; only those that do not
  // block every path are asked.
  const sets = distinctRuleSets(namedUnits(robots)).filter((set) => !blocksEveryPath(set.rules));
  if (sets.length === 0) return none;
  const probes = starProbes(star);
  if (probes.length === 0) return none;

  const starVerdicts = new GroupVerdicts(star.rules);
  const verdicts = sets.map((set) => new GroupVerdicts(set.rules));
  const gaps: StarRuleGap[] = [];
  // The units of every set, for the probes that all of them leave open (the usual case).
  let everyUnit: NamedUnit[] | null = null;
  let asked = 0;
  const work = () => verdicts.reduce((n, v) => n + v.work, starVerdicts.work);
  // Probes in `*` line order; within a probe, units in group line order: the gaps come out sorted.
  for (const p of probes) {
    if (asked + sets.length + 1 > maxVerdicts || work() > maxWork) return { gaps, complete: false, work: work() };
    asked += sets.length;
    const open: RuleSet[] = [];
    for (let v = 0; v < sets.length; v++) if (!(verdicts[v] as GroupVerdicts).disallows(p)) open.push(sets[v] as RuleSet);
    if (open.length === 0) continue;
    // `*` is asked only now: most probes are blocked by every named group.
    asked++;
    if (!starVerdicts.disallows(p)) continue;
    const units = open.length === 1 ? (open[0] as RuleSet).units : open.length === sets.length ? (everyUnit ??= unitsInOrder(sets)) : unitsInOrder(open);
    for (const unit of units) {
      if (gaps.length === maxGaps) return { gaps, complete: false, work: work() };
      gaps.push({ tokens: unit.tokens, path: p.rule.value, pattern: p.rule.pattern, starLine: p.rule.line, groupLine: unit.groupLine });
    }
  }
  return { gaps, complete: true, work: work() };
}

/**
 * The gaps a change opens: those of `after` that `before` did not have (the same crawlers leaving
 * the same `*` path open), as the nightly alert `star_rules_bypassed` and `test-draft` report
 * them (R-40, T26). `before` null: no earlier file, every gap is new. `afterGaps`: `after`'s
 * gaps when the caller has them already (lint needs them too): computed once.
 */
export function openedStarRuleGaps(before: RobotsTxt | null, after: RobotsTxt, afterGaps: StarRuleGaps = starRuleGaps(after)): StarRuleGap[] {
  const key = (g: StarRuleGap) => `${g.tokens.join(',')}\n${g.pattern}`;
  const had = new Set(before ? starRuleGaps(before).gaps.map(key) : []);
  return afterGaps.gaps.filter((g) => !had.has(key(g)));
}

/** The units of some rule sets, in group line order. */
function unitsInOrder(sets: readonly RuleSet[]): NamedUnit[] {
  return sets.flatMap((set) => set.units).sort((a, b) => a.groupLine - b.groupLine);
}

/**
 * Whether rules disallow every path: a Disallow of `/`, `*` or `/*` (R-54, C6) and no Allow that
 * could win against it (an empty Allow never does, T23).
 */
function blocksEveryPath(rules: readonly Rule[]): boolean {
  let all = false;
  for (const r of rules) {
    if (r.kind === 'allow') {
      if (r.pattern !== '') return false;
    } else if (!all) {
      all = matchesEveryPath(r.pattern);
    }
  }
  return all;
}

/** `/`, `*`, `/*`, `/**`, ...: a pattern every path (which starts with `/`, T48) matches. */
function matchesEveryPath(pattern: string): boolean {
  if (pattern === '') return false;
  for (let i = pattern.charCodeAt(0) === 0x2f ? 1 : 0; i < pattern.length; i++) if (pattern.charCodeAt(i) !== 0x2a) return false;
  return true;
}

/** A `*` Disallow rule and the path that stands for it. */
interface StarProbe {
  rule: Rule;
  probe: string;
}

/** The `*` Disallow rules worth checking, one per pattern (its first line), with their probes. */
function starProbes(star: SelectedGroup): StarProbe[] {
  const out: StarProbe[] = [];
  const seen = new Set<string>();
  for (const rule of star.rules) {
    // T23: an empty Disallow disallows nothing.
    if (rule.kind !== 'disallow' || rule.pattern === '' || seen.has(rule.pattern)) continue;
    seen.add(rule.pattern);
    const probe = probePath(rule.pattern);
    // C6: a pattern that starts with neither `/` nor `*` disallows nothing.
    if (probe !== null) out.push({ rule, probe });
  }
  return out;
}

/**
 * Whether a group's rules disallow a probe, exactly as the engine decides (D-2), mostly without
 * trying them. When the group holds a Disallow with the probe's own pattern (always so for `*`,
 * and for named groups that copy the `*` rules), that Disallow matches the probe, so the best
 * match is at least as long as the pattern, and only an Allow at least as long can win (D-2,
 * T22, C8): with none that matches, the probe is disallowed. Otherwise the group's matcher
 * answers, compiled once on first need (a fresh parse has compiled nothing yet).
 */
class GroupVerdicts {
  private readonly disallowPatterns = new Set<string>();
  private readonly allowRules: Rule[] = [];
  /** The Allows alone (index.html companions included, C8); compiled when first needed. */
  private allows: RuleMatcher | null = null;
  /** All the rules; compiled when first needed. */
  private matcher: RuleMatcher | null = null;
  /** Rules the matchers were asked to weigh so far (MAX_STAR_RULE_WORK). */
  work = 0;

  constructor(private readonly rules: readonly Rule[]) {
    for (const r of rules) {
      if (r.kind === 'disallow') this.disallowPatterns.add(r.pattern);
      else this.allowRules.push(r);
    }
  }

  disallows(p: StarProbe): boolean {
    if (this.disallowPatterns.has(p.rule.pattern) && !this.longAllowMatches(p)) return true;
    this.matcher ??= ruleMatcher(this.rules);
    this.work += this.rules.length;
    return !isAllowedBy(this.matcher.decide(p.probe));
  }

  private longAllowMatches(p: StarProbe): boolean {
    // The longest Allow that matches, found as the engine finds the deciding rule.
    this.allows ??= ruleMatcher(this.allowRules);
    this.work += this.allowRules.length;
    const best = this.allows.decide(p.probe);
    return best !== null && best.priority >= p.rule.pattern.length;
  }
}

/** Named crawlers whose merged groups are the same groups, hence one set of rules. */
interface NamedUnit {
  tokens: string[];
  groupLine: number;
  group: SelectedGroup;
}

/**
 * The named crawlers, grouped by the groups their merged group is made of (T9, R-34), in order of
 * their first user-agent line (tokens come in order of first appearance).
 */
function namedUnits(robots: RobotsTxt): NamedUnit[] {
  const units = new Map<string, NamedUnit>();
  for (const token of robots.agents()) {
    if (token === GLOBAL_AGENT || token === '') continue;
    const group = robots.select(token) as SelectedGroup;
    const key = group.groupIndexes.join(',');
    // The user-agent lines naming the token, in file order: the first is where its group starts.
    const groupLine = (group.userAgents[0] as UserAgentLine).line;
    const unit = units.get(key);
    if (unit === undefined) units.set(key, { tokens: [token], groupLine, group });
    else {
      unit.tokens.push(token);
      unit.groupLine = Math.min(unit.groupLine, groupLine);
    }
  }
  return [...units.values()];
}

/** Rules shared by some units: they decide every path alike. */
interface RuleSet {
  rules: readonly Rule[];
  /** In group line order. */
  units: NamedUnit[];
}

/**
 * The distinct rule sets of the units, in order: units whose rules have the same kinds and
 * patterns in the same order decide every path alike (a list of `Disallow: /` groups is one set).
 */
function distinctRuleSets(units: readonly NamedUnit[]): RuleSet[] {
  const bySignature = new Map<string, RuleSet>();
  for (const unit of units) {
    let key = '';
    // NUL never occurs in a pattern (C20 ends the line there).
    for (const r of unit.group.rules) key += (r.kind === 'allow' ? 'A' : 'D') + r.pattern + '\u0000';
    const set = bySignature.get(key);
    if (set === undefined) bySignature.set(key, { rules: unit.group.rules, units: [unit] });
    else set.units.push(unit);
  }
  return [...bySignature.values()];
}
