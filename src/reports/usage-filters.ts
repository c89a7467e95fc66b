/**
 * The AI access page's `usage` filter, and its CSV download's (`report ai-access`): the sites by
 * what their tracked URLs' agents are told about the use of the content (docs/usage-preferences.md),
 * read from the verdict spans in force (verdicts.usage_ai_train and the two others, which the
 * night keeps only where the crawler may fetch the URL: D-9). One home for the names and their
 * SQL, so the page and the report narrow alike.
 */
import { AI_TRAINING_CATEGORY } from '../crawlers/categories.js';

/**
 * - `refuses-training`: some tracked agent is told `ai-train` refused at a URL it may crawl.
 * - `allows-training`: some tracked agent is told `ai-train` allowed.
 * - `states-nothing`: an audited site whose file states no preference to any tracked agent.
 * - `refuses-training-crawled`: refuses AI training, yet some catalogued AI-training crawler
 *   (GPTBot, CCBot, ...) may crawl the root: the contradiction lint reports as
 *   `usage-contradicts-crawl` (D-14), here across the portfolio.
 */
export const USAGE_FILTERS = ['refuses-training', 'allows-training', 'states-nothing', 'refuses-training-crawled'] as const;
export type UsageFilter = (typeof USAGE_FILTERS)[number];

/** What the page's select says of each choice. */
export const USAGE_FILTER_TEXT: Readonly<Record<UsageFilter, string>> = {
  'refuses-training': 'refuses AI training',
  'allows-training': 'allows AI training',
  'states-nothing': 'states no preference',
  'refuses-training-crawled': 'refuses AI training but lets an AI-training crawler crawl',
};

/** Sites with an open verdict span whose `ai-train` preference is `stated` (true allowed, false refused). */
const sitesTold = (stated: 'true' | 'false') => `(select t.site_id from tracked_urls t
  join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null
  where v.usage_ai_train = ${stated})`;

/** Sites with an open verdict span stating any preference. */
const SITES_STATING = `(select t.site_id from tracked_urls t
  join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null
  where v.usage_search is not null or v.usage_ai_train is not null or v.usage_ai_input is not null)`;

/**
 * Of the sites refusing AI training, those whose root some AI-training crawler of the catalogue
 * may fetch now: a policy that allows all, or rules whose body lets one in by its own row or, with
 * none, by the `*` row (R-40; body_agent_access keeps `*` and the crawlers that differ from it,
 * as sitesBlocking reads it). Checked only for the refusing sites, each a few index lookups per crawler.
 */
const REFUSING_YET_CRAWLED = `(select x.site_id from site_state x
  where x.site_id in ${sitesTold('false')}
    and (x.policy = 'allow_all'
      or (x.policy = 'rules' and exists (
        select 1 from user_agents u
        where u.category = '${AI_TRAINING_CATEGORY}'
          and coalesce((select a.allowed from body_agent_access a where a.body_id = x.rules_body_id and a.token = lower(u.token)),
                       (select a.allowed from body_agent_access a where a.body_id = x.rules_body_id and a.token = '*'),
                       true)))))`;

/**
 * The SQL condition on a site id (`siteId`, an expression) for a filter; `param` the filter's
 * parameter (text, null: no filter), so a query keeps one text whatever is chosen.
 */
export const usageFilterCondition = (siteId: string, param: string) => `(${param}::text is null
  or (${param}::text = 'refuses-training' and ${siteId} in ${sitesTold('false')})
  or (${param}::text = 'allows-training' and ${siteId} in ${sitesTold('true')})
  or (${param}::text = 'states-nothing' and ${siteId} in (select site_id from site_state) and ${siteId} not in ${SITES_STATING})
  or (${param}::text = 'refuses-training-crawled' and ${siteId} in ${REFUSING_YET_CRAWLED}))`;
