/** The crawler catalogue: who crawls, for what, by product token (README.md). Pure. */
export { CRAWLER_CATEGORIES, AI_CATEGORIES, CRAWLER_FAMILIES, isCrawlerCategory, isAiCategory, familyOfCategory } from './categories.js';
export type { CrawlerCategory, CrawlerFamily } from './categories.js';
export { UNKNOWN_OPERATOR } from './entry.js';
export type { CatalogueEntry } from './entry.js';
export { catalogue, findCrawler, crawlersIn } from './catalogue.js';
export { parseAiRobotsJson, categoryOfAiRobotsEntry, operatorOfAiRobotsEntry } from './ai-robots-json.js';
export type { AiRobotsFacts, AiRobotsImport, SkippedName } from './ai-robots-json.js';
export { DEFAULT_AGENT_TOKENS } from './default-agents.js';
export { CRAWLER_RULES, CRAWLER_RULES_READ, PARSER_PROFILES, UNKNOWN_PARSER, findCrawlerRules, parserOf, robotsTxtUseText } from './crawler-rules.js';
export type { CrawlerRuleEntry, CrawlerParser, FactBasis, ParserProfileName, RobotsTxtUse, SourcedFact, StarGroupUse } from './crawler-rules.js';
