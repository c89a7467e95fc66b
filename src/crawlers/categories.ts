/**
 * What a crawler does, as the catalogue files it (README.md beside this file), and the coarser
 * family the alert rules read today (src/db/agent-families.ts). Pure.
 */

/**
 * - `search`: a search engine's crawler (its index sends visitors to the site).
 * - `ai-training`: collects content in bulk to build AI models or data sets sold to AI makers.
 * - `ai-search`: indexes content for an AI search or answer engine.
 * - `ai-assistant`: fetches a page when a person asks an AI assistant or agent to (user-triggered).
 * - `seo`: crawls for SEO, backlink or marketing tools.
 * - `social`: fetches a link that someone shares, to show its preview (see README.md: why).
 * - `archive`: a web archive's crawler.
 * - `other`: everything else: monitors, libraries and command-line tools, research crawlers.
 */
export const CRAWLER_CATEGORIES = ['search', 'ai-training', 'ai-search', 'ai-assistant', 'seo', 'social', 'archive', 'other'] as const;
export type CrawlerCategory = (typeof CRAWLER_CATEGORIES)[number];

/** The categories of AI crawlers: what `ai_access_changed` alerts watch (README "Alerts"). */
export const AI_CATEGORIES = ['ai-training', 'ai-search', 'ai-assistant'] as const satisfies readonly CrawlerCategory[];
export type AiCategory = (typeof AI_CATEGORIES)[number];

/**
 * The category of crawlers that collect content to train models: whose access the usage
 * preferences' contradictions read (docs/usage-preferences.md, D-14).
 */
export const AI_TRAINING_CATEGORY = 'ai-training' satisfies AiCategory;

export function isCrawlerCategory(value: string): value is CrawlerCategory {
  return (CRAWLER_CATEGORIES as readonly string[]).includes(value);
}

export function isAiCategory(category: CrawlerCategory): boolean {
  return (AI_CATEGORIES as readonly CrawlerCategory[]).includes(category);
}

/**
 * The families of `user_agents.family` and of the alert rules, defined here once: the night's
 * vocabulary (src/night/vocabulary.ts) names them `AGENT_FAMILIES` / `AgentFamily`.
 */
export const CRAWLER_FAMILIES = ['search', 'ai', 'seo', 'social', 'other'] as const;
export type CrawlerFamily = (typeof CRAWLER_FAMILIES)[number];

const FAMILY_OF_CATEGORY: Readonly<Record<CrawlerCategory, CrawlerFamily>> = {
  search: 'search',
  'ai-training': 'ai',
  'ai-search': 'ai',
  'ai-assistant': 'ai',
  seo: 'seo',
  social: 'social',
  // The families have no archive of their own; archivers raise only the alerts every agent raises.
  archive: 'other',
  other: 'other',
};

/** The family a category falls in, so that the alert rules can move from families to categories. */
export function familyOfCategory(category: CrawlerCategory): CrawlerFamily {
  return FAMILY_OF_CATEGORY[category];
}
