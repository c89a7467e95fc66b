/**
 * Each state a site can be in after its latest night (site-states.ts) as a condition on its
 * `site_state` row (alias `x`): what the overview's summary cards count and list, and what
 * `report status` narrows by for the dashboard's CSV.
 */
import { FAILED_OUTCOMES } from './report-failing.js';
import { RECENT_DAYS } from './recent.js';
import type { SiteState } from './site-states.js';

/** Nights whose changes count as recent: RECENT_DAYS before the latest night, in SQL. */
const RECENT_RUNS = `array(select id from audit_runs where run_at >= (select max(run_at) from audit_runs) - interval '${RECENT_DAYS} days')`;

/** Each state as a condition on the site's latest night (site_state `x`); `never` is the sites without one. */
export const STATE_CONDITION: Record<Exclude<SiteState, 'never'>, string> = {
  audited: 'true',
  ok: `x.outcome = 'ok'`,
  failing: `x.outcome::text = any('{${FAILED_OUTCOMES.join(',')}}'::text[])`,
  unavailable: `x.outcome = 'unavailable'`,
  disallow_all: `x.policy = 'disallow_all'`,
  fallback: `x.policy_reason = 'D-3'`,
  changed: `x.last_change_run_id = any(${RECENT_RUNS})`,
  // Issue 18: a bot wall answers instead of the site (the policy is the last known one), or its robots.txt flaps.
  unverified: `x.challenged_since is not null`,
  flapping: `x.flapping_since is not null`,
};

