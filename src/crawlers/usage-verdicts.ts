/**
 * What a crawler is told about the use of a URL's content (docs/usage-preferences.md): the
 * preferences of the group it follows as it follows it for Allow/Disallow (D-7: its own group,
 * a further product token's, `*`, or none when it ignores `*`), and none for a URL it may not
 * fetch (D-9). And the answer in words, as `check` and `explain` write it beside the verdict. Pure.
 */
// The usage modules, not the engine's index: `check` loads this, and never the linter.
import { decideUsage, NO_PREFERENCES, NOT_CRAWLABLE_ANSWER, USAGE_KEY_NAMES, USAGE_PURPOSES, usageLinesOf, writtenValue } from '../robots/usage/index.js';
import type { PurposeAnswer, UsageAnswer, UsagePurpose } from '../robots/usage/index.js';
import type { RobotsTxt } from '../robots/parse.js';
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

/** Whether a file states any usage preference (a Content-Signal or Content-Usage line, in a group or not). */
export function statesUsage(robots: RobotsTxt): boolean {
  return robots.hasUsageLines && usageLinesOf(robots).all.length > 0;
}

/** One purpose in words: `ai-train: refused (line 3, Content-Signal ai-train=no, Content Signals ...)`. */
export function purposeAnswerText(purpose: UsagePurpose, answer: PurposeAnswer): string {
  if (answer.preference === 'not-crawlable') return `${purpose}: not crawlable`;
  if (answer.line === null || answer.mechanism === null) return `${purpose}: ${answer.preference} (no line states it)`;
  const written = `${USAGE_KEY_NAMES[answer.mechanism]} ${answer.label}=${writtenValue(answer.mechanism, answer.preference === 'allowed')}`;
  return `${purpose}: ${answer.preference} (line ${answer.line}, ${written}, ${answer.definedBy})`;
}

/**
 * The answer in words, one line a purpose; a URL the crawler may not fetch is one line (D-9:
 * no preference applies to it).
 */
export function usageAnswerLines(usage: UsageAnswer): string[] {
  if (USAGE_PURPOSES.every((p) => usage[p].preference === 'not-crawlable')) {
    return ['usage: not crawlable (no preference applies to a URL the crawler may not fetch, D-9)'];
  }
  return USAGE_PURPOSES.map((p) => purposeAnswerText(p, usage[p]));
}
