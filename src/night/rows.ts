/**
 * What a site's night writes: one record per table family, built by the night's steps
 * (src/services/night/) and stored in one transaction by the night store (src/db/night-store).
 * A body or an answer this night may be the first to see is referenced by hash or key; the
 * store resolves it to an id.
 */
import type { FetchOutcome, PolicyKind, PolicyReason } from '../policy/index.js';
import type { RobotsDiff } from '../robots/diff.js';
import type { AlertDraft } from './alerts.js';
import type { BodyIndex } from './body-index.js';
import type { SnapshotSummary } from './body-summary.js';
import type { UsageRule, VerdictSpan } from './input.js';
import type { SiteState } from './state.js';
import type { ChangeKind, FlipCause, StoredPreference, UsagePurpose } from './vocabulary.js';

/** One redirect hop of a fetch. */
export interface RedirectHop {
  url: string;
  status: number;
  location: string | null;
}

/**
 * The rule behind a verdict, as a flip stores it: its line, kind, the value as written and the
 * pattern as matched (they differ after %-normalisation, T28/T49). Null when none matched.
 */
export interface FlipRule {
  line: number;
  kind: 'allow' | 'disallow';
  value: string;
  pattern: string;
}

/** An answer's `responses` row (src/db/responses.ts computes it): what a server answered besides the body. */
export interface ResponseRow {
  /** 16 bytes: a hash of everything below (src/db/responses.ts, responseKey). */
  key: Buffer;
  /** NULL when there was no redirect (the final URL is then the requested one). */
  finalUrl: string | null;
  /** NULL when there was no redirect. */
  hops: RedirectHop[] | null;
  remoteAddress: string | null;
  contentType: string | null;
  contentEncoding: string | null;
  cacheControl: string | null;
  expires: string | null;
  age: string | null;
  retryAfter: string | null;
  lastModified: string | null;
  etag: string | null;
}

/** A body by id when stored already, by hash when this night may be the first to see it. */
export type BodyRef = { id: number } | { sha256: Buffer };
export type ResponseRef = { id: number } | { key: Buffer };

export interface NewBody {
  sha256: Buffer;
  content: Buffer;
  summary: SnapshotSummary;
  /** Its rules, root access per catalogued crawler and Content-Signal lines, for SQL reports. */
  index: BodyIndex;
}

export interface SnapshotRow {
  runAt: Date;
  fetchedAt: Date;
  unreachableSince: Date | null;
  siteId: number;
  runId: number;
  durationMs: number;
  body: BodyRef | null;
  response: ResponseRef | null;
  rulesRunId: number | null;
  cacheLifetimeSeconds: number | null;
  fullSize: number | null;
  outcome: FetchOutcome;
  policy: PolicyKind;
  status: number | null;
  attempts: number;
  truncated: boolean;
  policyReason: PolicyReason;
  errorCode: string | null;
  errorMessage: string | null;
  /** The site was flapping this night. */
  flapping: boolean;
  /** The confirmation fetch's body hash when it disagreed with the first answer. */
  confirmSha256: Buffer | null;
}

/** The site's new state, as this night writes it. */
export interface StateRow extends SiteState<BodyRef, ResponseRef> {
  siteId: number;
  evalKey: Buffer;
}

export interface ChangeRow {
  runId: number;
  siteId: number;
  previousRunId: number | null;
  outcomeFrom: FetchOutcome | null;
  outcomeTo: FetchOutcome;
  policyFrom: PolicyKind | null;
  policyTo: PolicyKind;
  kinds: ChangeKind[];
  textDiff: string | null;
  ruleDiff: RobotsDiff | null;
}

/** A span in force that ends at this night. */
export interface SpanClose {
  trackedUrlId: number;
  userAgentId: number;
  validFrom: Date;
  fromRunId: number;
  validTo: Date;
  toRunId: number;
}

export interface FlipRow {
  runId: number;
  siteId: number;
  trackedUrlId: number;
  userAgentId: number;
  fromAllowed: boolean;
  toAllowed: boolean;
  cause: FlipCause;
  ruleBefore: FlipRule | null;
  ruleAfter: FlipRule | null;
}

/** Everything a site's night writes, in one transaction (src/db/night-store.ts). */
export interface SiteNight {
  siteId: number;
  runId: number;
  snapshot: SnapshotRow;
  /** A body this night may be the first to store (its id is resolved on write). */
  newBody: NewBody | null;
  /** The confirmation fetch's body when it disagreed (stored beside the night's, by hash). */
  confirmBody: NewBody | null;
  /** An answer not seen on the previous night (stored unless another site stored it first). */
  newResponse: ResponseRow | null;
  change: ChangeRow | null;
  /** Spans in force that end tonight, and the spans tonight's verdicts open (the same record as read: VerdictSpan). */
  spans: { close: SpanClose[]; open: VerdictSpan[] };
  flips: FlipRow[];
  /** The usage preferences that changed tonight (src/services/night/verdicts.ts). */
  usageFlips: UsageFlipRow[];
  alerts: AlertDraft[];
  /** The site's new state; null for a replayed night (the state stays the later night's). */
  state: StateRow | null;
  /** The state's run_id this night was computed from (optimistic write); null: no state yet. */
  expectedStateRunId: number | null;
  /** Whether the verdicts were evaluated (false: nothing that decides them changed). */
  evaluated: boolean;
}

/** An attempt that will be retried: recorded now, the night stays open. */
export interface FailedAttemptRow {
  siteId: number;
  runId: number;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  response: ResponseRef | null;
  newResponse: ResponseRow | null;
  fullSize: number | null;
  outcome: FetchOutcome;
  status: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** When the retry is due, and whether the run waits for it (policy/run-hold.ts): the site's wait on its run. */
  retryUntil: Date;
  holdsRun: boolean;
}

/** A usage preference that changed for a URL a crawler may fetch, both nights (`usage_flips`). */
export interface UsageFlipRow {
  runId: number;
  siteId: number;
  trackedUrlId: number;
  userAgentId: number;
  purpose: UsagePurpose;
  from: StoredPreference;
  to: StoredPreference;
  ruleBefore: UsageRule | null;
  ruleAfter: UsageRule | null;
}
