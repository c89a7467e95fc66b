/**
 * The night's words, each list once: the Postgres enums (src/db/schema.ts), the zod schemas and
 * command options, the alert rules, the reports and the dashboard all import them from here, so
 * a new kind is added in one place and every layer sees it.
 *
 * The order of a list is meaningful where it says so; elsewhere it is the order users read.
 */
import { CRAWLER_FAMILIES } from '../crawlers/categories.js';
import type { CrawlerFamily } from '../crawlers/categories.js';
import type { RobotsChangeKind } from '../robots/diff.js';

/** Alert severities, most severe first: the order of the `alert_severity` enum, compared with `<=` in SQL. */
export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type AlertSeverity = (typeof SEVERITIES)[number];

/** What became of an alert's (or a digest's) delivery to a channel (`alert_deliveries.status`). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Every alert kind (`alerts.kind`); their severities and when each is raised: src/services/alerting/alert-rules.ts. */
export const ALERT_KINDS = [
  'site_unreachable',
  'night_failed',
  'disallow_all_added',
  'search_url_disallowed',
  'rules_changed',
  'ai_access_changed',
  'star_rules_bypassed',
  'allow_all_4xx',
  'search_url_allowed',
  'site_recovered',
  'fallback_started',
  'fallback_ended',
  'sitemaps_changed',
  'records_changed',
  'comments_only',
  'challenge_started',
  'challenge_ended',
  'flapping_started',
  'flapping_settled',
  'ai_training_refused',
  'ai_training_allowed',
  'ai_input_refused',
  'ai_input_allowed',
  'search_use_refused',
  'search_use_allowed',
  'usage_preference_withdrawn',
  'crawler_ignored_robots',
  'crawler_spoofed',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** The kinds a log import raises (src/services/logs/compliance-alerts.ts), not a night: they have no detector. */
export const LOG_ALERT_KINDS = ['crawler_ignored_robots', 'crawler_spoofed'] as const satisfies readonly AlertKind[];
export type LogAlertKind = (typeof LOG_ALERT_KINDS)[number];
/** The kinds a night's detectors raise. */
export type NightAlertKind = Exclude<AlertKind, LogAlertKind>;

/**
 * What a night can find changed (`snapshot_changes.kinds`): the site's first night, its bytes,
 * what the engine's diff finds in them (src/robots/diff.ts), the fetch outcome, the policy, and
 * the 30-day fallback (D-3) starting or ending.
 */
export const CHANGE_KINDS = ['first_seen', 'raw', 'comments_only', 'rules', 'sitemaps', 'records', 'outcome', 'policy', 'fallback_started', 'fallback_ended'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Why a verdict flipped (`verdict_flips.cause`), most specific first. */
export const FLIP_CAUSES = ['fallback_started', 'fallback_ended', 'outcome_changed', 'rules_changed'] as const;
export type FlipCause = (typeof FLIP_CAUSES)[number];

/** The purposes a usage preference is stated for (src/robots/usage; `usage_flips.purpose`). */
export { USAGE_PURPOSES } from '../robots/usage/vocabulary.js';
export type { UsagePurpose } from '../robots/usage/vocabulary.js';

/** A usage preference as a night stores it (`usage_flips.from` / `to`): a URL it may not fetch has none. */
export const STORED_PREFERENCES = ['allowed', 'refused', 'unknown'] as const;
export type StoredPreference = (typeof STORED_PREFERENCES)[number];

/**
 * The families an agent is filed under (`user_agents.family`): a flip for a `search` agent is
 * critical, one for an `ai` agent a warning; the others raise nothing of their own. They are the
 * crawler catalogue's families (src/crawlers/categories.ts), defined there, below the night.
 */
export { CRAWLER_FAMILIES as AGENT_FAMILIES } from '../crawlers/categories.js';
export type { CrawlerFamily as AgentFamily } from '../crawlers/categories.js';

/** A stored family as the alert rules read it: unknown or missing is `other`. */
export function agentFamilyOrOther(family: string | null): CrawlerFamily {
  return (CRAWLER_FAMILIES as readonly string[]).includes(family as string) ? (family as CrawlerFamily) : 'other';
}

// The engine's change kinds are night change kinds: a kind added to the diff and not here fails to compile.
export const ENGINE_KINDS_ARE_CHANGE_KINDS: Exclude<RobotsChangeKind, 'identical'> extends ChangeKind ? true : never = true;
