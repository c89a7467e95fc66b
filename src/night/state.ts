/**
 * A site's state (`site_state`, one row a site): its latest night and what the next one needs.
 * One shape for both sides: the next night reads it with bodies and answers by id
 * (`PreviousNight`), a night writes it with a body or an answer it may be the first to store,
 * by hash or key (`StateRow`); the night store's column map (src/db/night-store/state.ts) names
 * each field's columns once.
 */
import type { FetchOutcome, PolicyKind, PolicyReason } from '../policy/index.js';

export interface SiteState<Body, Answer> {
  runId: number;
  runAt: Date;
  outcome: FetchOutcome;
  status: number | null;
  policy: PolicyKind;
  policyReason: PolicyReason;
  unreachableSince: Date | null;
  /** The body whose rules applied (policy `rules`), and the run it came from. */
  rulesBody: Body | null;
  rulesRunId: number | null;
  /** The latest `ok` night up to and including this one. */
  lastGood: { runId: number; runAt: Date; body: Body; sha256: Buffer } | null;
  /** D-3: the latest night that reached the site, up to and including this one. */
  lastReachable: { runId: number; outcome: FetchOutcome } | null;
  response: Answer | null;
  responseKey: Buffer | null;
  /** What decided the verdicts in force (null: unknown, evaluate again; a night always writes one). */
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
