/**
 * The alert rules on a night written by hand: tests give the change, and the transitions are
 * worked out from it as the night's change step works them out (policyTransitions), so that a
 * test states the night as a user would describe it.
 */
import type { NightForAlerts } from '../../src/night/alerts.js';
import type { AlertDraft } from '../../src/night/alerts.js';
import { alertsForSiteNight as raise } from '../../src/services/alerting/alert-rules.js';
import { policyTransitions } from '../../src/services/night/transitions.js';

export type NightWithoutTransitions = Omit<NightForAlerts, 'transitions'>;

export function alertsOfNight(night: NightWithoutTransitions): AlertDraft[] {
  return raise({ ...night, transitions: policyTransitions(night.change) });
}
