/**
 * The dashboard's pages and CSV downloads. Each handler checks its query string, asks
 * src/reports for the page's data and renders a template; the CSV downloads are the report
 * commands' CSV (buildReport + formatReport), narrowed by the page's filters where the report
 * has the column.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type pg from 'pg';
import { buildReport, formatReport, resolveReportFilters } from '../reports/index.js';
import type { ReportName, ReportRow, ReportTable } from '../reports/index.js';
import { countsBackFromLatestNight, latestNight } from '../reports/report-filters.js';
import { AI_CATEGORIES, aiMatrix } from '../reports/web-ai-matrix.js';
import { aiBlockingShare, auditedWeeks, changesPerWeek } from '../reports/web-charts.js';
import { ALERT_KINDS, CHANGE_KINDS, EVENT_TYPES, FLIP_CAUSES, eventsPage, flipCrawlers } from '../reports/web-events.js';
import { overviewPage } from '../reports/web-overview.js';
import { pageSize } from '../reports/web-paging.js';
import { deliveriesPage, runById, runProgress, runsPage } from '../reports/web-runs.js';
import { findSite, sitePage } from '../reports/web-site.js';
import {
  aiParams,
  BadRequest,
  chartsParams,
  decodeCursor,
  deliveriesParams,
  encodeCursor,
  eventParams,
  overviewParams,
  parseNight,
  parseParams,
  runIdParams,
  runsParams,
  siteParams,
} from './query-params.js';
import { shareLinesSvg, stackedBarsSvg, timelineSvg } from './svg-charts.js';
import { registerDraftPage } from './draft-page.js';

export class NotFound extends Error {
  override name = 'NotFound';
}

export interface PageContext {
  pool: pg.Pool;
  render(reply: FastifyReply, template: string, data: Record<string, unknown>, status?: number): FastifyReply;
}

async function portfolioId(pool: pg.Pool, name: string | undefined): Promise<number | null> {
  if (name === undefined || name === '') return null;
  return (await resolveReportFilters(pool, { portfolio: name })).portfolioId;
}

async function portfolioNames(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>('select name from portfolios order by name limit 500');
  return rows.map((r) => r.name);
}

function sendCsv(reply: FastifyReply, name: string, table: ReportTable): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="robots-audit-${name}.csv"`)
    .send(formatReport(table, 'csv'));
}

const narrow = (table: ReportTable, keep: (row: ReportRow) => boolean): ReportTable => ({ ...table, rows: table.rows.filter(keep) });

export function registerPages(app: FastifyInstance, ctx: PageContext): void {
  const { pool, render } = ctx;

  app.get('/', async (request, reply) => {
    const q = parseParams(overviewParams, request.query);
    const size = pageSize(q.size);
    const descending = q.dir === undefined ? q.sort === 'changed' || q.sort === 'failing' || q.sort === 'checked' : q.dir === 'desc';
    const [data, portfolios] = await Promise.all([
      portfolioId(pool, q.portfolio).then((id) =>
        overviewPage(pool, { portfolioId: id, search: q.q ?? null, sort: q.sort, descending, page: q.page, pageSize: size }),
      ),
      portfolioNames(pool),
    ]);
    const pages = Math.max(1, Math.ceil(data.matching / size));
    return render(reply, 'overview', { title: 'Overview', nav: 'overview', q: { ...q, dir: descending ? 'desc' : 'asc', size }, data, pages, portfolios });
  });

  app.get('/site', async (request, reply) => {
    const q = parseParams(siteParams, request.query);
    const id = await findSite(pool, q.origin);
    const data = id === null ? null : await sitePage(pool, id, q.version ?? null);
    if (!data) throw new NotFound(`No site is monitored at ${q.origin}.`);
    return render(reply, 'site', { title: data.site.origin, nav: 'overview', data, timeline: timelineSvg(data.timeline) });
  });

  app.get('/changes', async (request, reply) => {
    const q = parseParams(eventParams, request.query);
    // Only "7d" counts back from the latest night; a date needs no query.
    const latest = countsBackFromLatestNight(q.since) || countsBackFromLatestNight(q.until) ? await latestNight(pool) : null;
    const since = parseNight('since', q.since, latest);
    const until = parseNight('until', q.until, latest);
    const [id, crawlers, portfolios] = await Promise.all([portfolioId(pool, q.portfolio), flipCrawlers(pool), portfolioNames(pool)]);
    const size = pageSize(q.size);
    const data = await eventsPage(pool, {
      portfolioId: id,
      types: q.type ? [q.type] : EVENT_TYPES,
      kind: q.kind || null,
      severity: q.severity ?? null,
      crawler: q.crawler || null,
      since,
      until,
      after: decodeCursor(q.after),
      pageSize: size,
    });
    const kinds = [...new Set([...CHANGE_KINDS, ...FLIP_CAUSES, ...ALERT_KINDS])].sort();
    return render(reply, 'changes', {
      title: 'Changes and flips',
      nav: 'changes',
      q,
      data,
      next: data.next ? encodeCursor(data.next) : null,
      kinds,
      crawlers,
      portfolios,
    });
  });

  app.get('/ai', async (request, reply) => {
    const q = parseParams(aiParams, request.query);
    const size = pageSize(q.size);
    const [id, portfolios] = await Promise.all([portfolioId(pool, q.portfolio), portfolioNames(pool)]);
    const data = await aiMatrix(pool, { portfolioId: id, search: q.q ?? null, category: q.category ?? null, page: q.page, pageSize: size });
    return render(reply, 'ai', { title: 'AI access', nav: 'ai', q: { ...q, size }, data, pages: Math.max(1, Math.ceil(data.matching / size)), portfolios, categories: AI_CATEGORIES });
  });

  app.get('/runs', async (request, reply) => {
    const q = parseParams(runsParams, request.query);
    const size = pageSize(q.size);
    const data = await runsPage(pool, q.page, size);
    return render(reply, 'runs', { title: 'Runs', nav: 'runs', q: { ...q, size }, data, pages: Math.max(1, Math.ceil(data.total / size)) });
  });

  app.get('/runs/:id', async (request, reply) => {
    const { id } = parseParams(runIdParams, request.params);
    const run = await runById(pool, id);
    if (!run) throw new NotFound(`There is no run ${id}.`);
    return render(reply, 'run', { title: `Run ${run.runKey}`, nav: 'runs', run });
  });

  app.get('/runs/:id/progress', async (request, reply) => {
    const { id } = parseParams(runIdParams, request.params);
    const progress = await runProgress(pool, id);
    if (!progress) throw new NotFound(`There is no run ${id}.`);
    return reply.send(progress);
  });

  app.get('/alerts', async (request, reply) => {
    const q = parseParams(deliveriesParams, request.query);
    const size = pageSize(q.size);
    const data = await deliveriesPage(pool, q.status ?? null, q.page, size);
    const total = q.status ? data.counts[q.status] : data.counts.pending + data.counts.delivered + data.counts.failed;
    return render(reply, 'alerts', { title: 'Alerts', nav: 'alerts', q: { ...q, size }, data, pages: Math.max(1, Math.ceil(total / size)) });
  });

  app.get('/charts', async (request, reply) => {
    const q = parseParams(chartsParams, request.query);
    const [id, portfolios] = await Promise.all([portfolioId(pool, q.portfolio), portfolioNames(pool)]);
    // Both series run over the same weeks: every week from the first audited night to the last.
    const audited = await auditedWeeks(pool);
    const [weeks, blocking] = await Promise.all([changesPerWeek(pool, id, audited), aiBlockingShare(pool, id, audited)]);
    const changesSvg = stackedBarsSvg(
      weeks.map((w) => ({ label: w.week, parts: [{ key: 'rules', value: w.rules }, { key: 'outcome', value: w.outcome }, { key: 'other', value: w.other }] })),
      'Changes per week',
    );
    const blockingSvg = shareLinesSvg(blocking.weeks, blocking.series.map((s) => ({ name: s.token, values: s.shares })), 'Share of sites blocking each AI crawler');
    const legend = blocking.series.map((s, i) => ({ name: s.token, colour: i % 10, now: s.shares.at(-1) ?? 0 }));
    return render(reply, 'charts', { title: 'Charts', nav: 'charts', q, portfolios, changesSvg, blockingSvg, legend, weeks: weeks.length });
  });

  // "Test a draft" (draft-page.ts): its form and result, on a scope of their own.
  registerDraftPage(app, ctx);

  // --- CSV downloads: the report commands' CSV -------------------------------------------------

  const reportCsv = (name: ReportName, narrowBy?: (q: Record<string, string | undefined>) => ((row: ReportRow) => boolean) | null) =>
    app.get(`/csv/${name}`, async (request, reply) => {
      const q = request.query as Record<string, string | undefined>;
      for (const v of Object.values(q)) if (typeof v !== 'string' || v.length > 300) throw new BadRequest('CSV: one value per parameter, 300 characters at most');
      const filters = await resolveReportFilters(pool, { portfolio: q.portfolio || undefined, since: q.since || undefined });
      const table = await buildReport(pool, name, filters);
      const keep = narrowBy?.(q) ?? null;
      return sendCsv(reply, name, keep ? narrow(table, keep) : table);
    });
  const bySearch = (q: Record<string, string | undefined>) => {
    const term = q.q?.trim().toLowerCase();
    return term ? (row: ReportRow) => String(row.origin).includes(term) : null;
  };
  reportCsv('status', bySearch);
  reportCsv('ai-access', bySearch);
  reportCsv('failing');
  reportCsv('lint');
  reportCsv('changes', (q) => (q.kind ? (row) => (row.kinds as readonly string[]).includes(q.kind!) : null));
  reportCsv('flips', (q) => {
    const kind = q.kind || null;
    const crawler = q.crawler?.toLowerCase() || null;
    if (!kind && !crawler) return null;
    return (row) => (kind === null || row.cause === kind) && (crawler === null || String(row.agent).toLowerCase() === crawler);
  });
}
