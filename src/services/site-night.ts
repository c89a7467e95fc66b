/**
 * A site's night in one pass, from what the fetch brought and what the previous night left
 * (house style, habit 10: the body, its parse and the previous state are in hand, so nothing is
 * written and read back): the effective policy (R-10..R-15, D-3, D-4), what changed (bytes,
 * rules per group, sitemaps, other records, outcome, policy, the 30-day fallback), the verdicts
 * of every tracked URL x agent when something that decides them changed, the flips, the alerts,
 * and the rows that record it all. No I/O of its own: the two things it may need beyond its
 * input (an earlier body, the verdict spans in force) come through `NightLoaders`, asked for only
 * when needed, so a night that changes nothing costs no read at all.
 */
import { hash } from 'node:crypto';
import type { FetchResult } from '../http/fetch-result.js';
import type { FlipRule, RedirectHop } from '../db/schema.js';
import type { ResponseRow } from '../db/responses.js';
import { responseRowOf } from '../db/responses.js';
import { MAX_ERROR_MESSAGE_CHARS, clampInt4, clampText } from '../db/column-limits.js';
import { effectivePolicy, isUnreachable } from '../policy/index.js';
import { DEFAULT_FLAPPING_OPTIONS, flappingNight } from '../policy/flapping.js';
import type { FlappingOptions, FlappingResult } from '../policy/flapping.js';
import type { FetchOutcome, PolicyKind, PolicyReason } from '../policy/index.js';
import { diffRobotsTxt, unifiedTextDiff } from '../robots/diff.js';
import type { RobotsChangeKind, RobotsDiff } from '../robots/diff.js';
import { ENGINE_VERSION, PARSER_VERDICTS_KEY, parseRobotsTxt } from '../robots/index.js';
import { openedStarRuleGaps, starRuleGaps } from '../robots/star-rule-gaps.js';
import type { StarRuleGaps } from '../robots/star-rule-gaps.js';
import type { StarRuleGap } from '../robots/star-rule-gaps.js';
import type { RobotsTxt } from '../robots/index.js';
import { alertsForSiteNight } from './alerting/alert-rules.js';
import type { AgentFamily, AlertDraft, FlappingChange, RotationDifference, VerdictFlip } from './alerting/alert-rules.js';
import { policyEvaluator } from './policy-evaluator.js';
import type { PolicyEvaluator } from './policy-evaluator.js';
import { summarizeBody } from './snapshot-summary.js';
import { indexBody } from './body-index.js';
import type { BodyIndex } from './body-index.js';
import type { SnapshotSummary } from './snapshot-summary.js';

export type { RedirectHop };

/** The change kinds stored in `snapshot_changes.kinds`. */
export type ChangeKind = 'first_seen' | 'raw' | RobotsChangeKind | 'outcome' | 'policy' | 'fallback_started' | 'fallback_ended';

/** Why a verdict flipped, most specific first. */
export type FlipCause = 'fallback_started' | 'fallback_ended' | 'outcome_changed' | 'rules_changed';

/** The night a site's night is compared with: its site_state row, or (a replayed night) its history. */
export interface PreviousNight {
  runId: number;
  runAt: Date;
  outcome: FetchOutcome;
  status: number | null;
  policy: PolicyKind;
  policyReason: PolicyReason;
  unreachableSince: Date | null;
  /** The body whose rules applied (policy `rules`), and the run it came from. */
  rulesBodyId: number | null;
  rulesRunId: number | null;
  /** The latest `ok` night up to and including this one. */
  lastGood: { runId: number; runAt: Date; bodyId: number; sha256: Buffer } | null;
  /** D-3: the latest night that reached the site, up to and including this one. */
  lastReachable: { runId: number; outcome: FetchOutcome } | null;
  responseId: number | null;
  responseKey: Buffer | null;
  /** What decided the verdicts in force (null: unknown, evaluate again). */
  evalKey: Buffer | null;
  failedNights: number;
  lastChangeRunId: number | null;
  /** The first night of the current run of bot challenges; null when the last night was not one. */
  challengedSince: Date | null;
  /** The night the site started flapping (src/policy/flapping.ts); null when it is not. */
  flappingSince: Date | null;
  /** Nights in a row the same version came back. */
  stableNights: number;
  /** The versions of the last nights (K), oldest first. */
  recentVersions: RecentVersion[];
}

/** One night's version of the file, as site_state.recent_versions keeps it. */
export interface RecentVersion {
  /** sha256 of the body, hex. */
  sha256: string;
  runId: number;
  /** ISO time of the night. */
  runAt: string;
}

export interface TargetAgent {
  id: number;
  token: string;
  family: string | null;
}

/** One tracked URL (the root included) with every agent it is evaluated for. */
export interface EvaluationTarget {
  trackedUrlId: number;
  url: string;
  isRoot: boolean;
  agents: TargetAgent[];
}

/** A verdict span in force: the one a new verdict is compared with, and closed if it differs. */
export interface VerdictSpan {
  trackedUrlId: number;
  userAgentId: number;
  validFrom: Date;
  fromRunId: number;
  /** Where it ends (null: it still holds). */
  validTo: Date | null;
  toRunId: number | null;
  allowed: boolean;
  ruleLine: number | null;
  /** The verdict under the crawler's own parser where it differs (null, null: none; src/robots/parser-verdicts.ts). */
  parserProfile: string | null;
  parserAllowed: boolean | null;
}

export interface NightLoaders {
  /** A stored body's bytes. */
  body(bodyId: number): Promise<Buffer | null>;
  /** A stored body's bytes by its sha256 (a version in rotation, src/policy/flapping.ts). */
  bodyBySha(sha256: Buffer): Promise<Buffer | null>;
  /**
   * The verdict spans of these tracked URLs in force on the previous night: the open ones for a
   * site's latest night, those covering `previous` for a replayed one.
   */
  spansInForce(trackedUrlIds: number[], previous: Pick<PreviousNight, 'runId' | 'runAt'>, replayed: boolean): Promise<VerdictSpan[]>;
}

export interface SiteNightInput {
  siteId: number;
  origin: string;
  runId: number;
  /** The run's clock (`audit --at`): the 30-day rule counts with it (D-3). */
  runAt: Date;
  /** The final attempt and its number within the run. */
  result: FetchResult;
  attempt: number;
  previous: PreviousNight | null;
  targets: EvaluationTarget[];
  /** A hash of `targets` (targetsHash()). */
  targetsHash: Buffer;
  /** Every known crawler token (user_agents): a new body's root access is stored for each. */
  catalogueTokens: readonly string[];
  /**
   * A night replayed before the site's latest one: the night after it, where the spans it opens
   * end. Null for the site's latest night (the usual case).
   */
  nextNight: { runId: number; runAt: Date } | null;
  /**
   * The confirmation fetch (night-runner.ts): made when the first answer's body differs from the
   * version in force. Two bodies that disagree: the night records both and the site flaps.
   */
  confirm?: FetchResult | null;
  /** K and M of src/policy/flapping.ts. */
  flappingOptions?: FlappingOptions;
}

/** A body by id when stored already, by hash when this night may be the first to see it. */
export type BodyRef = { id: number } | { sha256: Buffer };
export type ResponseRef = { id: number } | { key: Buffer };

export interface NewBody {
  sha256: Buffer;
  content: Buffer;
  summary: SnapshotSummary;
  /** Its rules, root access per catalogued crawler and Content-Signal lines, for SQL reports. */
  index: BodyIndex;
}

export interface SnapshotRow {
  runAt: Date;
  fetchedAt: Date;
  unreachableSince: Date | null;
  siteId: number;
  runId: number;
  durationMs: number;
  body: BodyRef | null;
  response: ResponseRef | null;
  rulesRunId: number | null;
  cacheLifetimeSeconds: number | null;
  fullSize: number | null;
  outcome: FetchOutcome;
  policy: PolicyKind;
  status: number | null;
  attempts: number;
  truncated: boolean;
  policyReason: PolicyReason;
  errorCode: string | null;
  errorMessage: string | null;
  /** The site was flapping this night. */
  flapping: boolean;
  /** The confirmation fetch's body hash when it disagreed with the first answer. */
  confirmSha256: Buffer | null;
}

export interface StateRow {
  siteId: number;
  runId: number;
  runAt: Date;
  outcome: FetchOutcome;
  status: number | null;
  policy: PolicyKind;
  policyReason: PolicyReason;
  unreachableSince: Date | null;
  rulesBody: BodyRef | null;
  rulesRunId: number | null;
  lastGood: { runId: number; runAt: Date; body: BodyRef; sha256: Buffer } | null;
  lastReachable: { runId: number; outcome: FetchOutcome } | null;
  response: ResponseRef | null;
  responseKey: Buffer | null;
  evalKey: Buffer;
  failedNights: number;
  lastChangeRunId: number | null;
  challengedSince: Date | null;
  flappingSince: Date | null;
  stableNights: number;
  recentVersions: RecentVersion[];
}

export interface ChangeRow {
  runId: number;
  siteId: number;
  previousRunId: number | null;
  outcomeFrom: FetchOutcome | null;
  outcomeTo: FetchOutcome;
  policyFrom: PolicyKind | null;
  policyTo: PolicyKind;
  kinds: ChangeKind[];
  textDiff: string | null;
  ruleDiff: RobotsDiff | null;
}

/** A span row to insert. */
export interface SpanRow {
  trackedUrlId: number;
  userAgentId: number;
  validFrom: Date;
  validTo: Date | null;
  fromRunId: number;
  toRunId: number | null;
  allowed: boolean;
  ruleLine: number | null;
  parserProfile: string | null;
  parserAllowed: boolean | null;
}

/** A span in force that ends at this night. */
export interface SpanClose {
  trackedUrlId: number;
  userAgentId: number;
  validFrom: Date;
  fromRunId: number;
  validTo: Date;
  toRunId: number;
}

export interface FlipRow {
  runId: number;
  siteId: number;
  trackedUrlId: number;
  userAgentId: number;
  fromAllowed: boolean;
  toAllowed: boolean;
  cause: FlipCause;
  ruleBefore: FlipRule | null;
  ruleAfter: FlipRule | null;
}

/** Everything a site's night writes, in one transaction (src/db/night-store.ts). */
export interface SiteNight {
  siteId: number;
  runId: number;
  snapshot: SnapshotRow;
  /** A body this night may be the first to store (its id is resolved on write). */
  newBody: NewBody | null;
  /** The confirmation fetch's body when it disagreed (stored beside the night's, by hash). */
  confirmBody: NewBody | null;
  /** An answer not seen on the previous night (stored unless another site stored it first). */
  newResponse: ResponseRow | null;
  change: ChangeRow | null;
  spans: { close: SpanClose[]; open: SpanRow[] };
  flips: FlipRow[];
  alerts: AlertDraft[];
  /** The site's new state; null for a replayed night (the state stays the later night's). */
  state: StateRow | null;
  /** The state's run_id this night was computed from (optimistic write); null: no state yet. */
  expectedStateRunId: number | null;
  /** Whether the verdicts were evaluated (false: nothing that decides them changed). */
  evaluated: boolean;
}

const FAMILIES: readonly AgentFamily[] = ['search', 'ai', 'seo', 'social', 'other'];
const asFamily = (f: string | null): AgentFamily => (FAMILIES.includes(f as AgentFamily) ? (f as AgentFamily) : 'other');

// One-shot hashing (crypto.hash): no Hash object per call; three hashes per site a night.
const sha256Of = (bytes: Uint8Array | string): Buffer => hash('sha256', bytes, 'buffer');
const spanKey = (trackedUrlId: number, userAgentId: number) => `${trackedUrlId}:${userAgentId}`;

/** A hash of the targets: which URLs, as which text, for which agents, in order. */
export function targetsHash(targets: readonly EvaluationTarget[]): Buffer {
  const text = targets.map((t) => `${t.trackedUrlId} ${t.url} ${t.agents.map((a) => `${a.id}=${a.token}`).join(',')}\n`).join('');
  return sha256Of(text).subarray(0, 16);
}

/** What decides the verdicts: the engine version, the policy, the rules body (by hash), the targets. */
export function evaluationKey(policy: PolicyKind, rulesSha256: Buffer | null, targets: Buffer): Buffer {
  // PARSER_VERDICTS_KEY: which crawlers get a verdict under their own parser, so that a change
  // to it (a profile added, a parser fact) makes the next night store those verdicts.
  const head = Buffer.from(`${ENGINE_VERSION}\n${PARSER_VERDICTS_KEY}\n${policy}\n${rulesSha256?.toString('hex') ?? '-'}\n`);
  return sha256Of(Buffer.concat([head, targets])).subarray(0, 16);
}

/**
 * The answer's `responses` row, referenced by the id of the site's last one when the headers are
 * the same (stored once), or by its key as a new row (`newRow`); null when nothing answered.
 */
export function answerOf(
  result: FetchResult,
  last: Pick<PreviousNight, 'responseId' | 'responseKey'> | null,
): { row: ResponseRow | null; ref: ResponseRef | null; newRow: ResponseRow | null } {
  const row = responseRowOf(result);
  if (row === null) return { row, ref: null, newRow: null };
  const same = last?.responseKey != null && last.responseKey.equals(row.key);
  return same ? { row, ref: { id: last.responseId! }, newRow: null } : { row, ref: { key: row.key }, newRow: row };
}

/**
 * The full size a night records: the size the answer announced or counted when it differs from
 * the bytes kept, within the `integer` column (a `Content-Length: 99999999999` is a claim, not
 * bytes read: it is kept as the column's largest value, never failing the night).
 */
export function storedFullSize(result: Pick<FetchResult, 'fullSize' | 'bodyBytes'>): number | null {
  return result.fullSize !== null && result.fullSize !== result.bodyBytes ? clampInt4(result.fullSize) : null;
}

/**
 * The night's answer when a confirmation fetch was made: of two bodies that disagree, the one
 * that is the version in force stands for the night (nothing changes for crawlers), the other is
 * recorded beside it; otherwise the first answer. A confirmation that brought no body (a
 * failure) confirms nothing.
 */
function pickAnswer(first: FetchResult, confirm: FetchResult | null | undefined, previous: PreviousNight | null): { result: FetchResult; other: Buffer | null } {
  if (!confirm || confirm.outcome !== 'ok' || !confirm.body || first.outcome !== 'ok' || !first.body) return { result: first, other: null };
  if (confirm.body.equals(first.body)) return { result: first, other: null };
  const confirmIsCurrent = previous?.lastGood?.sha256.equals(sha256Of(confirm.body)) ?? false;
  return confirmIsCurrent ? { result: confirm, other: first.body } : { result: first, other: confirm.body };
}

export async function computeSiteNight(input: SiteNightInput, load: NightLoaders): Promise<SiteNight> {
  const { previous, runId, runAt, siteId } = input;
  const picked = pickAnswer(input.result, input.confirm, previous);
  const result = picked.result;

  // R-10..R-15, D-3: the streak start comes from the previous night; the clock is the run's.
  const policy = effectivePolicy<number>({
    outcome: result.outcome,
    now: runAt,
    unreachableSince: previous && (isUnreachable(previous.outcome) || previous.outcome === 'night_failed') ? previous.unreachableSince : null,
    lastReachable: previous?.lastReachable ? { snapshotId: previous.lastReachable.runId, outcome: previous.lastReachable.outcome } : null,
    // night_failed and challenged: the previous night's policy stands, with the rules in force:
    // the last good body's (its own night's, or the D-3 fallback's copy, which is the same body).
    previous: previous
      ? { kind: previous.policy, reason: previous.policyReason, rulesFrom: previous.policy === 'rules' && previous.lastGood ? { snapshotId: previous.lastGood.runId } : null }
      : null,
  });
  const challenged = result.outcome === 'challenged';
  const challengedSince = challenged ? (previous?.challengedSince ?? runAt) : null;

  // The body, hashed and parsed once, and only when it is not the one the site served last.
  const body = result.outcome === 'ok' && result.body ? result.body : null;
  const sha256 = body ? sha256Of(body) : null;
  const sameBodyAsLastGood = sha256 !== null && previous?.lastGood !== null && previous?.lastGood !== undefined && previous.lastGood.sha256.equals(sha256);
  let parsed: RobotsTxt | null = null;
  const parsedBody = () => (parsed ??= parseRobotsTxt(body!));
  // Its star-rule gaps, which lint and the diff both need: computed once, when first needed.
  let gaps: StarRuleGaps | null = null;
  const gapsOfBody = () => (gaps ??= starRuleGaps(parsedBody()));
  const bodyRef: BodyRef | null = sha256 === null ? null : sameBodyAsLastGood ? { id: previous!.lastGood!.bodyId } : { sha256 };
  const newBody: NewBody | null =
    body && !sameBodyAsLastGood
      ? { sha256: sha256!, content: body, summary: summarizeBody(body, parsedBody(), gapsOfBody()), index: indexBody(parsedBody(), input.catalogueTokens) }
      : null;

  // Flapping (src/policy/flapping.ts), from the versions of the last nights; a site's state from
  // before they were kept starts from its last good version.
  const otherSha = picked.other ? sha256Of(picked.other) : null;
  const knownVersions =
    previous && previous.recentVersions.length === 0 && previous.lastGood
      ? [{ sha256: previous.lastGood.sha256.toString('hex'), runId: previous.lastGood.runId, runAt: previous.lastGood.runAt.toISOString() }]
      : (previous?.recentVersions ?? []);
  const flap = input.nextNight
    ? null
    : flappingNight(
        { versions: knownVersions, since: previous?.flappingSince ?? null, stableNights: previous?.stableNights ?? 0 },
        { runId, runAt, sha256: sha256?.toString('hex') ?? null, disagreeing: otherSha?.toString('hex') ?? null },
        input.flappingOptions ?? DEFAULT_FLAPPING_OPTIONS,
      );
  const confirmBody: NewBody | null =
    picked.other && otherSha
      ? (() => {
          const parsedOther = parseRobotsTxt(picked.other);
          return { sha256: otherSha, content: picked.other, summary: summarizeBody(picked.other, parsedOther), index: indexBody(parsedOther, input.catalogueTokens) };
        })()
      : null;

  const versionsInHand = () => {
    const inHand = new Map<string, RobotsTxt | Buffer>();
    if (body && sha256) inHand.set(sha256.toString('hex'), parsedBody());
    if (picked.other && otherSha) inHand.set(otherSha.toString('hex'), picked.other);
    return inHand;
  };

  // The answer's headers: the previous night's row when they are the same.
  const answer = answerOf(result, previous);
  const responseRef = answer.ref;

  // What changed against the previous night (a site's first night is its baseline).
  const kinds: ChangeKind[] = [];
  let rulesDiff: RobotsDiff | null = null;
  let textDiff: string | null = null;
  const contentKinds: RobotsChangeKind[] = [];
  let starGapsOpened: StarRuleGap[] = [];
  if (!previous) {
    kinds.push('first_seen');
  } else if (body && !sameBodyAsLastGood) {
    // The bytes are compared with the last bytes fetched, whatever happened in between.
    const before = previous.lastGood ? await load.body(previous.lastGood.bodyId) : null;
    const parsedBefore = before ? parseRobotsTxt(before) : null;
    rulesDiff = diffRobotsTxt(parsedBefore, parsedBody(), { before, after: body });
    contentKinds.push(...rulesDiff.kinds.filter((k) => k !== 'identical'));
    kinds.push('raw', ...contentKinds);
    textDiff = unifiedTextDiff(before, body);
    if (contentKinds.includes('rules')) starGapsOpened = openedStarRuleGaps(parsedBefore, parsedBody(), gapsOfBody());
  }
  const outcomeChanged = previous !== null && previous.outcome !== result.outcome;
  const policyChanged = previous !== null && previous.policy !== policy.kind;
  // D-3: the fallback is in force exactly when the policy's reason is D-3.
  const fallbackStarted = policy.reason === 'D-3' && previous !== null && previous.policyReason !== 'D-3';
  const fallbackEnded = previous?.policyReason === 'D-3' && policy.reason !== 'D-3';
  if (outcomeChanged) kinds.push('outcome');
  if (policyChanged) kinds.push('policy');
  if (fallbackStarted) kinds.push('fallback_started');
  if (fallbackEnded) kinds.push('fallback_ended');
  const cause: FlipCause = fallbackStarted ? 'fallback_started' : fallbackEnded ? 'fallback_ended' : outcomeChanged || policyChanged ? 'outcome_changed' : 'rules_changed';

  // The rules in force: this night's body (R-10), or the last good copy under the fallback (D-3).
  const fromFallback = policy.kind === 'rules' && policy.rulesFrom !== 'current';
  const rulesSha = policy.kind !== 'rules' ? null : fromFallback ? (previous?.lastGood?.sha256 ?? null) : sha256;
  const rulesBodyRef: BodyRef | null = policy.kind !== 'rules' ? null : fromFallback ? (previous?.lastGood ? { id: previous.lastGood.bodyId } : null) : bodyRef;
  const rulesRunId = policy.kind !== 'rules' ? null : fromFallback ? (previous?.lastGood?.runId ?? null) : runId;

  // Verdicts, only when something that decides them changed.
  const evalKey = evaluationKey(policy.kind, rulesSha, input.targetsHash);
  const evaluate = previous === null || previous.evalKey === null || !previous.evalKey.equals(evalKey) || input.nextNight !== null;
  const spans: SiteNight['spans'] = { close: [], open: [] };
  const flipRows: FlipRow[] = [];
  const flips: VerdictFlip[] = [];
  if (evaluate) {
    const fallbackBody = policy.kind === 'rules' && fromFallback && previous?.lastGood ? await load.body(previous.lastGood.bodyId) : null;
    const rules = policy.kind !== 'rules' ? null : fromFallback ? fallbackBody : parsedBody();
    // The bytes the rules come from, for the crawlers' own parsers (read lazily, once per profile).
    const rulesBytes = policy.kind !== 'rules' ? null : fromFallback ? fallbackBody : body;
    const now = policyEvaluator(policy.kind, rules, rulesBytes);
    const inForce = previous
      ? new Map((await load.spansInForce(input.targets.map((t) => t.trackedUrlId), previous, input.nextNight !== null)).map((s) => [spanKey(s.trackedUrlId, s.userAgentId), s]))
      : new Map<string, VerdictSpan>();
    let before: PolicyEvaluator | null = null;
    const evaluatorBefore = async () => {
      if (before) return before;
      const rulesBefore = previous!.policy === 'rules' && previous!.rulesBodyId !== null ? await load.body(previous!.rulesBodyId) : null;
      return (before = policyEvaluator(previous!.policy, rulesBefore));
    };
    const next = input.nextNight;
    for (const target of input.targets) {
      for (const agent of target.agents) {
        const verdict = now(target.url, agent.token);
        const ruleLine = verdict.rule?.line ?? null;
        const key = spanKey(target.trackedUrlId, agent.id);
        const held = inForce.get(key);
        inForce.delete(key);
        const parserProfile = verdict.parser?.profile ?? null;
        const parserAllowed = verdict.parser?.allowed ?? null;
        if (held && held.allowed === verdict.allowed && held.ruleLine === ruleLine && held.parserProfile === parserProfile && held.parserAllowed === parserAllowed) continue;
        if (held) spans.close.push({ trackedUrlId: held.trackedUrlId, userAgentId: held.userAgentId, validFrom: held.validFrom, fromRunId: held.fromRunId, validTo: runAt, toRunId: runId });
        spans.open.push({
          trackedUrlId: target.trackedUrlId,
          userAgentId: agent.id,
          validFrom: runAt,
          validTo: next?.runAt ?? null,
          fromRunId: runId,
          toRunId: next?.runId ?? null,
          allowed: verdict.allowed,
          ruleLine,
          parserProfile,
          parserAllowed,
        });
        // A replayed night cuts the span in force into before it, itself (up to the next night),
        // and, when the span went on past the next night, the rest of it.
        if (held && next && (held.toRunId === null || held.toRunId !== next.runId)) {
          spans.open.push({ ...held, validFrom: next.runAt, fromRunId: next.runId });
        }
        if (!held || held.allowed === verdict.allowed) continue;
        const ruleBefore = (await evaluatorBefore())(target.url, agent.token).rule;
        flipRows.push({ runId, siteId, trackedUrlId: target.trackedUrlId, userAgentId: agent.id, fromAllowed: held.allowed, toAllowed: verdict.allowed, cause, ruleBefore, ruleAfter: verdict.rule });
        flips.push({
          url: target.url,
          agent: agent.token,
          agentFamily: asFamily(agent.family),
          isRoot: target.isRoot,
          from: held.allowed,
          to: verdict.allowed,
          cause,
          ruleBefore: ruleBefore && { kind: ruleBefore.kind, value: ruleBefore.value, line: ruleBefore.line },
          ruleAfter: verdict.rule && { kind: verdict.rule.kind, value: verdict.rule.value, line: verdict.rule.line },
        });
      }
    }
    // Agents (or URLs) no longer evaluated: their verdicts stop holding tonight.
    if (!input.nextNight) {
      for (const held of inForce.values()) {
        spans.close.push({ trackedUrlId: held.trackedUrlId, userAgentId: held.userAgentId, validFrom: held.validFrom, fromRunId: held.fromRunId, validTo: runAt, toRunId: runId });
      }
    }
  }

  const alerts = alertsForSiteNight({
    runId: String(runId),
    siteId,
    origin: input.origin,
    challenge: {
      started: challenged && !(previous?.outcome === 'challenged'),
      ended: !challenged && previous?.outcome === 'challenged',
      since: previous?.challengedSince ?? null,
      vendor: result.challenge?.vendor ?? null,
      signal: result.challenge?.signal ?? null,
      status: result.status,
      userAgent: result.challenge?.userAgent ?? null,
    },
    flapping: flap?.flapping ? await flappingChange(flap, input.targets, load, versionsInHand()) : undefined,
    change: {
      kinds: contentKinds,
      rulesDiff,
      outcomeFrom: previous?.outcome ?? null,
      outcomeTo: result.outcome,
      policyFrom: previous?.policy ?? null,
      policyTo: policy.kind,
      policyReasonTo: policy.reason,
      fallbackStarted,
      fallbackEnded,
      starGapsOpened,
    },
    flips,
  });

  const change: ChangeRow | null =
    kinds.length === 0
      ? null
      : {
          runId,
          siteId,
          previousRunId: previous?.runId ?? null,
          outcomeFrom: previous?.outcome ?? null,
          outcomeTo: result.outcome,
          policyFrom: previous?.policy ?? null,
          policyTo: policy.kind,
          kinds,
          textDiff,
          ruleDiff: rulesDiff,
        };

  const snapshot: SnapshotRow = {
    runAt,
    fetchedAt: result.startedAt,
    unreachableSince: policy.unreachableSince,
    siteId,
    runId,
    durationMs: clampInt4(result.durationMs)!,
    body: bodyRef,
    response: responseRef,
    rulesRunId: fromFallback ? rulesRunId : null,
    // Issue 17: what a site sends is clamped to its column (column-limits.ts), or the night is lost.
    cacheLifetimeSeconds: clampInt4(result.cache?.lifetimeSeconds ?? null),
    fullSize: storedFullSize(result),
    outcome: result.outcome,
    policy: policy.kind,
    status: result.status,
    attempts: input.attempt,
    truncated: result.truncated,
    policyReason: policy.reason,
    errorCode: result.errorCode,
    errorMessage: clampText(result.errorMessage, MAX_ERROR_MESSAGE_CHARS),
    flapping: flap?.flapping ?? false,
    confirmSha256: otherSha,
  };

  // A failed night did not reach the site either: it counts as a failed night, and the last
  // night that reached the site stays the one before.
  const reached = !isUnreachable(result.outcome) && result.outcome !== 'night_failed';
  const state: StateRow | null = input.nextNight
    ? null
    : {
        siteId,
        runId,
        runAt,
        outcome: result.outcome,
        status: result.status,
        policy: policy.kind,
        policyReason: policy.reason,
        unreachableSince: policy.unreachableSince,
        rulesBody: rulesBodyRef,
        rulesRunId,
        lastGood:
          body && sha256
            ? { runId, runAt, body: bodyRef!, sha256 }
            : previous?.lastGood
              ? { runId: previous.lastGood.runId, runAt: previous.lastGood.runAt, body: { id: previous.lastGood.bodyId }, sha256: previous.lastGood.sha256 }
              : null,
        lastReachable: reached ? { runId, outcome: result.outcome } : (previous?.lastReachable ?? null),
        response: responseRef,
        responseKey: answer.row?.key ?? null,
        evalKey,
        failedNights: reached ? 0 : (previous?.failedNights ?? 0) + 1,
        lastChangeRunId: change && !(kinds.length === 1 && kinds[0] === 'first_seen') ? runId : (previous?.lastChangeRunId ?? null),
        challengedSince,
        flappingSince: flap?.state.since ?? null,
        stableNights: flap?.state.stableNights ?? 0,
        recentVersions: flap?.state.versions ?? [],
      };

  return {
    siteId,
    runId,
    snapshot,
    newBody,
    confirmBody,
    newResponse: answer.newRow,
    change,
    spans,
    flips: flipRows,
    alerts,
    state,
    expectedStateRunId: input.nextNight ? null : (previous?.runId ?? null),
    evaluated: evaluate,
  };
}

/**
 * What the alerts say about a flapping night: the versions in rotation, and (the night it starts)
 * which tracked URL x agent verdicts differ between them. Bodies in hand are used as they are;
 * the others are read by hash, only on the night flapping starts.
 */
async function flappingChange(flap: FlappingResult, targets: readonly EvaluationTarget[], load: NightLoaders, inHand: Map<string, RobotsTxt | Buffer>): Promise<FlappingChange> {
  const firstSeen = new Map<string, string>();
  for (const v of flap.state.versions) if (!firstSeen.has(v.sha256)) firstSeen.set(v.sha256, v.runAt);
  const versions = flap.rotation.map((sha256) => ({ sha256, firstSeen: firstSeen.get(sha256) ?? '' }));
  const differences: RotationDifference[] = [];
  let rulesDiffer = false;
  if (flap.event === 'started') {
    const evaluators = [];
    const parsedVersions: RobotsTxt[] = [];
    for (const v of versions) {
      const rules = inHand.get(v.sha256) ?? (await load.bodyBySha(Buffer.from(v.sha256, 'hex')));
      if (!rules) continue;
      const parsedVersion = rules instanceof Uint8Array ? parseRobotsTxt(rules) : rules;
      parsedVersions.push(parsedVersion);
      evaluators.push({ sha256: v.sha256, check: policyEvaluator('rules', parsedVersion) });
    }
    // Rules that differ for some crawler between the first version and any other.
    rulesDiffer = parsedVersions.slice(1).some((other) => diffRobotsTxt(parsedVersions[0]!, other).kinds.some((k) => k === 'rules' || k === 'records'));
    for (const t of targets) {
      for (const a of t.agents) {
        const allowedBy = Object.fromEntries(evaluators.map((e) => [e.sha256, e.check(t.url, a.token).allowed]));
        const verdicts = new Set(Object.values(allowedBy));
        if (verdicts.size > 1) differences.push({ url: t.url, agent: a.token, agentFamily: asFamily(a.family), isRoot: t.isRoot, allowedBy });
      }
    }
  }
  const last = flap.state.versions.at(-1);
  return {
    flapping: flap.flapping,
    event: flap.event,
    cause: flap.cause,
    versions,
    differences,
    rulesDiffer,
    // The version that stayed: served since its last transition (a change undone settles quietly).
    stayed: flap.event === 'settled' && !flap.quiet && last ? { sha256: last.sha256, firstSeen: last.runAt } : null,
    since: flap.state.since?.toISOString() ?? null,
  };
}
