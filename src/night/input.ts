/**
 * What a site's night starts from: the fetch's answer, the previous night (the site's state),
 * the tracked URLs and agents to evaluate, and the two reads it may need beyond them
 * (`NightLoaders`), asked for only when needed.
 */
import type { FetchResult } from '../http/fetch-result.js';
import type { FlappingOptions } from '../policy/flapping.js';
import type { FetchOutcome, PolicyKind, PolicyReason } from '../policy/index.js';

/** The night a site's night is compared with: its site_state row, or (a replayed night) its history. */
export interface PreviousNight {
  runId: number;
  runAt: Date;
  outcome: FetchOutcome;
  status: number | null;
  policy: PolicyKind;
  policyReason: PolicyReason;
  unreachableSince: Date | null;
  /** The body whose rules applied (policy `rules`), and the run it came from. */
  rulesBodyId: number | null;
  rulesRunId: number | null;
  /** The latest `ok` night up to and including this one. */
  lastGood: { runId: number; runAt: Date; bodyId: number; sha256: Buffer } | null;
  /** D-3: the latest night that reached the site, up to and including this one. */
  lastReachable: { runId: number; outcome: FetchOutcome } | null;
  responseId: number | null;
  responseKey: Buffer | null;
  /** What decided the verdicts in force (null: unknown, evaluate again). */
  evalKey: Buffer | null;
  failedNights: number;
  lastChangeRunId: number | null;
  /** The first night of the current run of bot challenges; null when the last night was not one. */
  challengedSince: Date | null;
  /** The night the site started flapping (src/policy/flapping.ts); null when it is not. */
  flappingSince: Date | null;
  /** Nights in a row the same version came back. */
  stableNights: number;
  /** The versions of the last nights (K), oldest first. */
  recentVersions: RecentVersion[];
}

/** One night's version of the file, as site_state.recent_versions keeps it. */
export interface RecentVersion {
  /** sha256 of the body, hex. */
  sha256: string;
  runId: number;
  /** ISO time of the night. */
  runAt: string;
}

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
