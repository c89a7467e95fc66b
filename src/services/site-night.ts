/**
 * A site's night in one pass, from what the fetch brought and what the previous night left
 * (house style, habit 10: the body, its parse and the previous state are in hand, so nothing is
 * written and read back). A pipeline of pure steps (src/services/night/), each taking the records
 * of the steps before: the answer (hashed, linted and parsed once) -> the effective policy and the
 * rules in force -> what changed, with the policy transitions -> the verdicts, their spans and
 * flips (only when something that decides them changed) -> flapping -> the alerts -> the rows.
 * No I/O of its own: the two things it may need beyond its input (an earlier body, the verdict
 * spans in force) come through `NightLoaders`, asked for only when needed and read once
 * (night-reads.ts), so a night that changes nothing costs no read at all.
 */
import type { NightLoaders, SiteNightInput } from '../night/input.js';
import type { SiteNight } from '../night/rows.js';
import { nightAlerts } from './night/alerts.js';
import { nightAnswer } from './night/answer.js';
import { nightChanges } from './night/changes.js';
import { nightFlapping } from './night/flapping.js';
import { nightPolicy } from './night/policy.js';
import { nightReads } from './night/night-reads.js';
import { changeRow, snapshotRow, stateRow } from './night/rows.js';
import { nightVerdicts } from './night/verdicts.js';

export async function computeSiteNight(input: SiteNightInput, load: NightLoaders): Promise<SiteNight> {
  const reads = nightReads(load);
  const answer = nightAnswer(input);
  const rules = nightPolicy(input, answer);
  const changes = await nightChanges(input, answer, rules, reads);
  const verdicts = await nightVerdicts(input, answer, rules, changes, reads);
  const flapping = await nightFlapping(input, answer, reads);
  const alerts = nightAlerts(input, answer, rules, changes, verdicts, flapping);
  const change = changeRow(input, answer, rules, changes);
  return {
    siteId: input.siteId,
    runId: input.runId,
    snapshot: snapshotRow(input, answer, rules, flapping),
    newBody: answer.newBody,
    confirmBody: flapping.confirmBody,
    newResponse: answer.response.newRow,
    change,
    spans: verdicts.spans,
    flips: verdicts.flipRows,
    usageFlips: verdicts.usageFlipRows,
    alerts,
    state: stateRow(input, answer, rules, change, verdicts.evalKey, flapping),
    expectedStateRunId: input.nextNight ? null : (input.previous?.runId ?? null),
    evaluated: verdicts.evaluated,
  };
}
