/**
 * What each crawler gains and loses between two versions of a robots.txt: the rules of the
 * group it follows in each version (R-40..R-43; a crawler with several product tokens follows
 * its most specific one, R-42; one that ignores `*` none: its crawler rules, crawlers.ts), compared as a set of (kind, normalised pattern) as
 * `diffRobotsTxt` compares a group's rules (T49; a rule with no path counts for nothing, R-50).
 *
 * `diffRobotsTxt` says what changed per group ("a GPTBot group appeared with Disallow: /");
 * this says what that means per crawler: GPTBot gains `Disallow: /` and loses the `*` rules it
 * followed until then. Pure: no I/O.
 */
import { followedGroup } from './crawlers.js';
import { keyedRules, rulesMissingFrom } from './diff.js';
import type { RuleRef } from './diff.js';
import type { RobotsTxt } from './parse.js';
import type { Rule } from './types.js';
import { GLOBAL_AGENT } from './user-agent.js';

/** The group a crawler follows in one version. */
export interface FollowedGroup {
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
  before: FollowedGroup;
  after: FollowedGroup;
  /** Rules of the group it follows after and not before, by line. */
  gained: RuleRef[];
  /** Rules of the group it followed before and not after, by line. */
  lost: RuleRef[];
  /** It gains or loses a rule, or follows another group. */
  changed: boolean;
}

const NO_GROUP: FollowedGroup = { kind: 'none', token: null, userAgents: [] };

function followed(robots: RobotsTxt | null, crawler: string): { group: FollowedGroup; rules: Map<string, Rule> } {
  if (robots === null) return { group: NO_GROUP, rules: new Map() };
  // Its crawler rules choose the group (R-42 and the like); one that ignores `*` follows no group when none names it.
  const token = crawler === GLOBAL_AGENT ? GLOBAL_AGENT : followedGroup(robots, crawler).agent;
  if (token === null) return { group: NO_GROUP, rules: new Map() };
  const sel = robots.select(token);
  if (sel === null) return { group: NO_GROUP, rules: new Map() };
  return {
    group: { kind: sel.kind, token: sel.tokens[0] ?? null, userAgents: [...new Set(sel.userAgents.map((u) => u.value))] },
    rules: keyedRules(sel.rules),
  };
}

/**
 * One entry per crawler, in the order given (a name repeated in another case is kept once).
 * `null` stands for "no robots.txt": no group, no rules. `*` stands for the global group itself.
 */
export function diffCrawlerRules(before: RobotsTxt | null, after: RobotsTxt | null, crawlers: readonly string[]): CrawlerRuleChange[] {
  const seen = new Set<string>();
  const out: CrawlerRuleChange[] = [];
  for (const crawler of crawlers) {
    const key = crawler.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const b = followed(before, crawler);
    const a = followed(after, crawler);
    const gained = rulesMissingFrom(a.rules, b.rules);
    const lost = rulesMissingFrom(b.rules, a.rules);
    const regrouped = b.group.kind !== a.group.kind || b.group.token !== a.group.token;
    out.push({ crawler, before: b.group, after: a.group, gained, lost, changed: regrouped || gained.length > 0 || lost.length > 0 });
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
