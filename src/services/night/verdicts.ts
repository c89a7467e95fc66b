/**
 * Step 4 of a night: the verdicts of every tracked URL x agent under the night's policy, only
 * when something that decides them changed (the evaluation key); the verdict spans they close
 * and open, and the flips, with the rule before and after; and the usage preferences each
 * crawler is told (usage.ts), kept on the same spans, with their own flips.
 */
import type { UsageFlip, VerdictFlip } from '../../night/alerts.js';
import type { SiteNightInput, VerdictSpan } from '../../night/input.js';
import { evaluationKey } from '../../night/keys.js';
import type { FlipRow, SiteNight, UsageFlipRow } from '../../night/rows.js';
import { agentFamilyOrOther } from '../../night/vocabulary.js';
import { policyEvaluator } from '../policy-evaluator.js';
import type { PolicyEvaluator, PolicyVerdict } from '../policy-evaluator.js';
import type { NightAnswer } from './answer.js';
import type { NightChanges } from './changes.js';
import type { NightReads } from './night-reads.js';
import type { NightPolicy } from './policy.js';
import { preferenceChanges, sameUsage, spanUsage } from './usage.js';
import type { SpanUsage } from './usage.js';

export interface NightVerdicts {
  evalKey: Buffer;
  /** Whether the verdicts were evaluated (false: nothing that decides them changed). */
  evaluated: boolean;
  spans: SiteNight['spans'];
  /** The flips as stored, and as the alert rules read them. */
  flipRows: FlipRow[];
  flips: VerdictFlip[];
  /** The usage preferences that changed, as stored and as the alert rules read them. */
  usageFlipRows: UsageFlipRow[];
  usageFlips: UsageFlip[];
}

const spanKey = (trackedUrlId: number, userAgentId: number) => `${trackedUrlId}:${userAgentId}`;

export async function nightVerdicts(input: SiteNightInput, answer: NightAnswer, rules: NightPolicy, changes: NightChanges, reads: NightReads): Promise<NightVerdicts> {
  const { previous, runId, runAt, siteId, nextNight: next } = input;
  const kind = rules.policy.kind;
  const evalKey = evaluationKey(kind, rules.rulesSha256, input.targetsHash);
  const evaluated = previous === null || previous.evalKey === null || !previous.evalKey.equals(evalKey) || next !== null;
  const out: NightVerdicts = { evalKey, evaluated, spans: { close: [], open: [] }, flipRows: [], flips: [], usageFlipRows: [], usageFlips: [] };
  if (!evaluated) return out;

  const fallback = kind === 'rules' && rules.fromFallback && previous?.lastGood ? await reads.body(previous.lastGood.body) : null;
  // The bytes the rules come from go along for the crawlers' own parsers (read lazily, once per profile).
  const now = kind !== 'rules' ? policyEvaluator(kind, null) : rules.fromFallback ? policyEvaluator(kind, fallback?.parsed ?? null, fallback?.bytes ?? null) : policyEvaluator(kind, answer.parsed(), answer.body);
  const inForce = previous
    ? new Map((await reads.load.spansInForce(input.targets.map((t) => t.trackedUrlId), previous, next !== null)).map((s) => [spanKey(s.trackedUrlId, s.userAgentId), s]))
    : new Map<string, VerdictSpan>();
  let before: PolicyEvaluator | null = null;
  const evaluatorBefore = async () => {
    if (before) return before;
    const rulesBefore = previous!.policy === 'rules' && previous!.rulesBody !== null ? await reads.body(previous!.rulesBody) : null;
    return (before = policyEvaluator(previous!.policy, rulesBefore?.parsed ?? null));
  };
  for (const target of input.targets) {
    for (const agent of target.agents) {
      const verdict = now(target.url, agent.token);
      const key = spanKey(target.trackedUrlId, agent.id);
      const held = inForce.get(key);
      inForce.delete(key);
      const usage = spanUsage(verdict.usage, held, runAt);
      if (held && sameVerdict(held, verdict, usage)) continue;
      if (held) out.spans.close.push(closed(held, input));
      out.spans.open.push({
        trackedUrlId: target.trackedUrlId,
        userAgentId: agent.id,
        validFrom: runAt,
        validTo: next?.runAt ?? null,
        fromRunId: runId,
        toRunId: next?.runId ?? null,
        allowed: verdict.allowed,
        ruleLine: verdict.rule?.line ?? null,
        parserProfile: verdict.parser?.profile ?? null,
        parserAllowed: verdict.parser?.allowed ?? null,
        ...usage,
      });
      // A replayed night cuts the span in force into before it, itself (up to the next night),
      // and, when the span went on past the next night, the rest of it.
      if (held && next && (held.toRunId === null || held.toRunId !== next.runId)) out.spans.open.push({ ...held, validFrom: next.runAt, fromRunId: next.runId });
      if (held) usageFlipsOf(out, input, target, agent, held, verdict.allowed, usage);
      if (!held || held.allowed === verdict.allowed) continue;
      const ruleBefore = (await evaluatorBefore())(target.url, agent.token).rule;
      const cause = changes.flipCause;
      out.flipRows.push({ runId, siteId, trackedUrlId: target.trackedUrlId, userAgentId: agent.id, fromAllowed: held.allowed, toAllowed: verdict.allowed, cause, ruleBefore, ruleAfter: verdict.rule });
      out.flips.push({
        url: target.url,
        agent: agent.token,
        agentFamily: agentFamilyOrOther(agent.family),
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
  if (!next) for (const held of inForce.values()) out.spans.close.push(closed(held, input));
  return out;
}

function sameVerdict(held: VerdictSpan, verdict: PolicyVerdict, usage: SpanUsage): boolean {
  return (
    held.allowed === verdict.allowed &&
    held.ruleLine === (verdict.rule?.line ?? null) &&
    held.parserProfile === (verdict.parser?.profile ?? null) &&
    held.parserAllowed === (verdict.parser?.allowed ?? null) &&
    sameUsage(held, usage)
  );
}

/** The usage flips of one URL x agent (usage.ts, D-15), as stored and as the alert rules read them. */
function usageFlipsOf(out: NightVerdicts, input: SiteNightInput, target: SiteNightInput['targets'][number], agent: SiteNightInput['targets'][number]['agents'][number], held: VerdictSpan, allowed: boolean, usage: SpanUsage): void {
  for (const c of preferenceChanges(held, held.allowed, usage, allowed)) {
    out.usageFlipRows.push({ runId: input.runId, siteId: input.siteId, trackedUrlId: target.trackedUrlId, userAgentId: agent.id, ...c });
    out.usageFlips.push({ url: target.url, agent: agent.token, agentFamily: agentFamilyOrOther(agent.family), isRoot: target.isRoot, ...c });
  }
}

const closed = (held: VerdictSpan, { runAt, runId }: Pick<SiteNightInput, 'runAt' | 'runId'>) => ({
  trackedUrlId: held.trackedUrlId,
  userAgentId: held.userAgentId,
  validFrom: held.validFrom,
  fromRunId: held.fromRunId,
  validTo: runAt,
  toRunId: runId,
});
