/**
 * Step 7 of a night: the rows that record it (src/night/rows.ts), from what the steps before
 * computed. Nothing is decided here; what a site sends is clamped to its column
 * (src/db/column-limits.ts, issue 17), or the night would be lost.
 */
import { MAX_ERROR_MESSAGE_CHARS, clampInt4, clampText } from '../../db/column-limits.js';
import type { FetchResult } from '../../http/fetch-result.js';
import { isUnreachable } from '../../policy/index.js';
import type { SiteNightInput } from '../../night/input.js';
import type { ChangeRow, SnapshotRow, StateRow } from '../../night/rows.js';
import type { NightAnswer } from './answer.js';
import type { NightChanges } from './changes.js';
import type { NightFlapping } from './flapping.js';
import type { NightPolicy } from './policy.js';

export function changeRow(input: SiteNightInput, answer: NightAnswer, rules: NightPolicy, changes: NightChanges): ChangeRow | null {
  if (changes.kinds.length === 0) return null;
  const { previous } = input;
  return {
    runId: input.runId,
    siteId: input.siteId,
    previousRunId: previous?.runId ?? null,
    outcomeFrom: previous?.outcome ?? null,
    outcomeTo: answer.result.outcome,
    policyFrom: previous?.policy ?? null,
    policyTo: rules.policy.kind,
    kinds: changes.kinds,
    textDiff: changes.textDiff,
    ruleDiff: changes.rulesDiff,
  };
}

export function snapshotRow(input: SiteNightInput, answer: NightAnswer, rules: NightPolicy, flapping: NightFlapping): SnapshotRow {
  const { result } = answer;
  const { policy } = rules;
  return {
    runAt: input.runAt,
    fetchedAt: result.startedAt,
    unreachableSince: policy.unreachableSince,
    siteId: input.siteId,
    runId: input.runId,
    durationMs: clampInt4(result.durationMs)!,
    body: answer.bodyRef,
    response: answer.response.ref,
    rulesRunId: rules.fromFallback ? rules.rulesRunId : null,
    cacheLifetimeSeconds: clampInt4(result.cache?.lifetimeSeconds ?? null),
    fullSize: storedFullSize(result),
    outcome: result.outcome,
    policy: policy.kind,
    status: result.status,
    attempts: input.attempt,
    truncated: result.truncated,
    policyReason: policy.reason,
    errorCode: result.errorCode,
    errorMessage: clampText(result.errorMessage, MAX_ERROR_MESSAGE_CHARS),
    flapping: flapping.flap?.flapping ?? false,
    confirmSha256: answer.otherSha,
  };
}

/** The site's new state; null for a replayed night (the state stays the later night's). */
export function stateRow(input: SiteNightInput, answer: NightAnswer, rules: NightPolicy, change: ChangeRow | null, evalKey: Buffer, flapping: NightFlapping): StateRow | null {
  if (input.nextNight) return null;
  const { previous, runId, runAt } = input;
  const { result, body, sha256 } = answer;
  const { policy } = rules;
  // A failed night did not reach the site either: it counts as a failed night, and the last
  // night that reached the site stays the one before.
  const reached = !isUnreachable(result.outcome) && result.outcome !== 'night_failed';
  const firstSeenOnly = change !== null && change.kinds.length === 1 && change.kinds[0] === 'first_seen';
  const lastGood = previous?.lastGood ?? null;
  return {
    siteId: input.siteId,
    runId,
    runAt,
    outcome: result.outcome,
    status: result.status,
    policy: policy.kind,
    policyReason: policy.reason,
    unreachableSince: policy.unreachableSince,
    rulesBody: rules.rulesBody,
    rulesRunId: rules.rulesRunId,
    lastGood:
      body && sha256
        ? { runId, runAt, body: answer.bodyRef!, sha256 }
        : lastGood && { runId: lastGood.runId, runAt: lastGood.runAt, body: { id: lastGood.body }, sha256: lastGood.sha256 },
    lastReachable: reached ? { runId, outcome: result.outcome } : (previous?.lastReachable ?? null),
    response: answer.response.ref,
    responseKey: answer.response.row?.key ?? null,
    evalKey,
    failedNights: reached ? 0 : (previous?.failedNights ?? 0) + 1,
    lastChangeRunId: change && !firstSeenOnly ? runId : (previous?.lastChangeRunId ?? null),
    challengedSince: rules.challengedSince,
    flappingSince: flapping.flap?.state.since ?? null,
    stableNights: flapping.flap?.state.stableNights ?? 0,
    recentVersions: flapping.flap?.state.versions ?? [],
  };
}

/**
 * The full size a night records: the size the answer announced or counted when it differs from
 * the bytes kept, within the `integer` column (a `Content-Length: 99999999999` is a claim, not
 * bytes read: it is kept as the column's largest value, never failing the night).
 */
export function storedFullSize(result: Pick<FetchResult, 'fullSize' | 'bodyBytes'>): number | null {
  return result.fullSize !== null && result.fullSize !== result.bodyBytes ? clampInt4(result.fullSize) : null;
}
