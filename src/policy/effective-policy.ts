/**
 * Fetch outcome + site history + clock -> the policy a crawler applies (pure; the clock is passed in).
 *
 *   ok              -> rules of this fetch                    R-10
 *   redirect_limit  -> full allow (treated as a 404)          R-11
 *   unavailable     -> full allow                             R-12
 *   rate_limited    -> full allow, reported apart             D-4
 *   server_error    -> full disallow                          R-13
 *   network_error   -> full disallow                          R-15
 *   unreachable > 30 days -> the last good copy, else full allow   R-14, D-3
 *   night_failed    -> the previous night's policy stands (no answer was judged), or full
 *                      allow with reason `night_failed` for a site that never had a night
 *   challenged      -> the last known policy stands, unverified   (challengedPolicy)
 *
 * R-16 (Google treating a site's 5xx as 404 when it answers 5xx for every missing page) is a
 * crawler heuristic about the whole site; an auditor that sees only /robots.txt cannot apply it.
 */
import type { FetchOutcome } from './fetch-outcome.js';

/** R-14 / D-3: how long a site may be unreachable before the last good copy is used. */
export const UNREACHABLE_FALLBACK_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The effective policies (the `effective_policy` enum): the rules of a body, everything allowed, everything disallowed. */
export const POLICY_KINDS = ['rules', 'allow_all', 'disallow_all'] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];

/** The spec rule that produced a policy; stored with every snapshot. */
export type PolicyReason = 'R-10' | 'R-11' | 'R-12' | 'D-4' | 'R-13' | 'R-15' | 'D-3' | 'night_failed' | 'challenged';

/** The latest snapshot before the current streak whose fetch reached the site. */
export interface LastReachable<Id> {
  snapshotId: Id;
  outcome: FetchOutcome;
}

export interface PolicyInput<Id> {
  outcome: FetchOutcome;
  /** The run's clock (`audit --at` replays nights with it). */
  now: Date;
  /**
   * Start of the unreachable streak the previous snapshot was in, or null if the previous
   * fetch reached the site (or there is none).
   */
  unreachableSince: Date | null;
  /** The latest snapshot whose outcome was not a server or network error, if any. */
  lastReachable: LastReachable<Id> | null;
  /**
   * The previous night's policy, with the snapshot whose body its rules come from when it applied
   * rules. It stands on a night that judged nothing (`night_failed`: carried over as it was) and
   * on a night a bot wall answered (`challenged`: unverified). Null or absent: no night before.
   */
  previous?: { kind: PolicyKind; reason: PolicyReason; rulesFrom: { snapshotId: Id } | null } | null;
}

export interface EffectivePolicy<Id> {
  kind: PolicyKind;
  reason: PolicyReason;
  /**
   * Where the rules come from when kind is `rules`: `current` (this fetch) or the id of an
   * earlier snapshot (the 30-day fallback). Null for allow_all / disallow_all.
   */
  rulesFrom: 'current' | { snapshotId: Id } | null;
  /** The streak start to store with this snapshot: null when the site was reached. */
  unreachableSince: Date | null;
  /** True while the D-3 fallback is in force. */
  fallback: boolean;
}

export function effectivePolicy<Id>(input: PolicyInput<Id>): EffectivePolicy<Id> {
  const { outcome } = input;
  switch (outcome) {
    case 'ok':
      return { kind: 'rules', reason: 'R-10', rulesFrom: 'current', unreachableSince: null, fallback: false };
    case 'redirect_limit':
      return { kind: 'allow_all', reason: 'R-11', rulesFrom: null, unreachableSince: null, fallback: false };
    case 'unavailable':
      return { kind: 'allow_all', reason: 'R-12', rulesFrom: null, unreachableSince: null, fallback: false };
    case 'rate_limited':
      return { kind: 'allow_all', reason: 'D-4', rulesFrom: null, unreachableSince: null, fallback: false };
    case 'server_error':
    case 'network_error':
      return unreachablePolicy(input);
    case 'night_failed': {
      // Nothing was judged tonight: crawlers keep what they had, and so do the verdicts.
      const prev = input.previous;
      if (!prev) return { kind: 'allow_all', reason: 'night_failed', rulesFrom: null, unreachableSince: null, fallback: false };
      const rulesFrom = prev.kind === 'rules' ? prev.rulesFrom : null;
      return { kind: rulesFrom === null && prev.kind === 'rules' ? 'allow_all' : prev.kind, reason: prev.reason, rulesFrom, unreachableSince: input.unreachableSince, fallback: prev.reason === 'D-3' };
    }
    case 'challenged':
      return challengedPolicy(input);
  }
}

/**
 * A bot wall answered instead of the site (src/http/challenge.ts): what crawlers get there is
 * not what the auditor got (search engines are usually let through), so the night says nothing
 * about the file. The last known policy stands, marked unverified (reason `challenged`); no
 * allow-all or disallow-all verdict flips. A site challenged from its first night has no known
 * policy: it is read as the 4xx it was answered with (full allow, R-12), still marked unverified.
 */
export function challengedPolicy<Id>(input: PolicyInput<Id>): EffectivePolicy<Id> {
  const last = input.previous ?? null;
  if (last === null || (last.kind === 'rules' && last.rulesFrom === null)) {
    return { kind: 'allow_all', reason: 'challenged', rulesFrom: null, unreachableSince: null, fallback: false };
  }
  return { kind: last.kind, reason: 'challenged', rulesFrom: last.kind === 'rules' ? last.rulesFrom : null, unreachableSince: null, fallback: false };
}

function unreachablePolicy<Id>(input: PolicyInput<Id>): EffectivePolicy<Id> {
  const since = input.unreachableSince ?? input.now;
  const streakMs = input.now.getTime() - since.getTime();
  if (streakMs <= UNREACHABLE_FALLBACK_DAYS * DAY_MS) {
    // D-3: full disallow from the first failure.
    const reason: PolicyReason = input.outcome === 'server_error' ? 'R-13' : 'R-15';
    return { kind: 'disallow_all', reason, rulesFrom: null, unreachableSince: since, fallback: false };
  }
  // D-3 / R-14: more than 30 days: the last good copy; full allow if there never was one. A
  // last reachable fetch that was a 4xx (or a redirect limit) had no rules: its copy is "allow all".
  const last = input.lastReachable;
  if (last?.outcome === 'ok') {
    return { kind: 'rules', reason: 'D-3', rulesFrom: { snapshotId: last.snapshotId }, unreachableSince: since, fallback: true };
  }
  return { kind: 'allow_all', reason: 'D-3', rulesFrom: null, unreachableSince: since, fallback: true };
}
