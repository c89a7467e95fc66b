/**
 * What a crawler is told about the use of a URL's content (docs/usage-preferences.md): the
 * preferences of the group it follows as it follows it for Allow/Disallow (D-7: its own group,
 * a further product token's, `*`, or none when it ignores `*`), and none for a URL it may not
 * fetch (D-9). Pure.
 */
import { decideUsage, NO_PREFERENCES, NOT_CRAWLABLE_ANSWER } from '../robots/index.js';
import type { RobotsTxt, UsageAnswer } from '../robots/index.js';
import type { CrawlerExplanation } from './followed-group.js';
import { explainAsCrawler } from './followed-group.js';

/** The preferences for a check already explained as the crawler makes it (`explainAsCrawler`). */
export function usageOfExplained(robots: RobotsTxt, explained: CrawlerExplanation): UsageAnswer {
  if (!explained.allowed) return NOT_CRAWLABLE_ANSWER;
  if (!robots.hasUsageLines) return NO_PREFERENCES;
  return decideUsage(robots, explained.group.groupIndexes, explained.path);
}

/** The preferences `userAgent` is given for `url` by `robots`, with the check they rest on. */
export function usageAsCrawler(robots: RobotsTxt, url: string, userAgent: string): { explained: CrawlerExplanation; usage: UsageAnswer } {
  const explained = explainAsCrawler(robots, url, userAgent);
  return { explained, usage: usageOfExplained(robots, explained) };
}
