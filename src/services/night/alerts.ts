/**
 * Step 6 of a night: what the alert rules read, from what the steps before computed (its
 * transitions among them), and the alerts they raise.
 */
import { alertsForSiteNight } from '../alerting/alert-rules.js';
import type { AlertDraft, ChallengeChange } from '../../night/alerts.js';
import type { SiteNightInput } from '../../night/input.js';
import type { NightAnswer } from './answer.js';
import type { NightChanges } from './changes.js';
import type { NightFlapping } from './flapping.js';
import type { NightPolicy } from './policy.js';
import type { NightVerdicts } from './verdicts.js';

export function nightAlerts(input: SiteNightInput, answer: NightAnswer, rules: NightPolicy, changes: NightChanges, verdicts: NightVerdicts, flapping: NightFlapping): AlertDraft[] {
  const { previous } = input;
  const { result } = answer;
  const { policy } = rules;
  return alertsForSiteNight({
    runId: String(input.runId),
    siteId: input.siteId,
    origin: input.origin,
    challenge: challengeChange(result, previous?.outcome === 'challenged', previous?.challengedSince ?? null),
    flapping: flapping.change,
    change: {
      kinds: changes.contentKinds,
      rulesDiff: changes.rulesDiff,
      outcomeFrom: previous?.outcome ?? null,
      outcomeTo: result.outcome,
      policyFrom: previous?.policy ?? null,
      policyTo: policy.kind,
      policyReasonTo: policy.reason,
      // Both need a previous night, so the transitions hold them as computed.
      fallbackStarted: changes.transitions.fallbackStarted,
      fallbackEnded: changes.transitions.fallbackEnded,
      starGapsOpened: changes.starGapsOpened,
    },
    transitions: changes.transitions,
    flips: verdicts.flips,
    usageFlips: verdicts.usageFlips,
  });
}

function challengeChange(result: NightAnswer['result'], wasChallenged: boolean, since: Date | null): ChallengeChange {
  const challenged = result.outcome === 'challenged';
  return {
    started: challenged && !wasChallenged,
    ended: !challenged && wasChallenged,
    since,
    vendor: result.challenge?.vendor ?? null,
    signal: result.challenge?.signal ?? null,
    status: result.status,
    userAgent: result.challenge?.userAgent ?? null,
  };
}
