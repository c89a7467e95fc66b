/**
 * What each crawler gains and loses between two versions of a robots.txt: the rules of the
 * group it follows in each version (R-40..R-43; a crawler with several product tokens follows
 * its most specific one, R-42; one that ignores `*` none: its crawler rules, followed-group.ts), compared as a set of (kind, normalised pattern) as
 * `diffRobotsTxt` compares a group's rules (T49; a rule with no path counts for nothing, R-50).
 *
 * `diffRobotsTxt` says what changed per group ("a GPTBot group appeared with Disallow: /");
 * this says what that means per crawler: GPTBot gains `Disallow: /` and loses the `*` rules it
 * followed until then. Pure: no I/O.
 */
import { followedGroup } from './followed-group.js';
import { keyedRules, rulesMissingFrom } from '../robots/diff.js';
import type { RuleRef } from '../robots/diff.js';
import type { RobotsTxt } from '../robots/parse.js';
import type { Rule } from '../robots/types.js';
import { GLOBAL_AGENT } from '../robots/user-agent.js';

/** The group a crawler follows in one version of the file, as the diff shows it (its user-agent lines; `FollowedGroup` is the rule that chose it). */
export interface DiffedGroup {
  /** `named`: a group of its own (or of a product token it also answers to, R-42); `global`: `*`; `none`: no group applies. */
  kind: 'named' | 'global' | 'none';
  /** The token of the group (`googlebot`, `*`), null for `none`. */
  token: string | null;
  /** The user-agent lines that name that token, as written, in file order. */
  userAgents: string[];
}

export interface CrawlerRuleChange {
  /** The crawler's name as given. */
  crawler: string;
  before: DiffedGroup;
  after: DiffedGroup;
  /**
   * Rules of the group it follows after and not before, by line: the first
   * MAX_CRAWLER_RULES_LISTED (`gainedTotal` counts them all). Crawlers with the same two groups
   * share this array.
   */
  gained: RuleRef[];
  /** Rules of the group it followed before and not after, by line, listed as `gained` is. */
  lost: RuleRef[];
  gainedTotal: number;
  lostTotal: number;
  /** It gains or loses a rule, or follows another group. */
  changed: boolean;
}

/**
 * Crawlers compared at most per pair of versions (issue 26): a 500 KiB file names up to some
 * 15,000 agents; each costs little (crawlers with the same groups share one comparison), but
 * each is a line of the output. The crawlers asked for by name come first, then the files' own.
 */
export const MAX_CRAWLERS_COMPARED = 500;
/** Rules listed per gained or lost list; the rest are counted (a `*` group may hold 27,000). */
export const MAX_CRAWLER_RULES_LISTED = 200;

const NO_GROUP: DiffedGroup = { kind: 'none', token: null, userAgents: [] };

interface Followed {
  /** The groups the crawler's rules come from, as a key; '' for none. */
  key: string;
  group: DiffedGroup;
  rules: Map<string, Rule>;
}

const NOT_FOLLOWED: Followed = { key: '', group: NO_GROUP, rules: new Map() };

/** Each version's followed groups, read once per distinct group however many crawlers follow it. */
class FollowedGroups {
  private readonly byToken = new Map<string, Followed>();
  private readonly byGroups = new Map<string, Map<string, Rule>>();

  constructor(private readonly robots: RobotsTxt | null) {}

  of(crawler: string): Followed {
    const robots = this.robots;
    if (robots === null) return NOT_FOLLOWED;
    // Its crawler rules choose the group (R-42 and the like); one that ignores `*` follows no group when none names it.
    const token = crawler === GLOBAL_AGENT ? GLOBAL_AGENT : followedGroup(robots, crawler).agent;
    if (token === null) return NOT_FOLLOWED;
    let found = this.byToken.get(token);
    if (found) return found;
    const sel = robots.select(token);
    if (sel === null) found = NOT_FOLLOWED;
    else {
      const key = sel.groupIndexes.join(',');
      let rules = this.byGroups.get(key);
      if (!rules) this.byGroups.set(key, (rules = keyedRules(sel.rules)));
      found = { key, group: { kind: sel.kind, token: sel.tokens[0] ?? null, userAgents: [...new Set(sel.userAgents.map((u) => u.value))] }, rules };
    }
    this.byToken.set(token, found);
    return found;
  }
}

/**
 * The rules of `from` missing from `other`: the first MAX_CRAWLER_RULES_LISTED by line, and how
 * many in all. A group's keyed rules are in line order (groups in file order, rules in theirs),
 * so listing stops early, and the count walks the smaller map: a crawler going from a one-rule
 * group to a `*` of 8,500 rules costs some 200 steps, not 8,500 (500 such crawlers are compared).
 */
function listedMissing(from: Map<string, Rule>, other: Map<string, Rule>): { listed: RuleRef[]; total: number } {
  let shared = 0;
  if (from.size <= other.size) {
    for (const key of from.keys()) if (other.has(key)) shared++;
  } else {
    for (const key of other.keys()) if (from.has(key)) shared++;
  }
  const total = from.size - shared;
  const listed: Map<string, Rule> = new Map();
  if (total > 0) {
    for (const [key, rule] of from) {
      if (other.has(key)) continue;
      listed.set(key, rule);
      if (listed.size === MAX_CRAWLER_RULES_LISTED) break;
    }
  }
  return { listed: rulesMissingFrom(listed, undefined), total };
}

/** The crawlers to compare: `*`, those asked for by name, then the files' own, each once, at most `max`. */
export function crawlersToCompare(before: RobotsTxt | null, after: RobotsTxt | null, asked: readonly string[], max = MAX_CRAWLERS_COMPARED): { crawlers: string[]; notCompared: number } {
  const all = [GLOBAL_AGENT, ...namedCrawlers(after), ...namedCrawlers(before), ...asked];
  const seen = new Set<string>();
  const distinct = all.filter((c) => {
    const key = c.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (distinct.length <= max) return { crawlers: distinct, notCompared: 0 };
  // Past the bound, the crawlers asked for by name are kept, and the files' own fill the rest in file order.
  const askedKeys = new Set(asked.map((c) => c.toLowerCase()));
  const kept = new Set([GLOBAL_AGENT, ...distinct.filter((c) => askedKeys.has(c.toLowerCase()))].slice(0, max));
  for (const c of distinct) {
    if (kept.size >= max) break;
    kept.add(c);
  }
  return { crawlers: distinct.filter((c) => kept.has(c)), notCompared: distinct.length - kept.size };
}

/**
 * One entry per crawler, in the order given (a name repeated in another case is kept once).
 * `null` stands for "no robots.txt": no group, no rules. `*` stands for the global group itself.
 * Crawlers that follow the same groups in both versions share one comparison: the cost is the
 * crawlers plus the distinct pairs of groups, not crawlers times rules.
 */
export function diffCrawlerRules(before: RobotsTxt | null, after: RobotsTxt | null, crawlers: readonly string[]): CrawlerRuleChange[] {
  const seen = new Set<string>();
  const out: CrawlerRuleChange[] = [];
  const beforeGroups = new FollowedGroups(before);
  const afterGroups = new FollowedGroups(after);
  const pairs = new Map<string, Pick<CrawlerRuleChange, 'gained' | 'lost' | 'gainedTotal' | 'lostTotal'>>();
  for (const crawler of crawlers) {
    const key = crawler.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const b = beforeGroups.of(crawler);
    const a = afterGroups.of(crawler);
    const pairKey = `${b.key}|${a.key}`;
    let pair = pairs.get(pairKey);
    if (!pair) {
      const gained = listedMissing(a.rules, b.rules);
      const lost = listedMissing(b.rules, a.rules);
      pair = { gained: gained.listed, lost: lost.listed, gainedTotal: gained.total, lostTotal: lost.total };
      pairs.set(pairKey, pair);
    }
    const regrouped = b.group.kind !== a.group.kind || b.group.token !== a.group.token;
    out.push({ crawler, before: b.group, after: a.group, ...pair, changed: regrouped || pair.gainedTotal > 0 || pair.lostTotal > 0 });
  }
  return out;
}

/**
 * The crawlers a file names: one name per distinct token of its groups (`*` and the empty
 * token left out), spelled as its first user-agent line writes it (`Googlebot` for
 * `User-agent: Googlebot/2.1`), in order of first appearance.
 */
export function namedCrawlers(robots: RobotsTxt | null): string[] {
  if (robots === null) return [];
  const names = new Map<string, string>();
  for (const group of robots.groups) {
    for (const ua of group.userAgents) {
      if (ua.token === GLOBAL_AGENT || ua.token === '' || names.has(ua.token)) continue;
      names.set(ua.token, ua.value.slice(0, ua.token.length));
    }
  }
  return [...names.values()];
}
