/**
 * `robots-audit history` output: a table of nights, newest first, with what each night changed,
 * the verdicts that flipped, the usage preferences that changed and the alerts under it; or the
 * documented JSON. Pure.
 */
import type { HistoryFlip, HistoryNight, SiteHistory } from './site-history.js';
import { alignColumns, formatNight, outcomeText, plural, policyText } from './site-text.js';
import { ruleLine } from '../robots/diff.js';
import { usageFlipLines } from './usage-flips.js';

/** Flip lines (one per URL and change) shown under one night; `--json` lists every flip. */
export const MAX_FLIP_LINES = 8;

const verdictWord = (allowed: boolean | null) => (allowed === null ? 'new' : allowed ? 'allowed' : 'disallowed');

/**
 * The flips of a night as lines: one per URL and change (from, to, cause, deciding line), with
 * the agents it applies to, so ten agents flipping the same way at the root take one line.
 */
export function flipLines(flips: readonly HistoryFlip[], max = MAX_FLIP_LINES): string[] {
  const groups = new Map<string, string[]>();
  for (const f of flips) {
    const rule = f.ruleAfter ? `, line ${f.ruleAfter.line}: ${ruleLine(f.ruleAfter)}` : '';
    const head = `${f.url}: ${verdictWord(f.from)} → ${verdictWord(f.to)} (${f.cause}${rule})`;
    const agents = groups.get(head);
    if (agents) agents.push(f.agent);
    else groups.set(head, [f.agent]);
  }
  const entries = [...groups.entries()];
  const lines = entries.slice(0, max).map(([head, agents]) => `${head} for ${agents.join(', ')}`);
  const hidden = entries.slice(max).reduce((n, [, agents]) => n + agents.length, 0);
  if (hidden > 0) lines.push(`… ${plural(hidden, 'more flip')} (--json lists them all)`);
  return lines;
}

function eventLines(night: HistoryNight): string[] {
  const lines: string[] = [];
  if (night.flapping) lines.push(night.confirmSha256 ? `flapping: two answers disagreed (the other: ${night.confirmSha256.slice(0, 12)})` : 'flapping: its changes raise no alerts of their own');
  if (night.changes.length > 0) lines.push(`changed: ${night.changes.join(', ')}`);
  if (night.flips.length > 0) lines.push(`flips: ${night.flips.length}`, ...flipLines(night.flips).map((l) => `  ${l}`));
  if (night.usageFlips.length > 0) {
    const { lines: usage, hidden } = usageFlipLines(night.usageFlips, MAX_FLIP_LINES);
    lines.push(`usage flips: ${night.usageFlips.length}`, ...usage.map((l) => `  ${l}`));
    if (hidden > 0) lines.push(`  … ${plural(hidden, 'more usage flip')} (--json lists them all)`);
  }
  for (const a of night.alerts) lines.push(`alert ${a.severity} ${a.kind}: ${a.title}`);
  return lines;
}

/** A night still to come: pending until its retry, the previous night's policy standing meanwhile (issue 26). */
export function waitLines(history: SiteHistory): string[] {
  return (history.waits ?? []).map(
    (w) =>
      `pending until ${w.until.toISOString()}: the night of ${formatNight(w.night)} (${w.runKey}) waits for its retry after ${w.answer}` +
      `${w.pending ? ' (its run does not wait for it)' : ''}; until then the policy of the night before stands`,
  );
}

export function formatHistory(history: SiteHistory): string {
  const { site, nights, totalNights } = history;
  const waits = waitLines(history);
  if (nights.length === 0) return `${site.origin}: no nights yet (robots-audit audit runs one)\n${waits.map((l) => `${l}\n`).join('')}`;
  const shown = nights.length === totalNights ? plural(totalNights, 'night') : `${plural(totalNights, 'night')}, the newest ${nights.length} shown`;
  const rows = [
    ['NIGHT (UTC)', 'RUN', 'OUTCOME', 'POLICY'],
    ...nights.map((n) => [formatNight(n.night), n.runKey, outcomeText(n.outcome, n.status, n.errorCode), policyText(n.policy, n.policyReason, n.rulesNight)]),
  ];
  const table = alignColumns(rows);
  const out = [`${site.origin}: ${shown}, newest first`, ...waits, '', table[0]!];
  nights.forEach((night, i) => {
    out.push(table[i + 1]!);
    for (const line of eventLines(night)) out.push(`    ${line}`);
  });
  return `${out.join('\n')}\n`;
}

/**
 * The JSON of `history --json` (stable: keys are only ever added). Times are ISO strings (UTC);
 * `status`, `errorCode`, `unreachableSince`, `rulesNight`, `rulesRunKey`, `bodySha256`,
 * `bodyBytes` and `confirmSha256` are null when they do not apply; `usageFlips`: the usage
 * preferences that changed (purpose, from, to: `allowed` / `refused` / `unknown`, and the lines
 * `{line, mechanism, label, value, since}` before and after). `pending`: the site's nights
 * still to come, waiting for a retry (issue 26), the soonest due first.
 */
export function historyJson(history: SiteHistory, limit: number) {
  return {
    site: { id: history.site.id, origin: history.site.origin },
    totalNights: history.totalNights,
    limit,
    nights: history.nights.map((n) => ({
      night: n.night.toISOString(),
      runId: n.runId,
      runKey: n.runKey,
      outcome: n.outcome,
      status: n.status,
      errorCode: n.errorCode,
      policy: n.policy,
      policyReason: n.policyReason,
      unreachableSince: n.unreachableSince?.toISOString() ?? null,
      rulesNight: n.rulesNight?.toISOString() ?? null,
      rulesRunKey: n.rulesRunKey,
      bodySha256: n.bodySha256,
      bodyBytes: n.bodyBytes,
      flapping: n.flapping,
      confirmSha256: n.confirmSha256,
      changes: n.changes,
      flips: n.flips.map((f) => ({ url: f.url, agent: f.agent, from: f.from, to: f.to, cause: f.cause, ruleBefore: f.ruleBefore, ruleAfter: f.ruleAfter })),
      alerts: n.alerts.map((a) => ({ severity: a.severity, kind: a.kind, title: a.title })),
      usageFlips: n.usageFlips.map((f) => ({ url: f.url, agent: f.agent, purpose: f.purpose, from: f.from, to: f.to, ruleBefore: f.ruleBefore, ruleAfter: f.ruleAfter })),
    })),
    pending: (history.waits ?? []).map((w) => ({
      night: w.night.toISOString(),
      runId: w.runId,
      runKey: w.runKey,
      until: w.until.toISOString(),
      runWaits: !w.pending,
      answer: w.answer,
    })),
  };
}
