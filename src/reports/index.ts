/**
 * The read side: reports over the reporting views and tables, each a typed table that the CLI,
 * the demo and the dashboard write as a terminal table, CSV or JSON (format.ts). Reports read
 * the database only; they never call the pipeline's code.
 */
import type pg from 'pg';
import type { ReportTable } from './format.js';
import type { ReportFilters } from './report-filters.js';
import { aiAccessSource } from './report-ai-access.js';
import { aiUseSource } from './report-ai-use.js';
import { complianceSource, violationsSource } from './report-compliance.js';
import { alertsSource } from './report-alerts.js';
import { changesSource } from './report-changes.js';
import { failingSource } from './report-failing.js';
import { flipsSource } from './report-flips.js';
import { lintSource } from './report-lint.js';
import { portabilitySource } from './report-portability.js';
import type { ReportSource } from './report-source.js';
import { collectReport } from './report-source.js';
import { statusSource } from './report-status.js';

export const REPORT_NAMES = ['status', 'changes', 'flips', 'alerts', 'ai-access', 'ai-use', 'failing', 'lint', 'portability', 'compliance', 'violations'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

type AnySource = ReportSource<never>;
const SOURCES: Record<ReportName, (pool: pg.Pool, filters: ReportFilters) => AnySource | Promise<AnySource>> = {
  status: (_pool, filters) => statusSource(filters),
  changes: changesSource,
  flips: flipsSource,
  alerts: alertsSource,
  'ai-access': aiAccessSource,
  'ai-use': aiUseSource,
  failing: (_pool, filters) => failingSource(filters),
  lint: lintSource,
  portability: portabilitySource,
  compliance: (_pool, filters) => complianceSource(filters),
  violations: (_pool, filters) => violationsSource(filters),
};

export function isReportName(name: string): name is ReportName {
  return (REPORT_NAMES as readonly string[]).includes(name);
}

const NO_FILTERS: ReportFilters = { portfolioId: null, since: null };

/** The report's query and row mapping, for `collectReport` or `streamReport` (report-source.ts). */
export async function reportSource(pool: pg.Pool, name: ReportName, filters: ReportFilters = NO_FILTERS): Promise<ReportSource> {
  return (await SOURCES[name](pool, filters)) as unknown as ReportSource;
}

export async function buildReport(pool: pg.Pool, name: ReportName, filters: ReportFilters = NO_FILTERS): Promise<ReportTable> {
  return collectReport(pool, name, await reportSource(pool, name, filters));
}

export { streamReport } from './report-source.js';
export { formatReport, REPORT_FORMATS } from './format.js';
export type { ReportColumn, ReportFormat, ReportRow, ReportTable, ReportValue } from './format.js';
export { ReportInputError, parseSince, resolveReportFilters } from './report-filters.js';
export type { ReportFilters, ReportFilterInput } from './report-filters.js';
export { RECENT_DAYS } from './recent.js';
