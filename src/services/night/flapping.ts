/**
 * Step 5 of a night: flapping (src/policy/flapping.ts), from the versions of the last nights and
 * a confirmation that disagreed; the disagreeing body stored beside the night's; and, for the
 * alerts, the versions in rotation and (the night flapping starts) which verdicts differ between them.
 */
import { DEFAULT_FLAPPING_OPTIONS, flappingNight } from '../../policy/flapping.js';
import type { FlappingResult } from '../../policy/flapping.js';
import { diffRobotsTxt } from '../../robots/diff.js';
import { parseRobotsTxt } from '../../robots/index.js';
import type { RobotsTxt } from '../../robots/index.js';
import type { FlappingChange, RotationDifference } from '../../night/alerts.js';
import { indexBody } from '../../night/body-index.js';
import { summarizeAndParse } from '../../night/body-summary.js';
import type { SiteNightInput } from '../../night/input.js';
import type { NewBody } from '../../night/rows.js';
import { agentFamilyOrOther } from '../../night/vocabulary.js';
import { policyEvaluator } from '../policy-evaluator.js';
import type { NightAnswer } from './answer.js';
import type { NightReads } from './night-reads.js';

export interface NightFlapping {
  /** Null for a replayed night (flapping is the latest nights' story). */
  flap: FlappingResult | null;
  confirmBody: NewBody | null;
  /** What the alerts say, when the site flaps tonight. */
  change: FlappingChange | undefined;
}

export async function nightFlapping(input: SiteNightInput, answer: NightAnswer, reads: NightReads): Promise<NightFlapping> {
  const { previous, runId, runAt } = input;
  // A site's state from before the versions were kept starts from its last good version.
  const knownVersions =
    previous && previous.recentVersions.length === 0 && previous.lastGood
      ? [{ sha256: previous.lastGood.sha256.toString('hex'), runId: previous.lastGood.runId, runAt: previous.lastGood.runAt.toISOString() }]
      : (previous?.recentVersions ?? []);
  const flap = input.nextNight
    ? null
    : flappingNight(
        { versions: knownVersions, since: previous?.flappingSince ?? null, stableNights: previous?.stableNights ?? 0 },
        { runId, runAt, sha256: answer.sha256?.toString('hex') ?? null, disagreeing: answer.otherSha?.toString('hex') ?? null },
        input.flappingOptions ?? DEFAULT_FLAPPING_OPTIONS,
      );
  let confirmBody: NewBody | null = null;
  let confirmParsed: RobotsTxt | null = null;
  if (answer.other && answer.otherSha) {
    const s = summarizeAndParse(answer.other);
    confirmParsed = s.parsed;
    confirmBody = { sha256: answer.otherSha, content: answer.other, summary: s.summary, index: indexBody(s.parsed, input.catalogueTokens) };
  }
  if (!flap?.flapping) return { flap, confirmBody, change: undefined };
  // The versions in hand, parsed once: tonight's (only now: a quiet night never parses a body it
  // had already), and the disagreeing confirmation's, from the scan that summarised it.
  const inHand = new Map<string, RobotsTxt>();
  if (answer.body && answer.sha256) inHand.set(answer.sha256.toString('hex'), answer.parsed());
  if (confirmParsed && answer.otherSha) inHand.set(answer.otherSha.toString('hex'), confirmParsed);
  return { flap, confirmBody, change: await flappingChange(flap, input, reads, inHand) };
}

/**
 * The versions in rotation, and (the night it starts) which tracked URL x agent verdicts differ
 * between them. Bodies in hand are used as they are; the others are read by hash, only on the
 * night flapping starts.
 */
async function flappingChange(flap: FlappingResult, input: SiteNightInput, reads: NightReads, inHand: Map<string, RobotsTxt>): Promise<FlappingChange> {
  const firstSeen = new Map<string, string>();
  for (const v of flap.state.versions) if (!firstSeen.has(v.sha256)) firstSeen.set(v.sha256, v.runAt);
  const versions = flap.rotation.map((sha256) => ({ sha256, firstSeen: firstSeen.get(sha256) ?? '' }));
  const differences: RotationDifference[] = [];
  let rulesDiffer = false;
  if (flap.event === 'started') {
    const evaluators = [];
    const parsedVersions: RobotsTxt[] = [];
    for (const v of versions) {
      let parsedVersion = inHand.get(v.sha256);
      if (parsedVersion === undefined) {
        const bytes = await reads.load.bodyBySha(Buffer.from(v.sha256, 'hex'));
        if (!bytes) continue;
        parsedVersion = parseRobotsTxt(bytes);
      }
      parsedVersions.push(parsedVersion);
      evaluators.push({ sha256: v.sha256, check: policyEvaluator('rules', parsedVersion) });
    }
    // Rules that differ for some crawler between the first version and any other.
    rulesDiffer = parsedVersions.slice(1).some((other) => diffRobotsTxt(parsedVersions[0]!, other).kinds.some((k) => k === 'rules' || k === 'records'));
    for (const t of input.targets) {
      for (const a of t.agents) {
        const allowedBy = Object.fromEntries(evaluators.map((e) => [e.sha256, e.check(t.url, a.token).allowed]));
        if (new Set(Object.values(allowedBy)).size > 1) differences.push({ url: t.url, agent: a.token, agentFamily: agentFamilyOrOther(a.family), isRoot: t.isRoot, allowedBy });
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
