/**
 * Step 3 of a night: what changed against the previous night (a site's first night is its
 * baseline): the bytes, what the engine's diff finds in them, the outcome, the policy, the 30-day
 * fallback; the policy transitions the alert rules read; and the cause every flip of the night has.
 */
import { diffRobotsTxt, unifiedTextDiff } from '../../robots/diff.js';
import type { RobotsChangeKind, RobotsDiff } from '../../robots/diff.js';
import { openedStarRuleGaps } from '../../robots/star-rule-gaps.js';
import type { StarRuleGap } from '../../robots/star-rule-gaps.js';
import type { PolicyTransitions } from '../../night/alerts.js';
import type { SiteNightInput } from '../../night/input.js';
import type { ChangeKind, FlipCause } from '../../night/vocabulary.js';
import type { NightAnswer } from './answer.js';
import type { NightReads } from './night-reads.js';
import type { NightPolicy } from './policy.js';
import { policyTransitions } from './transitions.js';

/** What the engine's diff can find in two bodies that differ. */
type ContentChangeKind = Exclude<RobotsChangeKind, 'identical'>;

export interface NightChanges {
  /** Every kind, as `snapshot_changes.kinds` stores them (empty: nothing changed). */
  kinds: ChangeKind[];
  /** What the engine's diff found in the bytes. */
  contentKinds: ContentChangeKind[];
  rulesDiff: RobotsDiff | null;
  textDiff: string | null;
  /** `*` Disallow paths a named group leaves open tonight that it did not before. */
  starGapsOpened: StarRuleGap[];
  transitions: PolicyTransitions;
  /** Why a verdict that flips tonight flipped. */
  flipCause: FlipCause;
}

export async function nightChanges(input: SiteNightInput, answer: NightAnswer, { policy }: NightPolicy, reads: NightReads): Promise<NightChanges> {
  const { previous } = input;
  const outcome = answer.result.outcome;
  const kinds: ChangeKind[] = [];
  const contentKinds: ContentChangeKind[] = [];
  let rulesDiff: RobotsDiff | null = null;
  let textDiff: string | null = null;
  let starGapsOpened: StarRuleGap[] = [];
  if (!previous) {
    kinds.push('first_seen');
  } else if (answer.body && !answer.sameAsLastGood) {
    // The bytes are compared with the last bytes fetched, whatever happened in between.
    const before = previous.lastGood ? await reads.body(previous.lastGood.body) : null;
    rulesDiff = diffRobotsTxt(before?.parsed ?? null, answer.parsed(), { before: before?.bytes ?? null, after: answer.body });
    contentKinds.push(...rulesDiff.kinds.filter((k): k is ContentChangeKind => k !== 'identical'));
    kinds.push('raw', ...contentKinds);
    textDiff = unifiedTextDiff(before?.bytes ?? null, answer.body);
    if (contentKinds.includes('rules')) starGapsOpened = openedStarRuleGaps(before?.parsed ?? null, answer.parsed(), answer.gaps());
  }
  const outcomeChanged = previous !== null && previous.outcome !== outcome;
  const policyChanged = previous !== null && previous.policy !== policy.kind;
  // D-3: the fallback is in force exactly when the policy's reason is D-3.
  const fallbackStarted = policy.reason === 'D-3' && previous !== null && previous.policyReason !== 'D-3';
  const fallbackEnded = previous?.policyReason === 'D-3' && policy.reason !== 'D-3';
  if (outcomeChanged) kinds.push('outcome');
  if (policyChanged) kinds.push('policy');
  if (fallbackStarted) kinds.push('fallback_started');
  if (fallbackEnded) kinds.push('fallback_ended');
  const flipCause: FlipCause = fallbackStarted ? 'fallback_started' : fallbackEnded ? 'fallback_ended' : outcomeChanged || policyChanged ? 'outcome_changed' : 'rules_changed';
  const transitions = policyTransitions({
    outcomeFrom: previous?.outcome ?? null,
    outcomeTo: outcome,
    policyFrom: previous?.policy ?? null,
    policyTo: policy.kind,
    policyReasonTo: policy.reason,
    fallbackStarted,
    fallbackEnded,
  });
  return { kinds, contentKinds, rulesDiff, textDiff, starGapsOpened, transitions, flipCause };
}
