/**
 * What a site's night starts from: the fetch's answer, the previous night (the site's state),
 * the tracked URLs and agents to evaluate, and the two reads it may need beyond them
 * (`NightLoaders`), asked for only when needed.
 */
import type { FetchResult } from '../http/fetch-result.js';
import type { FlappingOptions } from '../policy/flapping.js';
import type { SiteState } from './state.js';
import type { UsageMechanism, UsagePurpose } from '../robots/usage/vocabulary.js';

/** The night a site's night is compared with: its site_state row, or (a replayed night) its history; bodies and answers by id. */
export type PreviousNight = SiteState<number, number>;

export interface TargetAgent {
  id: number;
  token: string;
  family: string | null;
}

/** One tracked URL (the root included) with every agent it is evaluated for. */
export interface EvaluationTarget {
  trackedUrlId: number;
  url: string;
  isRoot: boolean;
  agents: TargetAgent[];
}

/**
 * The line behind a stated usage preference (src/robots/usage), as a verdict span and a usage
 * flip keep it: its line, mechanism, the label as written and the line's value (cut to
 * MAX_USAGE_VALUE_CHARS, src/db/column-limits.ts), and since when the preference holds.
 */
export interface UsageRule {
  line: number;
  mechanism: UsageMechanism;
  label: string;
  value: string;
  /**
   * The first night of the span's run of nights with this preference (ISO 8601): carried from
   * span to span while the preference stays, whatever line states it ("refused since 3 Nov").
   */
  since: string;
}

/** The deciding line of each purpose a span's preferences state. */
export type UsageRules = Partial<Record<UsagePurpose, UsageRule>>;

/** The span's field that holds each purpose's preference. */
export const USAGE_SPAN_FIELDS = {
  search: 'usageSearch',
  'ai-train': 'usageAiTrain',
  'ai-input': 'usageAiInput',
} as const satisfies Record<UsagePurpose, keyof VerdictSpan>;

/** A verdict span in force: the one a new verdict is compared with, and closed if it differs. */
export interface VerdictSpan {
  trackedUrlId: number;
  userAgentId: number;
  validFrom: Date;
  fromRunId: number;
  /** Where it ends (null: it still holds). */
  validTo: Date | null;
  toRunId: number | null;
  allowed: boolean;
  ruleLine: number | null;
  /** The verdict under the crawler's own parser where it differs (null, null: none; src/crawlers/parser-verdicts.ts). */
  parserProfile: string | null;
  parserAllowed: boolean | null;
  /**
   * The usage preferences (src/robots/usage, docs/usage-preferences.md) of a URL the crawler may
   * fetch: each purpose allowed (true), refused (false) or unknown (null); all null when it may not.
   */
  usageSearch: boolean | null;
  usageAiTrain: boolean | null;
  usageAiInput: boolean | null;
  /** The deciding line of each stated purpose; null when none is stated. */
  usageRules: UsageRules | null;
  /**
   * Whether the span was written by a release that reads usage preferences (migration 0020):
   * false for an older span, whose preferences were never read, so a change from it is no flip.
   */
  usageRead: boolean;
}

export interface NightLoaders {
  /** A stored body's bytes. */
  body(bodyId: number): Promise<Buffer | null>;
  /** A stored body's bytes by its sha256 (a version in rotation, src/policy/flapping.ts). */
  bodyBySha(sha256: Buffer): Promise<Buffer | null>;
  /**
   * The verdict spans of these tracked URLs in force on the previous night: the open ones for a
   * site's latest night, those covering `previous` for a replayed one.
   */
  spansInForce(trackedUrlIds: number[], previous: Pick<PreviousNight, 'runId' | 'runAt'>, replayed: boolean): Promise<VerdictSpan[]>;
}

export interface SiteNightInput {
  siteId: number;
  origin: string;
  runId: number;
  /** The run's clock (`audit --at`): the 30-day rule counts with it (D-3). */
  runAt: Date;
  /** The final attempt and its number within the run. */
  result: FetchResult;
  /** The sha256 of `result.body` when the caller has it (the night runner hashes it to decide on a confirmation): not hashed again. */
  resultSha256?: Buffer | null;
  attempt: number;
  previous: PreviousNight | null;
  targets: EvaluationTarget[];
  /** A hash of `targets` (targetsHash()). */
  targetsHash: Buffer;
  /** Every known crawler token (user_agents): a new body's root access is stored for each. */
  catalogueTokens: readonly string[];
  /**
   * A night replayed before the site's latest one: the night after it, where the spans it opens
   * end. Null for the site's latest night (the usual case).
   */
  nextNight: { runId: number; runAt: Date } | null;
  /**
   * The confirmation fetch (night-runner.ts): made when the first answer's body differs from the
   * version in force. Two bodies that disagree: the night records both and the site flaps.
   */
  confirm?: FetchResult | null;
  /** K and M of src/policy/flapping.ts. */
  flappingOptions?: FlappingOptions;
}
