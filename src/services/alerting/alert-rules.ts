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
 * | info     | `ai_training_refused`   | a tracked URL's AI-training preference becomes refused (Content-Signal         |
 * |          |                         | `ai-train=no`, Content-Usage `train-ai=n`) for a crawler that may fetch it     |
 * | warning  | `ai_training_allowed`   | ... becomes allowed (`ai-train=yes`, `train-ai=y`)                             |
 * | info     | `ai_input_refused`      | the AI-input preference (`ai-input=no`, `ai-use=n`) becomes refused            |
 * | warning  | `ai_input_allowed`      | ... becomes allowed                                                            |
 * | warning  | `search_use_refused`    | the search preference (`search=no`, `search=n`) becomes refused                |
 * | info     | `search_use_allowed`    | ... becomes allowed                                                            |
 * | info     | `usage_preference_withdrawn` | a stated preference is stated no more (unknown)                           |
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
 * - Usage preferences (docs/usage-preferences.md, D-15): a change counts only for a URL the
 *   crawler may fetch on both nights (otherwise the crawl verdict's flip says it); a night with a
 *   policy transition or a flapping spell raises none (the transition explains it, the spell
 *   comes and goes). One alert per kind lists every URL x agent of that change.
 * - Challenges: one alert when they start (raised on a site's first night too: the user can act
 *   on it), one when they end; a challenged night changes no policy, so it raises nothing else.
 * - Size: an alert is a message, and a robots.txt of 500 KiB may change 8,000 sitemaps or
 *   15,000 agents at once. Every list of its details is listed up to a limit and the rest counted,
 *   its title names up to MAX_TITLE_NAMES, and its details as a whole stay under
 *   MAX_ALERT_DETAILS_BYTES (size-limits.ts, alert-bounds.ts). The night's full diff is stored with
 *   its change.
 */
import { createHash } from 'node:crypto';
import type { FetchOutcome } from '../../policy/index.js';
import type { RobotsDiff } from '../../robots/diff.js';
import { describeRobotsDiff } from '../../robots/diff.js';
import { CHALLENGE_VENDOR_NAMES } from '../../http/challenge.js';
import type { AlertDetails, AlertDraft, NightForAlerts, PolicyTransitions, RotationVersion, UsageFlip, VerdictFlip } from '../../night/alerts.js';
import type { AlertKind, AlertSeverity, UsagePurpose } from '../../night/vocabulary.js';
import { USAGE_PURPOSE_LABELS } from '../../robots/usage/vocabulary.js';
import { boundAlertDetails, boundTitle, clipText, listedAtMost, namesAtMost } from './alert-bounds.js';
import { MAX_AGENTS_PER_ALERT, MAX_DIFF_LINE_CHARS, MAX_DIFF_LINES_PER_ALERT, MAX_FLIPS_PER_ALERT, MAX_RECORD_VALUES_PER_LINE, MAX_SITEMAPS_PER_ALERT } from './size-limits.js';

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
  {
    kind: 'ai_training_refused',
    severity: 'info',
    when: 'A tracked URL a crawler may fetch is now refused for AI training (Content-Signal `ai-train=no`, Content-Usage `train-ai=n`).',
    spec: ['D-7', 'D-11', 'D-15'],
  },
  {
    kind: 'ai_training_allowed',
    severity: 'warning',
    when: 'A tracked URL a crawler may fetch is now allowed for AI training (`ai-train=yes`, `train-ai=y`).',
    spec: ['D-7', 'D-11', 'D-15'],
  },
  {
    kind: 'ai_input_refused',
    severity: 'info',
    when: 'A tracked URL a crawler may fetch is now refused as AI input: grounding, RAG, generative answers (`ai-input=no`, `ai-use=n`).',
    spec: ['D-7', 'D-11', 'D-15'],
  },
  { kind: 'ai_input_allowed', severity: 'warning', when: 'A tracked URL a crawler may fetch is now allowed as AI input (`ai-input=yes`, `ai-use=y`).', spec: ['D-7', 'D-11', 'D-15'] },
  { kind: 'search_use_refused', severity: 'warning', when: 'A tracked URL a crawler may fetch is now refused for search (`search=no`, `search=n`).', spec: ['D-7', 'D-11', 'D-15'] },
  { kind: 'search_use_allowed', severity: 'info', when: 'A tracked URL a crawler may fetch is now allowed for search (`search=yes`, `search=y`).', spec: ['D-7', 'D-11', 'D-15'] },
  {
    kind: 'usage_preference_withdrawn',
    severity: 'info',
    when: 'A usage preference a tracked URL was given (allowed or refused) is stated no more: unknown.',
    spec: ['D-7', 'D-15'],
  },
  {
    kind: 'crawler_ignored_robots',
    severity: 'warning',
    when: "A server log shows a verified crawler fetching URLs the robots.txt in force disallowed it, past the 24-hour cache window (one alert a site, crawler and night; raised by `logs import`).",
    spec: ['R-40'],
  },
  {
    kind: 'crawler_spoofed',
    severity: 'info',
    when: "A server log shows requests claiming a crawler from addresses its operator's published check rejects (one alert a site, crawler and night; raised by `logs import`).",
    spec: [],
  },
] as const satisfies readonly AlertRule[];

/** The usage-preference alerts: the kind a change raises, by purpose and new preference (D-15). */
const USAGE_KIND = {
  'ai-train': { refused: 'ai_training_refused', allowed: 'ai_training_allowed' },
  'ai-input': { refused: 'ai_input_refused', allowed: 'ai_input_allowed' },
  search: { refused: 'search_use_refused', allowed: 'search_use_allowed' },
} as const satisfies Record<UsagePurpose, Record<'refused' | 'allowed', AlertKind>>;

/** The kind a usage preference's change raises. */
export function usageAlertKind(flip: Pick<UsageFlip, 'purpose' | 'to'>): AlertKind {
  return flip.to === 'unknown' ? 'usage_preference_withdrawn' : USAGE_KIND[flip.purpose][flip.to];
}

const USAGE_ALERT_KINDS: readonly AlertKind[] = [...Object.values(USAGE_KIND).flatMap((k) => [k.refused, k.allowed]), 'usage_preference_withdrawn'];

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
  ...USAGE_ALERT_KINDS,
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

/**
 * Deterministic key of the alert of one kind for one site in one run (and what else tells its
 * alerts apart: a log import's crawler); safe as a job id (no `:`, not all digits).
 */
export function alertDedupeKey(runId: string, siteId: string | number, kind: AlertKind, ...apart: string[]): string {
  const hash = createHash('sha256').update(JSON.stringify([runId, String(siteId), kind, ...apart])).digest('hex');
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

/** What a rule finds on a night: the alert's title and details, and its severity when it is not the kind's own. */
interface Detected {
  title: string;
  details: AlertDetails;
  severity?: AlertSeverity;
}

/**
 * The night as the rules read it: what it computed, with the flips that count (none on a first
 * night, only those with a previous verdict that changed), the diff (none on a first night), the
 * policy move, and which transition alert lists the night's flips (the first one raised).
 */
interface RuleContext extends NightForAlerts {
  flips: readonly VerdictFlip[];
  diff: RobotsDiff | null;
  policy: NonNullable<AlertDetails['policy']>;
  transition: boolean;
  flipsOwner: AlertKind | null;
}

/** An alert rule: its kind, and what it finds on a night (null: nothing to raise). */
export interface AlertDetector {
  kind: AlertKind;
  detect(night: RuleContext): Detected | null;
}

/** The transition alerts, in the order they are raised; the first one raised lists the night's flips. */
const TRANSITION_KINDS = [
  ['site_unreachable', 'unreachable'],
  ['allow_all_4xx', 'allowAll4xx'],
  ['site_recovered', 'recovered'],
  ['fallback_started', 'fallbackStarted'],
  ['fallback_ended', 'fallbackEnded'],
] as const satisfies readonly (readonly [AlertKind, keyof PolicyTransitions])[];

const transitionDetails = (night: RuleContext, kind: AlertKind): AlertDetails => ({
  policy: night.policy,
  ...(night.flipsOwner === kind && night.flips.length > 0 ? flipDetails(night.flips) : {}),
});

const NO_FLIPS: readonly VerdictFlip[] = [];
// Most nights flip nothing: no list is filtered, or allocated, for them.
const flipsOf = (night: RuleContext, keep: (f: VerdictFlip) => boolean) => (night.transition || night.flips.length === 0 ? NO_FLIPS : night.flips.filter(keep));

const urlsIn = (flips: readonly { url: string }[]) => new Set(flips.map((f) => f.url)).size;

/** The rules, in the order their alerts come out (most severe first, as ALERT_RULES lists them, but for two). */
export const ALERT_DETECTORS: readonly AlertDetector[] = [
  {
    kind: 'night_failed',
    detect: (n) => (n.transitions.nightFailed ? { title: `${n.origin} could not be audited tonight: its night failed and was not stored`, details: { policy: n.policy } } : null),
  },
  {
    kind: 'site_unreachable',
    detect: (n) =>
      n.transitions.unreachable
        ? { title: `robots.txt unreachable on ${n.origin} (${outcomeLabel(n.change.outcomeTo)}): crawlers must not crawl anything`, details: transitionDetails(n, 'site_unreachable') }
        : null,
  },
  {
    kind: 'disallow_all_added',
    detect: (n) => {
      if (n.diff === null) return null;
      const disallowAll = n.diff.agents.filter((a) => a.disallowAllAdded && CRITICAL_DISALLOW_ALL_TOKENS.includes(a.token));
      if (disallowAll.length === 0) return null;
      const agents = distinct(disallowAll.flatMap((a) => a.userAgents));
      return {
        title: `Disallow: / added for ${namesAtMost(agents)} on ${n.origin}`,
        details: { agents: listedAtMost(agents, MAX_AGENTS_PER_ALERT, 'user-agents'), diffLines: diffLinesOf(describeRobotsDiff(n.diff!, ['rules'])) },
      };
    },
  },
  {
    kind: 'search_url_disallowed',
    detect: (n) => {
      const blocked = flipsOf(n, (f) => f.agentFamily === 'search' && f.from === true && !f.to);
      return blocked.length === 0 ? null : { title: `${plural(urlsIn(blocked), 'tracked URL')} now disallowed for search crawlers on ${n.origin}`, details: flipDetails(blocked) };
    },
  },
  {
    kind: 'rules_changed',
    detect: ({ diff, change, origin }) => {
      if (!diff || !change.kinds.includes('rules')) return null;
      const changed = diff.agents.length + (diff.agentsNotListed ?? 0);
      return {
        title: `robots.txt rules changed on ${origin}: ${plural(changed, 'user-agent')} affected`,
        details: {
          diffLines: diffLinesOf(describeRobotsDiff(diff, ['rules'])),
          agentsAdded: listedAtMost(diff.agentsAdded, MAX_AGENTS_PER_ALERT, 'user-agents'),
          agentsRemoved: listedAtMost(diff.agentsRemoved, MAX_AGENTS_PER_ALERT, 'user-agents'),
        },
      };
    },
  },
  {
    kind: 'star_rules_bypassed',
    detect: (n) => {
      const gaps = n.change.starGapsOpened;
      if (n.transitions.firstNight || gaps === undefined || gaps.length === 0) return null;
      const crawlers = distinct(gaps.flatMap((g) => g.tokens));
      return {
        title: `${plural(gaps.length, 'path')} disallowed for * now open to ${namesAtMost(crawlers)} on ${n.origin} (their own group does not repeat them)`,
        details: {
          gaps: gaps.slice(0, MAX_FLIPS_PER_ALERT).map((g) => ({ crawlers: listedAtMost(g.tokens, MAX_AGENTS_PER_ALERT, 'user-agents'), path: g.path, starLine: g.starLine, groupLine: g.groupLine })),
          gapsTotal: gaps.length,
        },
      };
    },
  },
  {
    kind: 'ai_access_changed',
    detect: (n) => {
      const ai = flipsOf(n, (f) => f.agentFamily === 'ai');
      if (ai.length === 0) return null;
      const blocked = ai.filter((f) => !f.to).length;
      return { title: `AI crawler access changed on ${n.origin}: ${blocked} newly blocked, ${ai.length - blocked} unblocked`, details: flipDetails(ai) };
    },
  },
  {
    kind: 'allow_all_4xx',
    detect: (n) =>
      n.transitions.allowAll4xx
        ? { title: `robots.txt answers ${outcomeLabel(n.change.outcomeTo)} on ${n.origin}: everything may be crawled`, details: transitionDetails(n, 'allow_all_4xx') }
        : null,
  },
  {
    kind: 'search_url_allowed',
    detect: (n) => {
      const allowed = flipsOf(n, (f) => f.agentFamily === 'search' && f.from === false && f.to);
      return allowed.length === 0 ? null : { title: `${plural(urlsIn(allowed), 'tracked URL')} now allowed for search crawlers on ${n.origin}`, details: flipDetails(allowed) };
    },
  },
  {
    kind: 'site_recovered',
    detect: (n) =>
      n.transitions.recovered ? { title: `robots.txt reachable again on ${n.origin} (${outcomeLabel(n.change.outcomeTo)})`, details: transitionDetails(n, 'site_recovered') } : null,
  },
  {
    kind: 'fallback_started',
    detect: (n) => {
      if (!n.transitions.fallbackStarted) return null;
      const what = n.change.policyTo === 'rules' ? 'the last good copy applies' : 'no good copy: everything may be crawled';
      return { title: `robots.txt unreachable for more than 30 days on ${n.origin}: ${what}`, details: transitionDetails(n, 'fallback_started') };
    },
  },
  {
    kind: 'fallback_ended',
    detect: (n) =>
      n.transitions.fallbackEnded ? { title: `30-day fallback over on ${n.origin} (${outcomeLabel(n.change.outcomeTo)})`, details: transitionDetails(n, 'fallback_ended') } : null,
  },
  {
    kind: 'sitemaps_changed',
    detect: ({ diff, change, origin }) =>
      diff && change.kinds.includes('sitemaps')
        ? {
            title: `${plural(diff.sitemapsAdded.length + diff.sitemapsRemoved.length, 'sitemap')} changed on ${origin}`,
            details: {
              sitemapsAdded: listedAtMost(diff.sitemapsAdded, MAX_SITEMAPS_PER_ALERT, 'sitemaps'),
              sitemapsRemoved: listedAtMost(diff.sitemapsRemoved, MAX_SITEMAPS_PER_ALERT, 'sitemaps'),
            },
          }
        : null,
  },
  {
    kind: 'records_changed',
    // Each key once: 15,000 groups with a crawl-delay are one key to name.
    detect: ({ diff, change, origin }) =>
      diff && change.kinds.includes('records')
        ? {
            title: `robots.txt directives changed on ${origin}: ${namesAtMost(distinct(diff.records.map((r) => r.key)))}`,
            details: { diffLines: diffLinesOf(describeRobotsDiff(recordsShown(diff), ['records'], Infinity)) },
          }
        : null,
  },
  {
    kind: 'comments_only',
    detect: (n) =>
      !n.transitions.firstNight && n.change.kinds.includes('comments_only') ? { title: `robots.txt comments or layout changed on ${n.origin} (no rule changed)`, details: {} } : null,
  },
  {
    kind: 'challenge_started',
    detect: ({ challenge, origin }) => {
      if (!challenge?.started) return null;
      const who = challenge.vendor ? CHALLENGE_VENDOR_NAMES[challenge.vendor] : 'bot protection';
      const ua = challenge.userAgent ?? 'the auditor';
      const action = `Let the User-Agent "${ua}" fetch /robots.txt through ${who} (an allow or skip rule for it, or for /robots.txt).`;
      return {
        title: `${who} challenges the auditor on ${origin}: robots.txt unverified, the last known policy stands`,
        details: { challenge: { vendor: challenge.vendor, signal: challenge.signal, status: challenge.status, userAgent: challenge.userAgent, since: null, action } },
      };
    },
  },
  {
    kind: 'challenge_ended',
    detect: ({ challenge, change, origin, policy }) =>
      challenge?.ended
        ? {
            title: `robots.txt answered again on ${origin} (${outcomeLabel(change.outcomeTo)}) after bot challenges`,
            details: { challenge: { vendor: null, signal: null, status: challenge.status, userAgent: challenge.userAgent, since: challenge.since?.toISOString() ?? null }, policy },
          }
        : null,
  },
  { kind: 'flapping_started', detect: flappingStarted },
  ...USAGE_ALERT_KINDS.map((kind) => ({ kind, detect: (n: RuleContext) => usageChanged(n, kind) })),
  {
    kind: 'flapping_settled',
    detect: ({ flapping, origin }) =>
      flapping?.flapping && flapping.event === 'settled' && flapping.stayed
        ? {
            title: `robots.txt settled on ${origin}: version ${shortSha(flapping.stayed)} served since ${flapping.stayed.firstSeen.slice(0, 10)}`,
            details: { flapping: { cause: null, versions: flapping.versions, stayed: flapping.stayed, since: flapping.since } },
          }
        : null,
  },
];

/** The detectors a night with no usage change runs: the usage rules could find nothing on it. */
const DETECTORS_BUT_USAGE: readonly AlertDetector[] = ALERT_DETECTORS.filter((d) => !USAGE_ALERT_KINDS.includes(d.kind));

const shortSha = (v: RotationVersion) => v.sha256.slice(0, 12);


/** One usage alert of `kind`: every URL x agent whose preference changed that way tonight (D-15). */
function usageChanged(n: RuleContext, kind: AlertKind): Detected | null {
  if (n.transition || n.usageFlips === undefined || n.usageFlips.length === 0) return null;
  const flips = n.usageFlips.filter((f) => usageAlertKind(f) === kind);
  if (flips.length === 0) return null;
  const purposes = distinct(flips.map((f) => USAGE_PURPOSE_LABELS[f.purpose]));
  const state = kind === 'usage_preference_withdrawn' ? 'no longer stated' : (flips[0] as UsageFlip).to;
  const lines = distinct(flips.flatMap((f) => (f.ruleAfter ? [`line ${f.ruleAfter.line}: ${clipText(f.ruleAfter.value, MAX_DIFF_LINE_CHARS)}`] : [])));
  const sorted = [...flips].sort((a, b) => a.url.localeCompare(b.url) || a.agent.localeCompare(b.agent) || a.purpose.localeCompare(b.purpose));
  return {
    title: `${namesAtMost(purposes)} ${state} on ${n.origin}: ${plural(urlsIn(flips), 'tracked URL')}${lines.length > 0 ? ` (${namesAtMost(lines)})` : ''}`,
    details: { usageFlips: sorted.slice(0, MAX_FLIPS_PER_ALERT), usageFlipsTotal: flips.length },
  };
}

function flappingStarted({ flapping, origin }: RuleContext): Detected | null {
  if (!flapping?.flapping || flapping.event !== 'started') return null;
  // Critical when a version takes a tracked URL or the root away from a search crawler.
  const searchLoss = flapping.differences.some((d) => d.agentFamily === 'search' && Object.values(d.allowedBy).includes(false));
  const why = flapping.cause === 'disagreed' ? 'two answers of one night disagree' : 'it came back to a version of the last nights';
  return {
    title: `robots.txt flapping on ${origin} between ${plural(flapping.versions.length, 'version')} (${namesAtMost(flapping.versions.map(shortSha))}): ${why}; ${plural(flapping.differences.length, 'verdict')} differ for crawlers`,
    details: {
      flapping: {
        cause: flapping.cause,
        versions: flapping.versions,
        differences: flapping.differences.slice(0, MAX_FLIPS_PER_ALERT),
        differencesTotal: flapping.differences.length,
        since: flapping.since,
      },
    },
    // Versions that differ only in comments or layout tell crawlers nothing new: info.
    severity: searchLoss ? 'critical' : flapping.rulesDiffer || flapping.differences.length > 0 ? SEVERITY_OF.flapping_started : 'info',
  };
}

/** The alerts of one site for one run, in the order of ALERT_DETECTORS; a flapping night's quiet kinds raise nothing. */
export function alertsForSiteNight(night: NightForAlerts): AlertDraft[] {
  const { runId, origin, change, transitions } = night;
  const siteId = String(night.siteId);
  const flipsOwner = TRANSITION_KINDS.find((pair) => transitions[pair[1]])?.[0] ?? null;
  // Field by field, not `...night`: V8 copies a spread object on a slow path, 4 µs a night here.
  const context: RuleContext = {
    runId,
    siteId: night.siteId,
    origin,
    change,
    transitions,
    challenge: night.challenge,
    flapping: night.flapping,
    usageFlips: transitions.firstNight ? undefined : night.usageFlips,
    flips: transitions.firstNight || night.flips.length === 0 ? NO_FLIPS : night.flips.filter((f) => f.from !== null && f.from !== f.to),
    diff: transitions.firstNight ? null : change.rulesDiff,
    policy: { from: change.policyFrom, to: change.policyTo, reason: change.policyReasonTo, outcomeFrom: change.outcomeFrom, outcomeTo: change.outcomeTo },
    transition: flipsOwner !== null,
    flipsOwner,
  };
  const quiet = night.flapping?.flapping === true;
  const out: AlertDraft[] = [];
  // Most nights change no usage preference: their rules are not even asked.
  const detectors = context.usageFlips !== undefined && context.usageFlips.length > 0 ? ALERT_DETECTORS : DETECTORS_BUT_USAGE;
  for (const rule of detectors) {
    if (quiet && FLAPPING_QUIET_KINDS.has(rule.kind)) continue;
    const found = rule.detect(context);
    if (found === null) continue;
    // Every alert within its limits, whatever its kind put in it (size-limits.ts).
    out.push({
      dedupeKey: alertDedupeKey(runId, siteId, rule.kind),
      severity: found.severity ?? SEVERITY_OF[rule.kind],
      kind: rule.kind,
      title: boundTitle(found.title),
      runId,
      siteId,
      origin,
      details: boundAlertDetails(found.details),
    });
  }
  return out;
}
