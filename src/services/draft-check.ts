/**
 * A draft robots.txt against the one in force, as the nightly run would see the draft the night
 * after it is deployed (pure, no I/O): the verdicts that would flip for every tracked URL x
 * agent and for the root of every catalogued crawler, each with its deciding line before and
 * after, the usage preferences (Content-Signal, Content-Usage: docs/usage-preferences.md) the draft
 * would change for every tracked URL x agent, the alerts the night would raise and so how severe
 * each flip is, the rules each crawler gains and loses, the `*` paths newly left open to a named crawler, the draft's lint findings
 * and its size against the cut crawlers apply.
 *
 * Nothing here decides anything of its own: verdicts come from the nightly evaluator
 * (`policyEvaluator`, R-42 included), the change from the engine's diffs, and severities from the
 * nightly alert rules (`alertsForSiteNight`), fed the night the deploy would make: the draft
 * fetched with a 2xx, compared with the last body fetched OK and with the policy in force.
 */
import { crawlersToCompare, diffCrawlerRules } from '../crawlers/crawler-diff.js';
import type { CrawlerRuleChange } from '../crawlers/crawler-diff.js';
import { diffRobotsTxt, isMatchEverythingPattern, unifiedTextDiff } from '../robots/diff.js';
import type { RobotsChangeKind, RobotsDiff } from '../robots/diff.js';
import { lintAndParse, lintRobotsTxt } from '../robots/lint.js';
import { parseRobotsTxt } from '../robots/parse.js';
import type { RobotsTxt } from '../robots/parse.js';
import type { SelectedGroup } from '../robots/selected-group.js';
import { followedGroup } from '../crawlers/followed-group.js';
import { lintWithCrawlers } from '../crawlers/usage-lint.js';
import { openedStarRuleGaps, starRuleGaps } from '../robots/star-rule-gaps.js';
import type { StarRuleGap } from '../robots/star-rule-gaps.js';
import type { Diagnostic } from '../robots/types.js';
import type { FetchOutcome, PolicyKind, PolicyReason } from '../policy/index.js';
import type { CrawlerCategory } from '../crawlers/index.js';
import { policyTransitions } from './night/transitions.js';
import { statedLine, storedPreference } from './night/usage.js';
import { alertsForSiteNight, CRITICAL_DISALLOW_ALL_TOKENS, SEVERITY_OF, usageAlertKind } from './alerting/alert-rules.js';
import type { AgentFamily, AlertKind, AlertSeverity, StoredPreference, UsagePurpose } from '../night/vocabulary.js';
import type { AlertDetails, CitedRule, PolicyTransitions, SiteNightChange, UsageFlip, VerdictFlip } from '../night/alerts.js';
import type { UsageRule } from '../night/input.js';
import { SEVERITIES, USAGE_PURPOSES } from '../night/vocabulary.js';
import type { PurposeAnswer } from '../robots/index.js';
import { policyEvaluator } from './policy-evaluator.js';
import type { PolicyEvaluator, PolicyVerdict } from './policy-evaluator.js';

/** A crawler a verdict is asked for. */
export interface DraftAgent {
  /** Its product token as configured (`Googlebot`). */
  token: string;
  /** What the alert rules read (`user_agents.family`). */
  family: AgentFamily;
  /** The crawler catalogue's category, when it lists the crawler. */
  category: CrawlerCategory | null;
}

/** A tracked URL (canonical, D-5) and the agents the nightly run evaluates it for. */
export interface DraftTarget {
  url: string;
  isRoot: boolean;
  agents: readonly DraftAgent[];
}

/** What crawlers apply now: the site's latest night as the nightly run left it. */
export interface CurrentRobots {
  outcome: FetchOutcome;
  policy: PolicyKind;
  policyReason: PolicyReason;
  /** The body whose rules apply (policy `rules`: the latest, or the copy of D-3). */
  rulesBody: Uint8Array | null;
  /** The last body fetched with a 2xx: the nightly run compares a new body with it. */
  lastGoodBody: Uint8Array | null;
}

export interface DraftCheckInput {
  origin: string;
  current: CurrentRobots;
  /** The draft's bytes, whole. */
  draft: Uint8Array;
  /** Bytes a fetch keeps (ROBOTS_AUDIT_MAX_BODY_BYTES, R-18): crawlers ignore the rest. */
  maxBodyBytes: number;
  /** The site's tracked URLs (its root among them) with their agents. */
  targets: readonly DraftTarget[];
  /** Crawlers whose verdict at the root is compared too: the catalogue. */
  rootCrawlers: readonly DraftAgent[];
  /** Crawlers the per-crawler diff shows beside `*` and those either file names (the default agents). */
  diffCrawlers: readonly string[];
  /** The least severe alert that fails the check. */
  failOn: AlertSeverity;
}

export interface DraftFlip {
  url: string;
  isRoot: boolean;
  crawler: string;
  family: AgentFamily;
  category: CrawlerCategory | null;
  /** Whether the nightly run evaluates this URL for this agent (false: a catalogued crawler at the root only). */
  tracked: boolean;
  before: boolean;
  after: boolean;
  /** The deciding line in force now (in the current file) and in the draft; null when no rule decides. */
  ruleBefore: CitedRule | null;
  ruleAfter: CitedRule | null;
  /** The nightly alert that would list this flip; null for families that raise none of their own. */
  alert: { kind: AlertKind; severity: AlertSeverity } | null;
}

/** The line that states a usage preference, as a verdict span keeps it (a draft has no night, so no `since`). */
export type DraftUsageRule = Omit<UsageRule, 'since'>;

/**
 * A usage preference the draft would change for a tracked URL x agent, as the night after the
 * deploy would record it: only where the crawler may fetch the URL under both files (D-15:
 * otherwise the verdict's flip says it).
 */
export interface DraftUsageFlip {
  url: string;
  isRoot: boolean;
  crawler: string;
  family: AgentFamily;
  category: CrawlerCategory | null;
  purpose: UsagePurpose;
  before: StoredPreference;
  after: StoredPreference;
  /** The deciding line in force now and in the draft; null when nothing states the preference. */
  ruleBefore: DraftUsageRule | null;
  ruleAfter: DraftUsageRule | null;
  /** The nightly alert that would list it; null when the night raises none (a policy transition explains it). */
  alert: { kind: AlertKind; severity: AlertSeverity } | null;
}

/** An alert the night after the deploy would raise (the nightly rules, without run and site). */
export interface DraftAlert {
  kind: AlertKind;
  severity: AlertSeverity;
  title: string;
  details: AlertDetails;
  /** It says who may crawl what, or use it for what (flips, a new `Disallow: /`, an opened `*` path, a usage preference changed): it can fail the check. */
  aboutAccess: boolean;
  /** At or above the check's `failOn` and about access. */
  failing: boolean;
  /** The draft's lines it stands for (the deciding lines of its flips, the `Disallow: /` added, the groups that leave a `*` path open). */
  lines: number[];
}

export interface DraftReport {
  origin: string;
  current: { outcome: FetchOutcome; policy: PolicyKind; policyReason: PolicyReason; bytes: number | null };
  size: {
    bytes: number;
    /** The cut. */
    limit: number;
    /** Bytes past the cut, which crawlers ignore (0 when it fits). */
    ignored: number;
  };
  /** How the draft differs from the last body fetched OK (`identical`: the same bytes). */
  kinds: RobotsChangeKind[];
  /** The semantic diff against the last body fetched OK (R-23, R-24, R-34, R-35, T49). */
  semantic: RobotsDiff;
  textDiff: string;
  flips: DraftFlip[];
  /** The usage preferences the draft changes (tracked URLs x their agents, per purpose). */
  usageFlips: DraftUsageFlip[];
  /** How many verdicts were compared (URL x agent pairs). */
  compared: number;
  alerts: DraftAlert[];
  /** Every crawler of the per-crawler diff, changed or not. */
  crawlers: CrawlerRuleChange[];
  /** Crawlers left out of `crawlers` past MAX_CRAWLERS_COMPARED (the files' own, in file order). */
  crawlersNotCompared: number;
  /** `*` Disallow paths the draft leaves open to a named crawler that the file in force did not (R-40, T26). */
  starGapsOpened: StarRuleGap[];
  /** The draft's lint findings (the whole draft: content past the cut is one of them). */
  lint: Diagnostic[];
  failOn: AlertSeverity;
  /** The draft would raise an access alert at or above `failOn`. */
  failing: boolean;
}

/** Whether `severity` is at least as severe as `min`. */
export function atLeast(severity: AlertSeverity, min: AlertSeverity): boolean {
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(min);
}

/**
 * An alert that says who may crawl what, or what a crawler may use a page for: it lists flips or
 * usage preferences changed, names agents that got `Disallow: /`, or paths of `*` opened to a crawler. Read from the alert's own data, so a kind added to the
 * rules later is judged the same way; alerts that only describe the text (rules changed, a
 * sitemap, a record, comments) never fail the check.
 */
export function isAccessAlert(details: AlertDetails): boolean {
  return (details.flips?.length ?? 0) > 0 || (details.agents?.length ?? 0) > 0 || (details.gaps?.length ?? 0) > 0 || (details.usageFlips?.length ?? 0) > 0;
}

const lower = (token: string) => token.toLowerCase();

/** A URL and an agent whose verdict is compared. */
interface EvaluatedPair {
  url: string;
  isRoot: boolean;
  agent: DraftAgent;
  tracked: boolean;
}

/** Each target with the catalogue's crawlers added at the root, each agent once (T15: tokens compare lower-case). */
function evaluatedPairs(targets: readonly DraftTarget[], rootCrawlers: readonly DraftAgent[]): EvaluatedPair[] {
  const out: EvaluatedPair[] = [];
  for (const t of targets) {
    const seen = new Set<string>();
    for (const agent of t.agents) {
      if (seen.has(lower(agent.token))) continue;
      seen.add(lower(agent.token));
      out.push({ url: t.url, isRoot: t.isRoot, agent, tracked: true });
    }
    if (!t.isRoot) continue;
    for (const agent of rootCrawlers) {
      if (seen.has(lower(agent.token))) continue;
      seen.add(lower(agent.token));
      out.push({ url: t.url, isRoot: true, agent, tracked: false });
    }
  }
  return out;
}

/**
 * The evaluator, asked once per URL and group: a verdict and its deciding line depend only on
 * the (merged, R-34) group a crawler follows and the URL, and most crawlers of the
 * catalogue follow the same group, `*`. Without rules (full allow or disallow) every answer is
 * the same anyway.
 */
function perGroup(evaluate: PolicyEvaluator, robots: RobotsTxt | null): PolicyEvaluator {
  if (robots === null) return evaluate;
  const byGroup = new Map<SelectedGroup | null | 'ignores-star' | 'no-group', Map<string, PolicyVerdict>>();
  return (url, agent) => {
    // The group its crawler rules choose; a crawler that follows none is keyed by why (it
    // ignores `*`, or there is no `*` group), never with the crawlers that follow `*`.
    const followed = followedGroup(robots, agent);
    const group = followed.agent === null ? (followed.rule as 'ignores-star' | 'no-group') : robots.select(followed.agent);
    let verdicts = byGroup.get(group);
    if (!verdicts) byGroup.set(group, (verdicts = new Map()));
    let verdict = verdicts.get(url);
    if (!verdict) verdicts.set(url, (verdict = evaluate(url, agent)));
    return verdict;
  };
}

/** Why the verdicts would flip, as the nightly run labels it (src/services/site-night.ts). */
function flipCause(current: CurrentRobots): string {
  if (current.policyReason === 'D-3') return 'fallback_ended';
  return current.outcome !== 'ok' || current.policy !== 'rules' ? 'outcome_changed' : 'rules_changed';
}

/** The rules crawlers follow now: none unless the policy is `rules`; the last good body's parse when that is the body in force. */
function rulesInForce(current: CurrentRobots, lastGood: RobotsTxt | null): RobotsTxt | null {
  if (current.policy !== 'rules') return null;
  if (current.rulesBody === current.lastGoodBody) return lastGood;
  return current.rulesBody ? parseRobotsTxt(current.rulesBody) : null;
}

/** A pair whose verdict the draft flips, and the flip as the nightly run records it. */
interface ChangedVerdict {
  pair: EvaluatedPair;
  flip: VerdictFlip;
}

/** A tracked pair whose usage preference for a purpose the draft changes, and the change as the nightly run records it. */
interface ChangedUsage {
  pair: EvaluatedPair;
  flip: UsageFlip;
}

/** The verdicts, and the usage preferences, under the draft that differ from those in force now. */
function changedVerdicts(current: CurrentRobots, rulesNow: RobotsTxt | null, after: RobotsTxt, pairs: readonly EvaluatedPair[]): { verdicts: ChangedVerdict[]; usage: ChangedUsage[] } {
  // Verdicts: in force now, and under the draft.
  const before = perGroup(policyEvaluator(current.policy, rulesNow), rulesNow);
  const now = perGroup(policyEvaluator('rules', after), after);
  const cause = flipCause(current);
  const changed: ChangedVerdict[] = [];
  const usage: ChangedUsage[] = [];
  for (const pair of pairs) {
    const b = before(pair.url, pair.agent.token);
    const a = now(pair.url, pair.agent.token);
    // D-15: a preference changes only where the crawler may fetch the URL under both files; the
    // nightly run keeps preferences for its tracked URLs x agents only.
    if (pair.tracked && a.allowed && b.allowed) usage.push(...usageChanges(pair, b.usage, a.usage));
    if (a.allowed === b.allowed) continue;
    changed.push({
      pair,
      flip: {
        url: pair.url,
        agent: pair.agent.token,
        agentFamily: pair.agent.family,
        isRoot: pair.isRoot,
        from: b.allowed,
        to: a.allowed,
        cause,
        ruleBefore: b.rule && { kind: b.rule.kind, value: b.rule.value, line: b.rule.line },
        ruleAfter: a.rule && { kind: a.rule.kind, value: a.rule.value, line: a.rule.line },
      },
    });
  }
  return { verdicts: changed, usage };
}

/** The deciding line of a stated preference as the night keeps it (night/usage.ts); `since` is empty: a draft has no night. */
function usageRuleOf(answer: PurposeAnswer): UsageRule | null {
  const line = statedLine(answer);
  return line === null ? null : { ...line, since: '' };
}

function usageChanges(pair: EvaluatedPair, before: PurposeAnswers, after: PurposeAnswers): ChangedUsage[] {
  const out: ChangedUsage[] = [];
  for (const purpose of USAGE_PURPOSES) {
    const from = storedPreference(before[purpose]);
    const to = storedPreference(after[purpose]);
    if (from === to) continue;
    out.push({
      pair,
      flip: {
        url: pair.url,
        agent: pair.agent.token,
        agentFamily: pair.agent.family,
        isRoot: pair.isRoot,
        purpose,
        from,
        to,
        ruleBefore: usageRuleOf(before[purpose]),
        ruleAfter: usageRuleOf(after[purpose]),
      },
    });
  }
  return out;
}

type PurposeAnswers = PolicyVerdict['usage'];

/** The night the deploy would make, as the nightly alert rules read it. */
interface DeployNight {
  origin: string;
  change: SiteNightChange;
  transitions: PolicyTransitions;
}

/** The night the deploy would make: the draft answered 2xx, compared with what is in force. */
function deployNight(origin: string, current: CurrentRobots, diff: RobotsDiff, starGapsOpened: StarRuleGap[]): DeployNight {
  const change: SiteNightChange = {
    kinds: diff.kinds.filter((k) => k !== 'identical'),
    rulesDiff: diff,
    outcomeFrom: current.outcome,
    outcomeTo: 'ok',
    policyFrom: current.policy,
    policyTo: 'rules',
    policyReasonTo: 'R-10',
    fallbackStarted: false,
    fallbackEnded: current.policyReason === 'D-3',
    starGapsOpened,
  };
  return { origin, change, transitions: policyTransitions(change) };
}

/** The flips as the report shows them, each with the nightly alert that would list it. */
function draftFlips(night: DeployNight, changed: readonly ChangedVerdict[]): DraftFlip[] {
  const { origin, change, transitions } = night;
  // The alert that lists each flip depends on its family, its direction and the night's policy
  // change only: asked once per combination, with that flip alone and no text change.
  const alertOfFlip = new Map<string, DraftFlip['alert']>();
  const flipOnly = (flip: VerdictFlip): DraftFlip['alert'] => {
    const key = `${flip.agentFamily}\n${flip.from}\n${flip.to}`;
    if (!alertOfFlip.has(key)) {
      const alone = alertsForSiteNight({ runId: 'draft', siteId: 'draft', origin, change: { ...change, kinds: [], rulesDiff: null, starGapsOpened: [] }, transitions, flips: [flip] });
      const lister = alone.find((a) => a.details.flips?.some((f) => f.url === flip.url && f.agent === flip.agent));
      alertOfFlip.set(key, lister ? { kind: lister.kind, severity: lister.severity } : null);
    }
    return alertOfFlip.get(key)!;
  };
  return changed.map(({ pair, flip }) => ({
    url: flip.url,
    isRoot: flip.isRoot,
    crawler: flip.agent,
    family: flip.agentFamily,
    category: pair.agent.category,
    tracked: pair.tracked,
    before: flip.from as boolean,
    after: flip.to,
    ruleBefore: flip.ruleBefore,
    ruleAfter: flip.ruleAfter,
    alert: flipOnly(flip),
  }));
}

/** The alerts the deploy's night would raise, each judged against `failOn` and tied to the draft's lines. */
function draftAlerts(
  night: DeployNight,
  changed: readonly ChangedVerdict[],
  flips: readonly DraftFlip[],
  usage: readonly ChangedUsage[],
  diff: RobotsDiff,
  failOn: AlertSeverity,
): { alerts: DraftAlert[]; usageFlips: DraftUsageFlip[] } {
  const { origin, change, transitions } = night;
  const raised = alertsForSiteNight({ runId: 'draft', siteId: 'draft', origin, change, transitions, flips: changed.map((c) => c.flip), usageFlips: usage.map((u) => u.flip) });
  const usageFlips = draftUsageFlips(usage, new Set(raised.map((a) => a.kind)));
  const alerts = raised.map((a) => {
    const aboutAccess = isAccessAlert(a.details);
    return {
      kind: a.kind,
      severity: a.severity,
      title: a.title,
      details: a.details,
      aboutAccess,
      failing: aboutAccess && atLeast(a.severity, failOn),
      lines: draftLinesOf(
        a.details,
        flips.filter((f) => f.alert?.kind === a.kind),
        usageFlips.filter((f) => f.alert?.kind === a.kind),
        diff,
      ),
    };
  });
  return { alerts, usageFlips };
}

/** The usage changes as the report shows them, each with the nightly alert that lists it (one per kind; none on a night with a policy transition). */
function draftUsageFlips(usage: readonly ChangedUsage[], raised: ReadonlySet<AlertKind>): DraftUsageFlip[] {
  return usage.map(({ pair, flip }) => {
    const kind = usageAlertKind(flip);
    return {
      url: flip.url,
      isRoot: flip.isRoot,
      crawler: flip.agent,
      family: flip.agentFamily,
      category: pair.agent.category,
      purpose: flip.purpose,
      before: flip.from,
      after: flip.to,
      ruleBefore: withoutSince(flip.ruleBefore),
      ruleAfter: withoutSince(flip.ruleAfter),
      alert: raised.has(kind) ? { kind, severity: SEVERITY_OF[kind] } : null,
    };
  });
}

const withoutSince = (rule: UsageRule | null): DraftUsageRule | null => (rule === null ? null : { line: rule.line, mechanism: rule.mechanism, label: rule.label, value: rule.value });

export function checkDraft(input: DraftCheckInput): DraftReport {
  const { current, draft, maxBodyBytes } = input;
  // R-18, D-6: the deployed draft is fetched as any robots.txt: its first maxBodyBytes only.
  const read = draft.length > maxBodyBytes ? draft.subarray(0, maxBodyBytes) : draft;
  // Lint reads the whole draft, to report what lies past the cut; when nothing is cut, its one
  // scan is also the draft's parse and gives its star-rule gaps (lintAndParse), as on a night.
  const linted = read === draft ? lintAndParse(draft, { maxBytes: maxBodyBytes }) : null;
  const after = linted?.parsed ?? parseRobotsTxt(read);
  const lastGood = current.lastGoodBody ? parseRobotsTxt(current.lastGoodBody) : null;
  const rulesNow = rulesInForce(current, lastGood);

  const diff = diffRobotsTxt(lastGood, after, { before: current.lastGoodBody, after: read });
  const starGapsOpened = diff.kinds.includes('rules') ? openedStarRuleGaps(lastGood, after, linted?.starRuleGaps ?? starRuleGaps(after)) : [];

  const pairs = evaluatedPairs(input.targets, input.rootCrawlers);
  const changed = changedVerdicts(current, rulesNow, after, pairs);
  const night = deployNight(input.origin, current, diff, starGapsOpened);
  const flips = draftFlips(night, changed.verdicts);
  const { alerts, usageFlips } = draftAlerts(night, changed.verdicts, flips, changed.usage, diff, input.failOn);

  const trackedAgents = input.targets.flatMap((t) => t.agents.map((a) => a.token));
  const compared = crawlersToCompare(lastGood, after, [...input.diffCrawlers, ...trackedAgents]);

  return {
    origin: input.origin,
    current: { outcome: current.outcome, policy: current.policy, policyReason: current.policyReason, bytes: current.rulesBody?.length ?? current.lastGoodBody?.length ?? null },
    size: { bytes: draft.length, limit: maxBodyBytes, ignored: Math.max(0, draft.length - maxBodyBytes) },
    kinds: diff.kinds,
    semantic: diff,
    textDiff: unifiedTextDiff(current.lastGoodBody, read),
    flips,
    usageFlips,
    compared: pairs.length,
    alerts,
    crawlers: diffCrawlerRules(lastGood, after, compared.crawlers),
    crawlersNotCompared: compared.notCompared,
    starGapsOpened,
    // The crawler-aware finding (D-14) on the parse crawlers read: the draft, or its part before the cut.
    lint: lintWithCrawlers({ diagnostics: linted?.diagnostics ?? lintRobotsTxt(draft, { maxBytes: maxBodyBytes }), parsed: after }),
    failOn: input.failOn,
    failing: alerts.some((a) => a.failing),
  };
}

/**
 * The draft's lines an alert stands for, read from its data: the deciding lines of the flips and
 * usage changes it lists (all of them, not only those its details keep), the disallow-everything rules added for
 * the agents it is about (the critical tokens', read from the diff: its details list only the
 * first MAX_AGENTS_PER_ALERT user-agent values), the groups that leave a `*` path open. Sorted,
 * each once.
 */
function draftLinesOf(details: AlertDetails, flips: readonly DraftFlip[], usageFlips: readonly DraftUsageFlip[], diff: RobotsDiff): number[] {
  const lines = new Set<number>();
  for (const f of flips) if (f.ruleAfter) lines.add(f.ruleAfter.line);
  for (const f of usageFlips) if (f.ruleAfter) lines.add(f.ruleAfter.line);
  for (const gap of details.gaps ?? []) lines.add(gap.groupLine);
  if (details.agents) {
    for (const agent of diff.agents) {
      if (!agent.disallowAllAdded || !CRITICAL_DISALLOW_ALL_TOKENS.includes(agent.token)) continue;
      for (const r of agent.rulesAdded) if (r.kind === 'disallow' && isMatchEverythingPattern(r.pattern)) lines.add(r.line);
    }
  }
  return [...lines].sort((a, b) => a - b);
}

/** Flips of one URL that agree in everything but the crawler: shown as one line. */
export interface FlipGroup {
  url: string;
  isRoot: boolean;
  before: boolean;
  after: boolean;
  ruleBefore: CitedRule | null;
  ruleAfter: CitedRule | null;
  alert: DraftFlip['alert'];
  crawlers: { token: string; category: CrawlerCategory | null; family: AgentFamily; tracked: boolean }[];
}

const severityRank = (a: DraftFlip['alert']) => (a === null ? SEVERITIES.length : SEVERITIES.indexOf(a.severity));

/**
 * The flips grouped per URL, direction, deciding lines and alert, most severe first, then by URL
 * (the root first) and the draft's line: `Disallow: /` flips a site's every URL for every crawler,
 * which reads as a few lines rather than a thousand.
 */
export function groupFlips(flips: readonly DraftFlip[]): FlipGroup[] {
  const groups = new Map<string, FlipGroup>();
  for (const f of flips) {
    const key = JSON.stringify([f.url, f.before, f.after, f.ruleBefore, f.ruleAfter, f.alert]);
    let group = groups.get(key);
    if (!group) {
      group = { url: f.url, isRoot: f.isRoot, before: f.before, after: f.after, ruleBefore: f.ruleBefore, ruleAfter: f.ruleAfter, alert: f.alert, crawlers: [] };
      groups.set(key, group);
    }
    group.crawlers.push({ token: f.crawler, category: f.category, family: f.family, tracked: f.tracked });
  }
  return [...groups.values()].sort(
    (a, b) =>
      severityRank(a.alert) - severityRank(b.alert) ||
      Number(b.isRoot) - Number(a.isRoot) ||
      a.url.localeCompare(b.url) ||
      (a.ruleAfter?.line ?? 0) - (b.ruleAfter?.line ?? 0),
  );
}

/** Usage changes of one URL and purpose that agree in everything but the crawler: shown as one line. */
export interface UsageFlipGroup {
  url: string;
  isRoot: boolean;
  purpose: UsagePurpose;
  before: StoredPreference;
  after: StoredPreference;
  ruleBefore: DraftUsageRule | null;
  ruleAfter: DraftUsageRule | null;
  alert: DraftUsageFlip['alert'];
  crawlers: { token: string; category: CrawlerCategory | null; family: AgentFamily }[];
}

/** The usage changes grouped as groupFlips groups flips: most severe first, the root first, then by URL and purpose. */
export function groupUsageFlips(flips: readonly DraftUsageFlip[]): UsageFlipGroup[] {
  const groups = new Map<string, UsageFlipGroup>();
  for (const f of flips) {
    const key = JSON.stringify([f.url, f.purpose, f.before, f.after, f.ruleBefore, f.ruleAfter, f.alert]);
    let group = groups.get(key);
    if (!group) {
      group = { url: f.url, isRoot: f.isRoot, purpose: f.purpose, before: f.before, after: f.after, ruleBefore: f.ruleBefore, ruleAfter: f.ruleAfter, alert: f.alert, crawlers: [] };
      groups.set(key, group);
    }
    group.crawlers.push({ token: f.crawler, category: f.category, family: f.family });
  }
  return [...groups.values()].sort(
    (a, b) =>
      severityRank(a.alert) - severityRank(b.alert) ||
      Number(b.isRoot) - Number(a.isRoot) ||
      a.url.localeCompare(b.url) ||
      USAGE_PURPOSES.indexOf(a.purpose) - USAGE_PURPOSES.indexOf(b.purpose),
  );
}
