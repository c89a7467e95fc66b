/**
 * The alerts of a night, as the night's contract: what the alert rules read
 * (`NightForAlerts`: the change, the policy transitions, the flips, challenges and flapping the
 * night computed) and what they raise (`AlertDraft`, stored in `alerts` and sent by the alerts
 * worker). The rules themselves: src/services/alerting/alert-rules.ts.
 */
import type { ChallengeVendor } from '../http/challenge.js';
import type { FetchOutcome, PolicyKind, PolicyReason } from '../policy/index.js';
import type { RobotsChangeKind, RobotsDiff } from '../robots/diff.js';
import type { StarRuleGap } from '../robots/star-rule-gaps.js';
import type { RuleKind } from '../robots/types.js';
import type { UsageRule } from './input.js';
import type { AgentFamily, AlertKind, AlertSeverity, StoredPreference, UsagePurpose } from './vocabulary.js';

/** A rule as an alert cites it (a flip's stored rule, FlipRule in rows.ts, also keeps its pattern). */
export interface CitedRule {
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
  ruleBefore: CitedRule | null;
  ruleAfter: CitedRule | null;
}

/** A usage preference of a tracked URL for a tracked agent that changed tonight (the URL fetchable both nights). */
export interface UsageFlip {
  url: string;
  agent: string;
  agentFamily: AgentFamily;
  isRoot: boolean;
  purpose: UsagePurpose;
  from: StoredPreference;
  to: StoredPreference;
  ruleBefore: UsageRule | null;
  ruleAfter: UsageRule | null;
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
  /** `*` Disallow paths a named crawler's group leaves open tonight that it did not before. */
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

/**
 * A policy transition of the night (computed once, src/services/night/transitions.ts): such a
 * night's flips are explained by it, listed in its alert and raise no alert of their own.
 */
export interface PolicyTransitions {
  /** The site's first night: a baseline, nothing changed. */
  firstNight: boolean;
  /** The night could not be computed or stored, and the one before could (once per streak). */
  nightFailed: boolean;
  /** Full disallow from a 5xx or a failed fetch. */
  unreachable: boolean;
  /** Full allow from a 4xx, a 429 or too many redirects (R-12, D-4, R-11). */
  allowAll4xx: boolean;
  /** Out of a full disallow, but not into allow_all_4xx or the fallback. */
  recovered: boolean;
  /** D-3: the 30-day fallback came into force, or stopped applying. */
  fallbackStarted: boolean;
  fallbackEnded: boolean;
}

/** What the alert rules read: the night's change, its transitions, flips, challenge and flapping. */
export interface NightForAlerts {
  runId: string;
  siteId: string | number;
  origin: string;
  change: SiteNightChange;
  transitions: PolicyTransitions;
  flips: readonly VerdictFlip[];
  /** Usage preferences that changed (none when nothing was evaluated). */
  usageFlips?: readonly UsageFlip[];
  challenge?: ChallengeChange;
  flapping?: FlappingChange;
}

/**
 * JSON-ready details; which fields are set depends on the kind. Every list is bounded
 * (size-limits.ts): a list of strings cut at its limit ends with `… and N more <what>`, a list of
 * objects has its count of all beside (`flipsTotal`); every string is at most
 * MAX_DETAIL_TEXT_CHARS, and the whole at most MAX_ALERT_DETAILS_BYTES.
 */
export interface AlertDetails {
  /** Flips listed by this alert (at most `MAX_FLIPS_PER_ALERT`). */
  flips?: VerdictFlip[];
  /** How many flips there were in all. */
  flipsTotal?: number;
  /** The usage preferences of this alert's kind that changed (at most `MAX_FLIPS_PER_ALERT`), and how many in all. */
  usageFlips?: UsageFlip[];
  usageFlipsTotal?: number;
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
   * `crawler_ignored_robots` / `crawler_spoofed` (raised by a log import): the crawler, its
   * requests that night, and the first of them (at most `MAX_COMPLIANCE_EXAMPLES_PER_ALERT`) with the deciding
   * line (a spoofed claim: the address it came from).
   */
  compliance?: {
    crawler: string;
    requests: number;
    firstAt: string;
    lastAt: string;
    examples: { url: string; at: string; rule: string | null; ip?: string }[];
  };
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
