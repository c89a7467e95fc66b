/**
 * The parse summary and lint counts stored with a body: enough for reports to spot a file that
 * lost its groups or grew errors without re-parsing bodies. Computed once per distinct body.
 */
import { lintRobotsTxt, parseRobotsTxt } from '../robots/index.js';
import type { RobotsTxt } from '../robots/index.js';
import type { StarRuleGaps } from '../robots/star-rule-gaps.js';

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

/**
 * `parsed`: the body's parse when the caller has it already (it is not parsed again); `gaps`, its
 * star-rule gaps likewise (lint would compute them).
 */
export function summarizeBody(body: Uint8Array, parsed: RobotsTxt = parseRobotsTxt(body), gaps?: StarRuleGaps): SnapshotSummary {
  let lintErrors = 0;
  let lintWarnings = 0;
  let lintInfos = 0;
  for (const d of lintRobotsTxt(body, gaps ? { starRuleGaps: gaps } : {})) {
    if (d.severity === 'error') lintErrors++;
    else if (d.severity === 'warning') lintWarnings++;
    else lintInfos++;
  }
  const cap = (n: number) => Math.min(n, SMALLINT_MAX);
  return {
    groups: cap(parsed.groups.length),
    rules: parsed.groups.reduce((n, g) => n + g.rules.length, 0),
    sitemaps: cap(parsed.sitemaps.length),
    lintErrors: cap(lintErrors),
    lintWarnings: cap(lintWarnings),
    lintInfos: cap(lintInfos),
  };
}
