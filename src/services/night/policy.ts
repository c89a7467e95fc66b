/**
 * Step 2 of a night: the effective policy of its answer (R-10..R-15, D-3, D-4) and the rules in
 * force under it: this night's body, or the last good copy under the 30-day fallback (D-3).
 */
import { effectivePolicy, isUnreachable } from '../../policy/index.js';
import type { EffectivePolicy } from '../../policy/index.js';
import type { SiteNightInput } from '../../night/input.js';
import type { BodyRef } from '../../night/rows.js';
import type { NightAnswer } from './answer.js';

export interface NightPolicy {
  policy: EffectivePolicy<number>;
  /** The first night of the current run of bot challenges (null: not challenged tonight). */
  challengedSince: Date | null;
  /** The rules come from the last good copy (D-3), not from tonight's body. */
  fromFallback: boolean;
  /** The body whose rules apply, by hash, by reference and by the run it came from (null: no rules policy). */
  rulesSha256: Buffer | null;
  rulesBody: BodyRef | null;
  rulesRunId: number | null;
}

export function nightPolicy(input: SiteNightInput, answer: NightAnswer): NightPolicy {
  const { previous, runAt, runId } = input;
  const { result } = answer;
  // R-10..R-15, D-3: the streak start comes from the previous night; the clock is the run's.
  const policy = effectivePolicy<number>({
    outcome: result.outcome,
    now: runAt,
    unreachableSince: previous && (isUnreachable(previous.outcome) || previous.outcome === 'night_failed') ? previous.unreachableSince : null,
    lastReachable: previous?.lastReachable ? { snapshotId: previous.lastReachable.runId, outcome: previous.lastReachable.outcome } : null,
    // night_failed and challenged: the previous night's policy stands, with the rules in force:
    // the last good body's (its own night's, or the D-3 fallback's copy, which is the same body).
    previous: previous
      ? { kind: previous.policy, reason: previous.policyReason, rulesFrom: previous.policy === 'rules' && previous.lastGood ? { snapshotId: previous.lastGood.runId } : null }
      : null,
  });
  const challengedSince = result.outcome === 'challenged' ? (previous?.challengedSince ?? runAt) : null;
  const lastGood = previous?.lastGood ?? null;
  if (policy.kind !== 'rules') return { policy, challengedSince, fromFallback: false, rulesSha256: null, rulesBody: null, rulesRunId: null };
  if (policy.rulesFrom === 'current') return { policy, challengedSince, fromFallback: false, rulesSha256: answer.sha256, rulesBody: answer.bodyRef, rulesRunId: runId };
  return {
    policy,
    challengedSince,
    fromFallback: true,
    rulesSha256: lastGood?.sha256 ?? null,
    rulesBody: lastGood ? { id: lastGood.body } : null,
    rulesRunId: lastGood?.runId ?? null,
  };
}
