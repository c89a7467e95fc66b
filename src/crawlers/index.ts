/**
 * Crawlers: who crawls, for what, by product token; the rules each follows (README.md); and what
 * Google's library leaves to the crawler, on top of the engine (src/robots): the group it follows,
 * the verdict of its own parser, and (crawler-diff.ts) what it gains and loses between two files. Pure.
 */
export { CRAWLER_CATEGORIES, AI_CATEGORIES, AI_TRAINING_CATEGORY, CRAWLER_FAMILIES, isCrawlerCategory, isAiCategory, familyOfCategory } from './categories.js';
export type { CrawlerCategory, CrawlerFamily } from './categories.js';
export { UNKNOWN_OPERATOR } from './entry.js';
export type { CatalogueEntry } from './entry.js';
export { catalogue, findCrawler, crawlersIn } from './catalogue.js';
export { parseAiRobotsJson, categoryOfAiRobotsEntry, operatorOfAiRobotsEntry } from './ai-robots-json.js';
export type { AiRobotsFacts, AiRobotsImport, SkippedName } from './ai-robots-json.js';
export { DEFAULT_AGENT_TOKENS } from './default-agents.js';
export { CRAWLER_RULES, CRAWLER_RULES_READ, UNKNOWN_PARSER, findCrawlerRules, isBoundByRobotsTxt, parserOf, robotsTxtUseText } from './crawler-rules.js';
export type { CrawlerRuleEntry, CrawlerParser, FactBasis, RobotsTxtUse, SourcedFact, StarGroupUse } from './crawler-rules.js';
export { CRAWLER_PRODUCT_TOKENS, followedAgent, followedGroup, explainAsCrawler, followedGroupText } from './followed-group.js';
export type { FollowedGroup, FollowedGroupRule, CrawlerExplanation } from './followed-group.js';
export { ParserVerdictReader, PARSER_VERDICTS_KEY, otherParserOf, parserVerdictText, profileRelease } from './parser-verdicts.js';
export type { OtherParser, ParserVerdict } from './parser-verdicts.js';
export { usageOfExplained, usageAsCrawler } from './usage-verdicts.js';
export { lintWithCrawlers, usageContradictions, MAX_USAGE_CONTRADICTION_CHECKS } from './usage-lint.js';
export { statesUsage, purposeAnswerText, usageAnswerLines } from './usage-verdicts.js';
