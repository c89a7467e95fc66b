/**
 * Crawler logic that Google's library leaves to the crawler (C10): which group a crawler follows.
 * A crawler with several product tokens follows the group of the most specific token the file
 * names, and only that group (R-42: Googlebot Images follows `googlebot` when there is no group of
 * its own; Apple documents the same of Applebot and `googlebot`); a crawler that ignores the `*`
 * group (Google's special-case crawlers) follows no group when none names it. The rules are data
 * (crawler-rules.json, each with its source), imported as a module. Pure.
 */
import type { RobotsTxt } from '../robots/parse.js';
import type { Explanation } from '../robots/types.js';
import { CRAWLER_RULES, findCrawlerRules } from './crawler-rules.js';
import type { CrawlerRuleEntry } from './crawler-rules.js';

/**
 * A crawler's further product tokens, after its own, most specific first, for the crawlers whose
 * operators document several (crawler-rules.json). Keys are lower case. A crawler not listed
 * here answers to its own token only, then `*` (R-42: "Otherbot (news)" follows `*` even when a
 * group names a related crawler).
 */
export const CRAWLER_PRODUCT_TOKENS: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(CRAWLER_RULES.flatMap((e) => (e.furtherTokens ? [[e.token.toLowerCase(), Object.freeze(e.furtherTokens.value.map((t) => t.toLowerCase()))]] : []))),
);

/** Which rule chose the group a crawler follows. */
export type FollowedGroupRule =
  /** A group names the crawler's own token. */
  | 'own'
  /** No group names it; it follows the group of a further product token (R-42, Applebot). */
  | 'further-token'
  /** No group names it or a further token; it follows `*`. */
  | 'star'
  /** No group names it, and its operator says it ignores `*`: no group applies, all is allowed. */
  | 'ignores-star'
  /** No group names it and there is no `*` group: no group applies. */
  | 'no-group';

export interface FollowedGroup {
  readonly rule: FollowedGroupRule;
  /** The name to select the group with (the crawler's own, a further token, or `*`), or null when no group applies. */
  readonly agent: string | null;
  /** Where the documented rule that applied comes from (`further-token`, `ignores-star`), else null. */
  readonly source: string | null;
}

/**
 * The group `userAgent` follows in `robots`, and the rule that chose it: its own token's group,
 * else its further tokens' groups in order, else `*`, unless it ignores `*` (then no group
 * applies). `rules` defaults to the shipped crawler rules of `userAgent` (null: none documented).
 */
export function followedGroup(robots: RobotsTxt, userAgent: string, rules: CrawlerRuleEntry | null = findCrawlerRules(userAgent)): FollowedGroup {
  if (robots.hasNamedGroup(userAgent)) return { rule: 'own', agent: userAgent, source: null };
  const further = rules?.furtherTokens;
  const token = further?.value.find((t) => robots.hasNamedGroup(t));
  if (further && token !== undefined) return { rule: 'further-token', agent: token.toLowerCase(), source: further.source };
  if (rules?.starGroup?.value === 'ignores') return { rule: 'ignores-star', agent: null, source: rules.starGroup.source };
  if (robots.select('*') === null) return { rule: 'no-group', agent: null, source: null };
  return { rule: 'star', agent: userAgent, source: null };
}

/**
 * The token whose group `userAgent` follows in `robots`: its own when a group names it, else
 * the first of its further product tokens that a group names, else its own (so that `*`, or
 * no group, applies). Callers that must also honour a crawler that ignores `*` use
 * `followedGroup` or `explainAsCrawler`.
 */
export function followedAgent(robots: RobotsTxt, userAgent: string): string {
  const f = followedGroup(robots, userAgent);
  return f.rule === 'further-token' && f.agent !== null ? f.agent : userAgent;
}

/** An explanation of a check made as the named crawler makes it, with the rule that chose its group. */
export interface CrawlerExplanation extends Explanation {
  readonly followed: FollowedGroup;
}

/**
 * Why `url` is allowed or not for the crawler `userAgent`, as it decides (its documented crawler
 * rules, then Google's matching): the engine's explanation for the group it follows, or, when it
 * ignores `*` and no group names it, allowed with no group.
 */
export function explainAsCrawler(robots: RobotsTxt, url: string, userAgent: string, rules: CrawlerRuleEntry | null = findCrawlerRules(userAgent)): CrawlerExplanation {
  const followed = followedGroup(robots, userAgent, rules);
  if (followed.rule === 'ignores-star') {
    const e = robots.explain(url, userAgent);
    return {
      ...e,
      allowed: true,
      line: null,
      group: { kind: 'none', userAgents: [], groupIndexes: [] },
      rule: null,
      reason: `Allowed: no group names "${userAgent}", and ${userAgent} ignores the "*" group (${followed.source}), so no rule applies.`,
      followed,
    };
  }
  return { ...robots.explain(url, followed.agent ?? userAgent), followed };
}

/** The rule that chose a crawler's group, in words with its source; null when it is the plain one (own group, `*`, R-43). */
export function followedGroupText(userAgent: string, followed: FollowedGroup): string | null {
  if (followed.rule === 'further-token') {
    // The token as its operator spells it (Googlebot), not as it is compared (googlebot).
    const spelt = findCrawlerRules(userAgent)?.furtherTokens?.value.find((t) => t.toLowerCase() === followed.agent) ?? followed.agent;
    return `${userAgent} follows the ${spelt} group when none names ${userAgent} (${followed.source})`;
  }
  if (followed.rule === 'ignores-star') return `${userAgent} ignores the * group (${followed.source})`;
  return null;
}
