/**
 * The read side: reports over the reporting views and tables, each a typed table that the CLI,
 * the demo and the dashboard write as a terminal table, CSV or JSON (format.ts). Reports read
 * the database only; they never call the pipeline's code.
 */
import type pg from 'pg';
import type { ReportTable } from './format.js';
import type { ReportFilters } from './report-filters.js';
import { aiAccessReport } from './report-ai-access.js';
import { changesReport } from './report-changes.js';
import { failingReport } from './report-failing.js';
import { flipsReport } from './report-flips.js';
import { lintReport } from './report-lint.js';
import { statusReport } from './report-status.js';

export const REPORT_NAMES = ['status', 'changes', 'flips', 'ai-access', 'failing', 'lint'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

const REPORTS: Record<ReportName, (pool: pg.Pool, filters: ReportFilters) => Promise<ReportTable>> = {
  status: statusReport,
  changes: changesReport,
  flips: flipsReport,
  'ai-access': aiAccessReport,
  failing: failingReport,
  lint: lintReport,
};

export function isReportName(name: string): name is ReportName {
  return (REPORT_NAMES as readonly string[]).includes(name);
}

export function buildReport(pool: pg.Pool, name: ReportName, filters: ReportFilters = { portfolioId: null, since: null }): Promise<ReportTable> {
  return REPORTS[name](pool, filters);
}

export { formatReport, REPORT_FORMATS } from './format.js';
export type { ReportColumn, ReportFormat, ReportRow, ReportTable, ReportValue } from './format.js';
export { ReportInputError, parseSince, resolveReportFilters } from './report-filters.js';
export type { ReportFilters, ReportFilterInput } from './report-filters.js';
export { RECENT_DAYS } from './recent.js';
