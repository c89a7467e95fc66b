/**
 * A site's night, once its snapshot is stored: what changed against the previous snapshot
 * (raw bytes, rules per group, sitemaps, other records, fetch outcome, effective policy, the
 * 30-day fallback), every tracked URL x agent verdict under the effective policy, the verdicts
 * that flipped, and the alerts they raise. Everything is written in one transaction that also
 * marks the snapshot diffed, so a retried or duplicated job adds nothing.
 */
import type { Snapshot } from '../db/index.js';
import type { ChangeInput, FlipInput, Verdict, VerdictInput } from '../db/changes.repo.js';
import type { Logger } from '../log/logger.js';
import type { PolicyKind, PolicyReason } from '../policy/index.js';
import { diffRobotsTxt, unifiedTextDiff } from '../robots/diff.js';
import type { RobotsChangeKind } from '../robots/diff.js';
import { parseRobotsTxt } from '../robots/index.js';
import { alertsForSiteNight } from './alerting/alert-rules.js';
import type { AgentFamily, AlertDraft, VerdictFlip } from './alerting/alert-rules.js';
import { policyEvaluator } from './policy-evaluator.js';
import type { PolicyEvaluator } from './policy-evaluator.js';

export interface EvaluationTarget {
  trackedUrlId: number;
  url: string;
  isRoot: boolean;
  agents: { id: number; token: string; family: string | null }[];
}

/** What the diff needs to read (outside the transaction). */
export interface DiffReader {
  snapshotFor(runId: number, siteId: number): Promise<Snapshot | null>;
  previousSnapshot(snapshot: Snapshot): Promise<Snapshot | null>;
  /** The latest snapshot with a body (outcome ok) strictly before this one. */
  lastGoodBefore(snapshot: Snapshot): Promise<Snapshot | null>;
  snapshotById(id: number): Promise<Snapshot | null>;
  getBody(sha256: Buffer): Promise<Buffer | null>;
  siteOrigin(siteId: number): Promise<string | null>;
  evaluationTargets(siteId: number): Promise<EvaluationTarget[]>;
  verdictsOf(runId: number, trackedUrlIds: number[]): Promise<Verdict[]>;
}

/** What the diff writes, in one transaction. */
export interface DiffWriter {
  insertChange(input: ChangeInput): Promise<void>;
  insertVerdicts(rows: VerdictInput[]): Promise<void>;
  insertFlips(rows: FlipInput[]): Promise<void>;
  /** Stores the alerts (idempotent on dedupe key) and their deliveries to per-alert channels. */
  raiseAlerts(runId: number, siteId: number, drafts: AlertDraft[]): Promise<void>;
  markDiffed(snapshotId: number, at: Date): Promise<void>;
}

export interface DiffSiteDeps {
  reader: DiffReader;
  /** Runs `fn` in one transaction. */
  transaction<T>(fn: (writer: DiffWriter) => Promise<T>): Promise<T>;
  log: Logger;
  now: () => Date;
}

export type DiffSiteResult =
  | { kind: 'diffed'; changeKinds: string[]; flips: number; alerts: number }
  | { kind: 'already-diffed' }
  | { kind: 'no-snapshot' };

/** The change kinds stored in `snapshot_changes.kinds`. */
export type ChangeKind = 'first_seen' | 'raw' | RobotsChangeKind | 'outcome' | 'policy' | 'fallback_started' | 'fallback_ended';

/** Why a verdict flipped, most specific first. */
export type FlipCause = 'fallback_started' | 'fallback_ended' | 'outcome_changed' | 'rules_changed';

const FAMILIES: readonly AgentFamily[] = ['search', 'ai', 'seo', 'social', 'other'];
const asFamily = (f: string | null): AgentFamily => (FAMILIES.includes(f as AgentFamily) ? (f as AgentFamily) : 'other');

export function createDiffSiteService(deps: DiffSiteDeps) {
  const { reader } = deps;

  async function rulesBodyOf(snapshot: Snapshot, ownBody: Buffer | null): Promise<Buffer | null> {
    if (snapshot.policy !== 'rules' || snapshot.policySnapshotId === null) return null;
    if (snapshot.policySnapshotId === snapshot.id) return ownBody;
    const source = await reader.snapshotById(snapshot.policySnapshotId);
    return source?.bodySha256 ? reader.getBody(source.bodySha256) : null;
  }

  async function evaluatorFor(snapshot: Snapshot): Promise<PolicyEvaluator> {
    const own = snapshot.bodySha256 ? await reader.getBody(snapshot.bodySha256) : null;
    return policyEvaluator(snapshot, await rulesBodyOf(snapshot, own));
  }

  /** Raw and semantic change of the fetched bytes against the last fetched bytes. */
  async function contentChange(snapshot: Snapshot, body: Buffer | null) {
    if (snapshot.outcome !== 'ok' || !body) return { kinds: [] as ChangeKind[], rulesDiff: null, textDiff: null };
    const lastGood = await reader.lastGoodBefore(snapshot);
    if (lastGood?.bodySha256 && snapshot.bodySha256 && lastGood.bodySha256.equals(snapshot.bodySha256)) {
      return { kinds: [] as ChangeKind[], rulesDiff: null, textDiff: null };
    }
    const before = lastGood?.bodySha256 ? await reader.getBody(lastGood.bodySha256) : null;
    const rulesDiff = diffRobotsTxt(before ? parseRobotsTxt(before) : null, parseRobotsTxt(body), { before, after: body });
    const kinds: ChangeKind[] = ['raw', ...rulesDiff.kinds.filter((k) => k !== 'identical')];
    return { kinds, rulesDiff, textDiff: unifiedTextDiff(before, body) };
  }

  async function diffSite(runId: number, siteId: number): Promise<DiffSiteResult> {
    const snapshot = await reader.snapshotFor(runId, siteId);
    if (!snapshot) return { kind: 'no-snapshot' };
    if (snapshot.diffedAt) return { kind: 'already-diffed' };
    const origin = (await reader.siteOrigin(siteId)) ?? '';
    const previous = await reader.previousSnapshot(snapshot);
    const body = snapshot.bodySha256 ? await reader.getBody(snapshot.bodySha256) : null;

    // A site's first snapshot is its baseline: nothing to compare its bytes with.
    const content = previous ? await contentChange(snapshot, body) : { kinds: [] as ChangeKind[], rulesDiff: null, textDiff: null };
    const kinds: ChangeKind[] = [];
    if (!previous) kinds.push('first_seen');
    kinds.push(...content.kinds);
    const outcomeChanged = previous !== null && previous.outcome !== snapshot.outcome;
    const policyChanged = previous !== null && previous.policy !== snapshot.policy;
    // D-3: the fallback is in force exactly when the policy's reason is D-3.
    const fallbackStarted = snapshot.policyReason === 'D-3' && previous !== null && previous.policyReason !== 'D-3';
    const fallbackEnded = previous?.policyReason === 'D-3' && snapshot.policyReason !== 'D-3';
    if (outcomeChanged) kinds.push('outcome');
    if (policyChanged) kinds.push('policy');
    if (fallbackStarted) kinds.push('fallback_started');
    if (fallbackEnded) kinds.push('fallback_ended');

    // Verdicts of every tracked URL (the root included) x agent, and the flips.
    const targets = await reader.evaluationTargets(siteId);
    const evaluate = policyEvaluator(snapshot, await rulesBodyOf(snapshot, body));
    const previousVerdicts = previous ? await reader.verdictsOf(previous.runId, targets.map((t) => t.trackedUrlId)) : [];
    const before = new Map(previousVerdicts.map((v) => [`${v.trackedUrlId}:${v.userAgentId}`, v]));
    let previousEvaluate: PolicyEvaluator | null = null;
    const cause: FlipCause = fallbackStarted
      ? 'fallback_started'
      : fallbackEnded
        ? 'fallback_ended'
        : outcomeChanged || policyChanged
          ? 'outcome_changed'
          : 'rules_changed';

    const verdictRows: VerdictInput[] = [];
    const flipRows: FlipInput[] = [];
    const flips: VerdictFlip[] = [];
    for (const target of targets) {
      for (const agent of target.agents) {
        const now = evaluate(target.url, agent.token);
        verdictRows.push({ trackedUrlId: target.trackedUrlId, runId, userAgentId: agent.id, allowed: now.allowed, ruleLine: now.rule?.line ?? null });
        const then = before.get(`${target.trackedUrlId}:${agent.id}`);
        if (!then || then.allowed === now.allowed || !previous) continue;
        previousEvaluate ??= await evaluatorFor(previous);
        const ruleBefore = previousEvaluate(target.url, agent.token).rule;
        flipRows.push({
          runId,
          siteId,
          trackedUrlId: target.trackedUrlId,
          userAgentId: agent.id,
          fromAllowed: then.allowed,
          toAllowed: now.allowed,
          cause,
          ruleBefore,
          ruleAfter: now.rule,
        });
        flips.push({
          url: target.url,
          agent: agent.token,
          agentFamily: asFamily(agent.family),
          isRoot: target.isRoot,
          from: then.allowed,
          to: now.allowed,
          cause,
          ruleBefore: ruleBefore && { kind: ruleBefore.kind, value: ruleBefore.value, line: ruleBefore.line },
          ruleAfter: now.rule && { kind: now.rule.kind, value: now.rule.value, line: now.rule.line },
        });
      }
    }

    const drafts = alertsForSiteNight({
      runId: String(runId),
      siteId,
      origin,
      change: {
        kinds: content.kinds.filter((k): k is RobotsChangeKind => k !== 'raw'),
        rulesDiff: content.rulesDiff,
        outcomeFrom: previous?.outcome ?? null,
        outcomeTo: snapshot.outcome,
        policyFrom: (previous?.policy ?? null) as PolicyKind | null,
        policyTo: snapshot.policy as PolicyKind,
        policyReasonTo: snapshot.policyReason as PolicyReason,
        fallbackStarted,
        fallbackEnded,
      },
      flips,
    });

    await deps.transaction(async (w) => {
      if (kinds.length > 0) {
        await w.insertChange({
          snapshotId: snapshot.id,
          previousSnapshotId: previous?.id ?? null,
          runId,
          siteId,
          outcomeFrom: previous?.outcome ?? null,
          outcomeTo: snapshot.outcome,
          policyFrom: previous?.policy ?? null,
          policyTo: snapshot.policy,
          kinds,
          textDiff: content.textDiff,
          ruleDiff: content.rulesDiff,
        });
      }
      await w.insertVerdicts(verdictRows);
      await w.insertFlips(flipRows);
      await w.raiseAlerts(runId, siteId, drafts);
      await w.markDiffed(snapshot.id, deps.now());
    });
    deps.log.debug({ runId, siteId, kinds, flips: flips.length, alerts: drafts.length }, 'site diffed');
    return { kind: 'diffed', changeKinds: kinds, flips: flips.length, alerts: drafts.length };
  }

  return { diffSite };
}

export type DiffSiteService = ReturnType<typeof createDiffSiteService>;
