/**
 * Crawler logic that Google's library leaves to the crawler (C10): a crawler with several
 * product tokens follows the group of the most specific token the file names, and only that
 * group (R-42: Googlebot Images follows `googlebot` when there is no group of its own). Pure.
 */
import type { RobotsTxt } from './parse.js';

/**
 * A crawler's further product tokens, after its own, most specific first, for the crawlers whose
 * documentation lists several (Google's list of its crawlers; R-42 for Googlebot Images and
 * News). Keys are lower case. A crawler not listed here answers to its own token only, then `*`
 * "Otherbot (news)" follows `*` even when a group names a related crawler).
 */
export const CRAWLER_PRODUCT_TOKENS: Readonly<Record<string, readonly string[]>> = {
  'googlebot-image': ['googlebot'],
  'googlebot-news': ['googlebot'],
  'googlebot-video': ['googlebot'],
  'google-inspectiontool': ['googlebot'],
  'googleother-image': ['googleother'],
  'googleother-video': ['googleother'],
};

/**
 * The token whose group `userAgent` follows in `robots`: its own when a group names it, else
 * the first of its further product tokens that a group names, else its own (so that `*`, or
 * no group, applies).
 */
export function followedAgent(robots: RobotsTxt, userAgent: string): string {
  if (robots.hasNamedGroup(userAgent)) return userAgent;
  const further = CRAWLER_PRODUCT_TOKENS[userAgent.toLowerCase()] ?? [];
  return further.find((token) => robots.hasNamedGroup(token)) ?? userAgent;
}
