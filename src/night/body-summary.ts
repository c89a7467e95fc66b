/**
 * The parse summary and lint counts stored with a body: enough for reports to spot a file that
 * lost its groups or grew errors without re-parsing bodies. Computed once per distinct body.
 */
import { lintAndParse } from '../robots/index.js';
import type { RobotsTxt } from '../robots/index.js';
import type { StarRuleGaps } from '../robots/star-rule-gaps.js';
import type { Diagnostic } from '../robots/types.js';

export interface SnapshotSummary {
  groups: number;
  rules: number;
  sitemaps: number;
  lintErrors: number;
  lintWarnings: number;
  lintInfos: number;
}

export const EMPTY_SUMMARY: SnapshotSummary = { groups: 0, rules: 0, sitemaps: 0, lintErrors: 0, lintWarnings: 0, lintInfos: 0 };

/** smallint columns: counts past this are stored as this (a 500 KiB file has at most ~50k lines). */
const SMALLINT_MAX = 32_767;

/** A body's summary, with the findings, the parse and the star-rule gaps its one scan built (a night goes on with them). */
export interface SummarizedBody {
  summary: SnapshotSummary;
  /** Lint's findings, in line order (`fetch` shows the first ones). */
  diagnostics: Diagnostic[];
  parsed: RobotsTxt;
  starRuleGaps: StarRuleGaps;
}

/** Lints and parses a body in one scan (lintAndParse) and counts what a report needs. */
export function summarizeAndParse(body: Uint8Array): SummarizedBody {
  const { diagnostics, parsed, starRuleGaps } = lintAndParse(body);
  let lintErrors = 0;
  let lintWarnings = 0;
  let lintInfos = 0;
  for (const d of diagnostics) {
    if (d.severity === 'error') lintErrors++;
    else if (d.severity === 'warning') lintWarnings++;
    else lintInfos++;
  }
  const cap = (n: number) => Math.min(n, SMALLINT_MAX);
  const summary = {
    groups: cap(parsed.groups.length),
    rules: parsed.groups.reduce((n, g) => n + g.rules.length, 0),
    sitemaps: cap(parsed.sitemaps.length),
    lintErrors: cap(lintErrors),
    lintWarnings: cap(lintWarnings),
    lintInfos: cap(lintInfos),
  };
  return { summary, diagnostics, parsed, starRuleGaps };
}
