/**
 * Which alerts one site raises for one nightly run, and how severe they are (pure).
 *
 * | severity | kind                    | raised when                                                                    |
 * |----------|-------------------------|--------------------------------------------------------------------------------|
 * | critical | `site_unreachable`      | the effective policy becomes full disallow because robots.txt answers 5xx or   |
 * |          |                         | cannot be fetched (R-13, R-15, D-3)                                            |
 * | critical | `disallow_all_added`    | `Disallow: /` (or `/*`, `*`) appears for Googlebot, Bingbot or `*`             |
 * | critical | `search_url_disallowed` | a tracked URL flips from allowed to disallowed for a search crawler            |
 * | warning  | `rules_changed`         | a group appears or goes, or an agent's allow/disallow rules change             |
 * | warning  | `ai_access_changed`     | an AI crawler is newly blocked or unblocked, at `/` or at a tracked URL        |
 * | warning  | `allow_all_4xx`         | the effective policy becomes full allow because robots.txt answers 4xx (R-12), |
 * |          |                         | 429 (D-4) or ends in too many redirects (R-11)                                 |
 * | info     | `search_url_allowed`    | a tracked URL flips from disallowed to allowed for a search crawler            |
 * | info     | `site_recovered`        | robots.txt is reachable again after a full disallow from a failure             |
 * | info     | `fallback_started`      | unreachable for more than 30 days: the last good copy (or full allow) applies  |
 * |          |                         | (R-14, D-3)                                                                    |
 * | info     | `fallback_ended`        | the 30-day fallback is over                                                    |
 * | info     | `sitemaps_changed`      | a `Sitemap:` URL appears or goes                                               |
 * | info     | `records_changed`       | another known directive changes (crawl-delay, host, content-signal, ...)       |
 * | info     | `comments_only`         | the bytes changed but no crawler reads a difference                            |
 * | warning  | `challenge_started`     | a bot wall (Cloudflare, AWS WAF, ...) answers instead of the site: the last    |
 * |          |                         | known policy stands, unverified; let the auditor's User-Agent through          |
 * | info     | `challenge_ended`       | the site answers the auditor again                                             |
 * | warning  | `flapping_started`      | robots.txt returns to a version it had within 7 nights, or two answers of one  |
 * | critical |                         | night disagree (critical when a version takes a tracked URL or `/` away from a |
 * | info     |                         | search crawler; info when the versions differ in comments or layout only)      |
 * | info     | `flapping_settled`      | the same version for 3 nights in a row                                         |
 *
 * Decisions:
 * - Grouping: one alert per site, run and kind. A night in which forty tracked URLs become
 *   disallowed for Googlebot raises one critical alert that lists them (up to
 *   `MAX_FLIPS_PER_ALERT`), not forty.
 * - Dedupe key: a hash of (run id, site id, kind); with grouping the subject of an alert is the
 *   site itself. A retried job or a re-run of the same run produces the same keys, so an
 *   `ON CONFLICT DO NOTHING` insert never duplicates an alert.
 * - Policy transitions explain their flips: when a night raises `site_unreachable`,
 *   `allow_all_4xx`, `site_recovered`, `fallback_started` or `fallback_ended`, every URL flipped
 *   because the rules stopped (or started) applying; the flips are listed in that alert and do
 *   not raise `search_url_*` or `ai_access_changed` of their own.
 * - The first night of a site (no previous policy) is a baseline: nothing has changed, so only
 *   `site_unreachable` can be raised.
 * - A flip needs a previous verdict: `from: null` (a URL tracked since tonight) is no flip.
 * - Flips of other families (seo, social, other) raise nothing of their own; a rule change
 *   behind them raises `rules_changed`.
 * - Flapping: while a site flaps (the night it starts and settles included) its nights raise no
 *   change, flip or AI-access alert of their own (`FLAPPING_QUIET_KINDS`); one alert when it
 *   starts names the versions in rotation and what differs for crawlers between them, one when it
 *   settles names the version that stayed (none for a change undone: one return that held, whose
 *   start alert named the version that came back; src/policy/flapping.ts, `quiet`).
 * - Challenges: one alert when they start (raised on a site's first night too: the user can act
 *   on it), one when they end; a challenged night changes no policy, so it raises nothing else.
 * - Size: an alert is a message, and a robots.txt of 500 KiB may change 8,000 sitemaps or
 *   15,000 agents at once. Every list of its details is listed up to a limit and the rest counted,
 *   its title names up to MAX_TITLE_NAMES, and its details as a whole stay under
 *   MAX_ALERT_DETAILS_BYTES (size-limits.ts, alert-bounds.ts). The night's full diff is stored with
 *   its change.
 */
import { createHash } from 'node:crypto';
import type { FetchOutcome, PolicyKind, PolicyReason } from '../../policy/index.js';
import type { RobotsChangeKind, RobotsDiff } from '../../robots/diff.js';
import { describeRobotsDiff } from '../../robots/diff.js';
import type { RuleKind } from '../../robots/types.js';
import type { StarRuleGap } from '../../robots/star-rule-gaps.js';
import { CHALLENGE_VENDOR_NAMES, type ChallengeVendor } from '../../http/challenge.js';
import { boundAlertDetails, boundTitle, clipText, listedAtMost, namesAtMost } from './alert-bounds.js';
import {
  MAX_AGENTS_PER_ALERT,
  MAX_DIFF_LINE_CHARS,
  MAX_DIFF_LINES_PER_ALERT,
  MAX_FLIPS_PER_ALERT,
  MAX_RECORD_VALUES_PER_LINE,
  MAX_SITEMAPS_PER_ALERT,
} from './size-limits.js';

export type AlertSeverity = 'critical' | 'warning' | 'info';

export const ALERT_KINDS = [
  'site_unreachable',
  'night_failed',
  'disallow_all_added',
  'search_url_disallowed',
  'rules_changed',
  'ai_access_changed',
  'star_rules_bypassed',
  'allow_all_4xx',
  'search_url_allowed',
  'site_recovered',
  'fallback_started',
  'fallback_ended',
  'sitemaps_changed',
  'records_changed',
  'comments_only',
  'challenge_started',
  'challenge_ended',
  'flapping_started',
  'flapping_settled',
] as const;

export type AlertKind = (typeof ALERT_KINDS)[number];

export interface AlertRule {
  kind: AlertKind;
  severity: AlertSeverity;
  /** One sentence for the README and for people reading an alert. */
  when: string;
  /** Spec ids the rule rests on. */
  spec: readonly string[];
}

/** The rules of the table above, as data (README, docs, tests). Alerts come out in this order. */
export const ALERT_RULES = [
  {
    kind: 'site_unreachable',
    severity: 'critical',
    when: 'The effective policy becomes full disallow because robots.txt answers 5xx or cannot be fetched.',
    spec: ['R-13', 'R-15', 'D-3'],
  },
  {
    kind: 'night_failed',
    severity: 'critical',
    when: "The site's night could not be computed or stored (its jobs failed for good): the site was not audited, from that night on.",
    spec: [],
  },
  {
    kind: 'disallow_all_added',
    severity: 'critical',
    when: 'A `Disallow: /` (or `/*`, `*`) rule appears for Googlebot, Bingbot or `*`.',
    spec: ['R-54', 'C6'],
  },
  {
    kind: 'search_url_disallowed',
    severity: 'critical',
    when: 'A tracked URL flips from allowed to disallowed for a search crawler.',
    spec: ['R-40', 'R-56'],
  },
  {
    kind: 'rules_changed',
    severity: 'warning',
    when: "A user-agent group appears or goes, or an agent's allow/disallow rules change.",
    spec: ['R-30', 'R-34'],
  },
  {
    kind: 'ai_access_changed',
    severity: 'warning',
    when: 'An AI crawler is newly blocked or unblocked, at `/` or at a tracked URL.',
    spec: ['R-40'],
  },
  {
    kind: 'star_rules_bypassed',
    severity: 'warning',
    when: 'A group that names a crawler now leaves open a path the `*` group disallows (the crawler obeys only its own group).',
    spec: ['R-40', 'T26'],
  },
  {
    kind: 'allow_all_4xx',
    severity: 'warning',
    when: 'The effective policy becomes full allow because robots.txt answers 4xx, 429 or ends in too many redirects.',
    spec: ['R-12', 'D-4', 'R-11'],
  },
  {
    kind: 'search_url_allowed',
    severity: 'info',
    when: 'A tracked URL flips from disallowed to allowed for a search crawler.',
    spec: ['R-40', 'R-56'],
  },
  {
    kind: 'site_recovered',
    severity: 'info',
    when: 'robots.txt is reachable again after a full disallow caused by a failure.',
    spec: ['R-13', 'R-15'],
  },
  {
    kind: 'fallback_started',
    severity: 'info',
    when: 'Unreachable for more than 30 days: the last good copy, or full allow, applies.',
    spec: ['R-14', 'D-3'],
  },
  { kind: 'fallback_ended', severity: 'info', when: 'The 30-day fallback is over.', spec: ['R-14', 'D-3'] },
  { kind: 'sitemaps_changed', severity: 'info', when: 'A `Sitemap:` URL appears or goes.', spec: ['R-58'] },
  {
    kind: 'records_changed',
    severity: 'info',
    when: 'Another known directive changes (crawl-delay, host, content-signal, clean-param, ...).',
    spec: ['R-28'],
  },
  {
    kind: 'comments_only',
    severity: 'info',
    when: 'The bytes changed but no crawler reads a difference (comments, whitespace, order, key case).',
    spec: ['R-23', 'R-24', 'R-35'],
  },
  {
    kind: 'challenge_started',
    severity: 'warning',
    when: "A bot wall or WAF (Cloudflare, AWS WAF, Vercel, DataDome, ...) answers instead of the site: the last known policy stands, unverified, until the auditor's User-Agent is let through.",
    spec: ['R-12'],
  },
  { kind: 'challenge_ended', severity: 'info', when: 'The site answers the auditor again after bot challenges.', spec: ['R-10'] },
  {
    kind: 'flapping_started',
    severity: 'warning',
    when: 'robots.txt comes back to a version it had within 7 nights, or two answers of one night disagree: the versions in rotation and what differs for crawlers (critical when one takes a tracked URL or / away from a search crawler; info when they differ in comments or layout only).',
    spec: ['R-10'],
  },
  { kind: 'flapping_settled', severity: 'info', when: 'A flapping robots.txt served the same version 3 nights in a row: the version that stayed.', spec: ['R-10'] },
] as const satisfies readonly AlertRule[];

/** Kinds a flapping site's nights do not raise: its changes come and go (alertsForSiteNight). */
export const FLAPPING_QUIET_KINDS: ReadonlySet<AlertKind> = new Set([
  'disallow_all_added',
  'search_url_disallowed',
  'rules_changed',
  'ai_access_changed',
  'star_rules_bypassed',
  'search_url_allowed',
  'sitemaps_changed',
  'records_changed',
  'comments_only',
]);

export const SEVERITY_OF: Readonly<Record<AlertKind, AlertSeverity>> = Object.fromEntries(
  ALERT_RULES.map((r) => [r.kind, r.severity]),
) as Record<AlertKind, AlertSeverity>;

/** Agents whose new disallow-everything rule is critical: the two big search engines and the default group. */
export const CRITICAL_DISALLOW_ALL_TOKENS: readonly string[] = ['*', 'googlebot', 'bingbot'];

// The limits of what one alert lists live with every other size limit (size-limits.ts).
export { MAX_AGENTS_PER_ALERT, MAX_DIFF_LINES_PER_ALERT, MAX_FLIPS_PER_ALERT } from './size-limits.js';

/** Lines of a semantic diff as an alert lists them: each cut to MAX_DIFF_LINE_CHARS, at most MAX_DIFF_LINES_PER_ALERT. */
function diffLinesOf(lines: readonly string[]): string[] {
  return listedAtMost(
    lines.map((l) => clipText(l, MAX_DIFF_LINE_CHARS)),
    MAX_DIFF_LINES_PER_ALERT,
    'lines',
  );
}

/**
 * The records of a diff with at most MAX_RECORD_VALUES_PER_LINE values on each side (10,000
 * `Clean-param:` lines outside any group are one record whose line would list them all).
 */
function recordsShown(diff: RobotsDiff): RobotsDiff {
  const values = (v: string[]) => listedAtMost(v, MAX_RECORD_VALUES_PER_LINE, 'values');
  return { ...diff, records: diff.records.map((r) => ({ ...r, before: values(r.before), after: values(r.after) })) };
}

/** Families of `user-agents.json`. */
export type AgentFamily = 'search' | 'ai' | 'seo' | 'social' | 'other';

export interface FlipRule {
  kind: RuleKind;
  /** The rule as written. */
  value: string;
  line: number;
}

/** One verdict of a tracked URL for a tracked agent that differs from the previous night. */
export interface VerdictFlip {
  url: string;
  /** The agent as configured (display form, e.g. `Googlebot`). */
  agent: string;
  agentFamily: AgentFamily;
  /** True for the site root `/`, the verdict that stands for the whole site. */
  isRoot: boolean;
  /** Previous verdict (true: allowed); null when the URL had none. */
  from: boolean | null;
  to: boolean;
  /** Why it flipped (e.g. `rules`, `policy`), as the verdict-flip computation labels it. */
  cause: string;
  ruleBefore: FlipRule | null;
  ruleAfter: FlipRule | null;
}

export interface SiteNightChange {
  /** Change kinds of the robots.txt body against the previous one; empty when no body was fetched. */
  kinds: readonly RobotsChangeKind[];
  rulesDiff: RobotsDiff | null;
  /** Null on the first night of a site. */
  outcomeFrom: FetchOutcome | null;
  outcomeTo: FetchOutcome;
  /** Null on the first night of a site. */
  policyFrom: PolicyKind | null;
  policyTo: PolicyKind;
  policyReasonTo: PolicyReason;
  /** D-3: the 30-day fallback came into force tonight. */
  fallbackStarted: boolean;
  /** D-3: the fallback stopped applying tonight. */
  fallbackEnded: boolean;
  /** `*` Disallow paths a named crawler's group leaves open tonight that it did not before (R-40). */
  starGapsOpened?: readonly StarRuleGap[];
}

/** Bot challenges (src/http/challenge.ts) starting or ending tonight. */
export interface ChallengeChange {
  started: boolean;
  ended: boolean;
  /** When the run of challenges that ends tonight began. */
  since: Date | null;
  vendor: ChallengeVendor | null;
  signal: string | null;
  status: number | null;
  /** The User-Agent the auditor sends: what to let through. */
  userAgent: string | null;
}

/** A version of the file in rotation: its hash (hex) and the first night it was served in the window. */
export interface RotationVersion {
  sha256: string;
  firstSeen: string;
}

/** A tracked URL x agent whose verdict differs between the versions in rotation. */
export interface RotationDifference {
  url: string;
  agent: string;
  agentFamily: AgentFamily;
  isRoot: boolean;
  /** Verdict under each version, by hash (hex). */
  allowedBy: Record<string, boolean>;
}

/** Flapping tonight (src/policy/flapping.ts). */
export interface FlappingChange {
  /** The night belongs to a flapping spell: per-night change alerts are quiet. */
  flapping: boolean;
  event: 'none' | 'started' | 'continues' | 'settled';
  cause: 'returned' | 'disagreed' | null;
  versions: RotationVersion[];
  differences: RotationDifference[];
  /** The versions' rules differ for some crawler (false: only comments or layout rotate). */
  rulesDiffer: boolean;
  /** The version that stayed (settled). */
  stayed: RotationVersion | null;
  since: string | null;
}

export interface SiteNightInput {
  runId: string;
  siteId: string | number;
  origin: string;
  change: SiteNightChange;
  flips: readonly VerdictFlip[];
  challenge?: ChallengeChange;
  flapping?: FlappingChange;
}

export interface AlertFlip {
  url: string;
  agent: string;
  agentFamily: AgentFamily;
  isRoot: boolean;
  from: boolean | null;
  to: boolean;
  cause: string;
  ruleBefore: FlipRule | null;
  ruleAfter: FlipRule | null;
}

/**
 * JSON-ready details; which fields are set depends on the kind. Every list is bounded
 * (size-limits.ts): a list of strings cut at its limit ends with `… and N more <what>`, a list of
 * objects has its count of all beside (`flipsTotal`); every string is at most
 * MAX_DETAIL_TEXT_CHARS, and the whole at most MAX_ALERT_DETAILS_BYTES.
 */
export interface AlertDetails {
  /** Flips listed by this alert (at most `MAX_FLIPS_PER_ALERT`). */
  flips?: AlertFlip[];
  /** How many flips there were in all. */
  flipsTotal?: number;
  /** `disallow_all_added`: the user-agent values as written (at most `MAX_AGENTS_PER_ALERT`). */
  agents?: string[];
  /** The semantic diff as lines (`describeRobotsDiff`; at most `MAX_DIFF_LINES_PER_ALERT`, each cut to `MAX_DIFF_LINE_CHARS`). */
  diffLines?: string[];
  /** Agents whose group appeared, and went (at most `MAX_AGENTS_PER_ALERT` each). */
  agentsAdded?: string[];
  agentsRemoved?: string[];
  /** Sitemap URLs that appeared, and went (at most `MAX_SITEMAPS_PER_ALERT` each). */
  sitemapsAdded?: string[];
  sitemapsRemoved?: string[];
  policy?: {
    from: PolicyKind | null;
    to: PolicyKind;
    reason: PolicyReason;
    outcomeFrom: FetchOutcome | null;
    outcomeTo: FetchOutcome;
  };
  /** `star_rules_bypassed`: the `*` Disallow paths newly left open, and by which crawlers' group. */
  gaps?: { crawlers: string[]; path: string; starLine: number; groupLine: number }[];
  gapsTotal?: number;
  /** `flapping_started` / `flapping_settled`. */
  flapping?: {
    cause: FlappingChange['cause'];
    versions: RotationVersion[];
    differences?: RotationDifference[];
    differencesTotal?: number;
    stayed?: RotationVersion | null;
    since: string | null;
  };
  /** `challenge_started` / `challenge_ended`: who answered, how we knew, what to let through. */
  challenge?: { vendor: ChallengeVendor | null; signal: string | null; status: number | null; userAgent: string | null; since: string | null; action?: string };
  /**
   * Set when the details passed MAX_ALERT_DETAILS_BYTES and their longest lists were cut further
   * than their own limits (alert-bounds.ts); their counts still say how many there were.
   */
  truncated?: boolean;
}

export interface AlertDraft {
  dedupeKey: string;
  severity: AlertSeverity;
  kind: AlertKind;
  title: string;
  runId: string;
  siteId: string;
  origin: string;
  details: AlertDetails;
}

/** Deterministic key of the alert of one kind for one site in one run; safe as a job id (no `:`, not all digits). */
export function alertDedupeKey(runId: string, siteId: string | number, kind: AlertKind): string {
  const hash = createHash('sha256').update(JSON.stringify([runId, String(siteId), kind])).digest('hex');
  return `${kind}-${hash.slice(0, 32)}`;
}

const OUTCOME_LABEL: Readonly<Record<FetchOutcome, string>> = {
  ok: '2xx',
  unavailable: '4xx',
  rate_limited: '429',
  server_error: '5xx',
  network_error: 'network failure',
  redirect_limit: 'too many redirects',
  night_failed: 'night not stored',
  challenged: 'bot challenge',
};

export function outcomeLabel(outcome: FetchOutcome | null): string {
  return outcome === null ? 'none' : OUTCOME_LABEL[outcome];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function flipDetails(flips: readonly VerdictFlip[]): Pick<AlertDetails, 'flips' | 'flipsTotal'> {
  const sorted = [...flips].sort((a, b) => a.url.localeCompare(b.url) || a.agent.localeCompare(b.agent));
  return {
    flips: sorted.slice(0, MAX_FLIPS_PER_ALERT).map((f) => ({
      url: f.url,
      agent: f.agent,
      agentFamily: f.agentFamily,
      isRoot: f.isRoot,
      from: f.from,
      to: f.to,
      cause: f.cause,
      ruleBefore: f.ruleBefore,
      ruleAfter: f.ruleAfter,
    })),
    flipsTotal: flips.length,
  };
}

const distinct = (values: readonly string[]) => [...new Set(values)];

/** The alerts of one site for one run, most severe first (the order of `ALERT_RULES`). */
export function alertsForSiteNight(input: SiteNightInput): AlertDraft[] {
  const { runId, origin, change } = input;
  const siteId = String(input.siteId);
  const out: AlertDraft[] = [];
  // Every alert within its limits, whatever its kind put in it (size-limits.ts).
  const add = (kind: AlertKind, title: string, details: AlertDetails, severity: AlertSeverity = SEVERITY_OF[kind]) =>
    out.push({ dedupeKey: alertDedupeKey(runId, siteId, kind), severity, kind, title: boundTitle(title), runId, siteId, origin, details: boundAlertDetails(details) });

  const firstNight = change.policyFrom === null;
  const policy: AlertDetails['policy'] = {
    from: change.policyFrom,
    to: change.policyTo,
    reason: change.policyReasonTo,
    outcomeFrom: change.outcomeFrom,
    outcomeTo: change.outcomeTo,
  };
  const flips = firstNight ? [] : input.flips.filter((f) => f.from !== null && f.from !== f.to);
  const policyChanged = change.policyFrom !== change.policyTo;

  // Policy transitions (the flips of such a night are theirs).
  const unreachable =
    change.policyTo === 'disallow_all' && change.policyFrom !== 'disallow_all' && (change.policyReasonTo === 'R-13' || change.policyReasonTo === 'R-15');
  const allowAll4xx =
    !firstNight &&
    policyChanged &&
    change.policyTo === 'allow_all' &&
    (change.policyReasonTo === 'R-12' || change.policyReasonTo === 'D-4' || change.policyReasonTo === 'R-11');
  // 5xx -> 4xx is reported as allow_all_4xx alone.
  const recovered =
    !firstNight && change.policyFrom === 'disallow_all' && change.policyTo !== 'disallow_all' && !allowAll4xx && !change.fallbackStarted;
  const fallbackStarted = !firstNight && change.fallbackStarted;
  const fallbackEnded = !firstNight && change.fallbackEnded;
  const transition = unreachable || allowAll4xx || recovered || fallbackStarted || fallbackEnded;
  // The night's flips go to the first transition alert raised, once.
  let flipsClaimed = false;
  const transitionFlips = (): Pick<AlertDetails, 'flips' | 'flipsTotal'> => {
    if (flipsClaimed || flips.length === 0) return {};
    flipsClaimed = true;
    return flipDetails(flips);
  };

  // Once per streak of failed nights, as site_unreachable is once per outage.
  if (change.outcomeTo === 'night_failed' && change.outcomeFrom !== 'night_failed') {
    add('night_failed', `${origin} could not be audited tonight: its night failed and was not stored`, { policy });
  }
  if (unreachable) {
    add('site_unreachable', `robots.txt unreachable on ${origin} (${outcomeLabel(change.outcomeTo)}): crawlers must not crawl anything`, {
      policy,
      ...transitionFlips(),
    });
  }

  const diff = firstNight ? null : change.rulesDiff;
  const disallowAll = (diff?.agents ?? []).filter((a) => a.disallowAllAdded && CRITICAL_DISALLOW_ALL_TOKENS.includes(a.token));
  if (disallowAll.length > 0) {
    const agents = distinct(disallowAll.flatMap((a) => a.userAgents));
    add('disallow_all_added', `Disallow: / added for ${namesAtMost(agents)} on ${origin}`, {
      agents: listedAtMost(agents, MAX_AGENTS_PER_ALERT, 'user-agents'),
      diffLines: diffLinesOf(describeRobotsDiff(diff!, ['rules'])),
    });
  }

  const searchBlocked = transition ? [] : flips.filter((f) => f.agentFamily === 'search' && f.from === true && !f.to);
  if (searchBlocked.length > 0) {
    const urls = new Set(searchBlocked.map((f) => f.url)).size;
    add('search_url_disallowed', `${plural(urls, 'tracked URL')} now disallowed for search crawlers on ${origin}`, flipDetails(searchBlocked));
  }

  if (diff && change.kinds.includes('rules')) {
    const changed = diff.agents.length + (diff.agentsNotListed ?? 0);
    add('rules_changed', `robots.txt rules changed on ${origin}: ${plural(changed, 'user-agent')} affected`, {
      diffLines: diffLinesOf(describeRobotsDiff(diff, ['rules'])),
      agentsAdded: listedAtMost(diff.agentsAdded, MAX_AGENTS_PER_ALERT, 'user-agents'),
      agentsRemoved: listedAtMost(diff.agentsRemoved, MAX_AGENTS_PER_ALERT, 'user-agents'),
    });
  }

  const gaps = firstNight ? [] : (change.starGapsOpened ?? []);
  if (gaps.length > 0) {
    const crawlers = distinct(gaps.flatMap((g) => g.tokens));
    add('star_rules_bypassed', `${plural(gaps.length, 'path')} disallowed for * now open to ${namesAtMost(crawlers)} on ${origin} (their own group does not repeat them)`, {
      gaps: gaps.slice(0, MAX_FLIPS_PER_ALERT).map((g) => ({
        crawlers: listedAtMost(g.tokens, MAX_AGENTS_PER_ALERT, 'user-agents'),
        path: g.path,
        starLine: g.starLine,
        groupLine: g.groupLine,
      })),
      gapsTotal: gaps.length,
    });
  }

  const ai = transition ? [] : flips.filter((f) => f.agentFamily === 'ai');
  if (ai.length > 0) {
    const blocked = ai.filter((f) => !f.to).length;
    const unblocked = ai.length - blocked;
    add('ai_access_changed', `AI crawler access changed on ${origin}: ${blocked} newly blocked, ${unblocked} unblocked`, flipDetails(ai));
  }

  if (allowAll4xx) {
    add('allow_all_4xx', `robots.txt answers ${outcomeLabel(change.outcomeTo)} on ${origin}: everything may be crawled`, {
      policy,
      ...transitionFlips(),
    });
  }

  const searchAllowed = transition ? [] : flips.filter((f) => f.agentFamily === 'search' && f.from === false && f.to);
  if (searchAllowed.length > 0) {
    const urls = new Set(searchAllowed.map((f) => f.url)).size;
    add('search_url_allowed', `${plural(urls, 'tracked URL')} now allowed for search crawlers on ${origin}`, flipDetails(searchAllowed));
  }

  if (recovered) {
    add('site_recovered', `robots.txt reachable again on ${origin} (${outcomeLabel(change.outcomeTo)})`, { policy, ...transitionFlips() });
  }
  if (fallbackStarted) {
    const what = change.policyTo === 'rules' ? 'the last good copy applies' : 'no good copy: everything may be crawled';
    add('fallback_started', `robots.txt unreachable for more than 30 days on ${origin}: ${what}`, { policy, ...transitionFlips() });
  }
  if (fallbackEnded) {
    add('fallback_ended', `30-day fallback over on ${origin} (${outcomeLabel(change.outcomeTo)})`, { policy, ...transitionFlips() });
  }

  if (diff && change.kinds.includes('sitemaps')) {
    const n = diff.sitemapsAdded.length + diff.sitemapsRemoved.length;
    add('sitemaps_changed', `${plural(n, 'sitemap')} changed on ${origin}`, {
      sitemapsAdded: listedAtMost(diff.sitemapsAdded, MAX_SITEMAPS_PER_ALERT, 'sitemaps'),
      sitemapsRemoved: listedAtMost(diff.sitemapsRemoved, MAX_SITEMAPS_PER_ALERT, 'sitemaps'),
    });
  }
  if (diff && change.kinds.includes('records')) {
    // Each key once: 15,000 groups with a crawl-delay are one key to name.
    add('records_changed', `robots.txt directives changed on ${origin}: ${namesAtMost(distinct(diff.records.map((r) => r.key)))}`, {
      diffLines: diffLinesOf(describeRobotsDiff(recordsShown(diff), ['records'], Infinity)),
    });
  }
  if (!firstNight && change.kinds.includes('comments_only')) {
    add('comments_only', `robots.txt comments or layout changed on ${origin} (no rule changed)`, {});
  }

  const challenge = input.challenge;
  if (challenge?.started) {
    const who = challenge.vendor ? CHALLENGE_VENDOR_NAMES[challenge.vendor] : 'bot protection';
    const ua = challenge.userAgent ?? 'the auditor';
    add('challenge_started', `${who} challenges the auditor on ${origin}: robots.txt unverified, the last known policy stands`, {
      challenge: {
        vendor: challenge.vendor,
        signal: challenge.signal,
        status: challenge.status,
        userAgent: challenge.userAgent,
        since: null,
        action: `Let the User-Agent "${ua}" fetch /robots.txt through ${who} (an allow or skip rule for it, or for /robots.txt).`,
      },
    });
  }
  if (challenge?.ended) {
    add('challenge_ended', `robots.txt answered again on ${origin} (${outcomeLabel(change.outcomeTo)}) after bot challenges`, {
      challenge: { vendor: null, signal: null, status: challenge.status, userAgent: challenge.userAgent, since: challenge.since?.toISOString() ?? null },
      policy,
    });
  }

  const flapping = input.flapping;
  if (flapping?.flapping) {
    const quiet = out.filter((a) => !FLAPPING_QUIET_KINDS.has(a.kind));
    out.length = 0;
    out.push(...quiet);
    const short = (v: RotationVersion) => v.sha256.slice(0, 12);
    if (flapping.event === 'started') {
      // Critical when a version takes a tracked URL or the root away from a search crawler.
      const searchLoss = flapping.differences.some((d) => d.agentFamily === 'search' && Object.values(d.allowedBy).includes(false));
      const why = flapping.cause === 'disagreed' ? 'two answers of one night disagree' : 'it came back to a version of the last nights';
      add(
        'flapping_started',
        `robots.txt flapping on ${origin} between ${plural(flapping.versions.length, 'version')} (${namesAtMost(flapping.versions.map(short))}): ${why}; ${plural(flapping.differences.length, 'verdict')} differ for crawlers`,
        {
          flapping: {
            cause: flapping.cause,
            versions: flapping.versions,
            differences: flapping.differences.slice(0, MAX_FLIPS_PER_ALERT),
            differencesTotal: flapping.differences.length,
            since: flapping.since,
          },
        },
        // Versions that differ only in comments or layout tell crawlers nothing new: info.
        searchLoss ? 'critical' : flapping.rulesDiffer || flapping.differences.length > 0 ? SEVERITY_OF.flapping_started : 'info',
      );
    }
    if (flapping.event === 'settled' && flapping.stayed) {
      add('flapping_settled', `robots.txt settled on ${origin}: version ${short(flapping.stayed)} served since ${flapping.stayed.firstSeen.slice(0, 10)}`, {
        flapping: { cause: null, versions: flapping.versions, stayed: flapping.stayed, since: flapping.since },
      });
    }
  }
  return out;
}
