/**
 * The policy transitions of a night, worked out once from its outcome and policy before and
 * after: the night's change step computes them for the alert rules, and the draft check for the
 * night a deploy would make.
 */
import type { PolicyTransitions, SiteNightChange } from '../../night/alerts.js';

export type TransitionInput = Pick<SiteNightChange, 'outcomeFrom' | 'outcomeTo' | 'policyFrom' | 'policyTo' | 'policyReasonTo' | 'fallbackStarted' | 'fallbackEnded'>;

export function policyTransitions(change: TransitionInput): PolicyTransitions {
  const firstNight = change.policyFrom === null;
  const policyChanged = change.policyFrom !== change.policyTo;
  const reason = change.policyReasonTo;
  const unreachable = change.policyTo === 'disallow_all' && change.policyFrom !== 'disallow_all' && (reason === 'R-13' || reason === 'R-15');
  const allowAll4xx = !firstNight && policyChanged && change.policyTo === 'allow_all' && (reason === 'R-12' || reason === 'D-4' || reason === 'R-11');
  return {
    firstNight,
    // Once per streak of failed nights, as site_unreachable is once per outage.
    nightFailed: change.outcomeTo === 'night_failed' && change.outcomeFrom !== 'night_failed',
    unreachable,
    allowAll4xx,
    // 5xx -> 4xx is reported as allow_all_4xx alone.
    recovered: !firstNight && change.policyFrom === 'disallow_all' && change.policyTo !== 'disallow_all' && !allowAll4xx && !change.fallbackStarted,
    fallbackStarted: !firstNight && change.fallbackStarted,
    fallbackEnded: !firstNight && change.fallbackEnded,
  };
}
