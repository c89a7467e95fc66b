/**
 * The dashboard's pages. Each handler checks its query string, asks src/reports for the page's
 * data and renders a template. A page number past the last page is a 404 that links to the
 * last one; a period that ends before it starts is a 400.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { resolveReportFilters } from '../reports/index.js';
import type { ReportFilters } from '../reports/index.js';
import { countsBackFromLatestNight, latestNight } from '../reports/report-filters.js';
import { loadExplainState } from '../reports/site-explain.js';
import type { SiteExplanation } from '../reports/site-explain.js';
import { decidingText, groupText, policyWhy } from '../reports/site-explain.format.js';
import { SiteReportError } from '../reports/site-errors.js';
import { AI_CATEGORIES, aiMatrix, UnknownCrawler, USAGE_FILTER_TEXT, USAGE_FILTERS, USAGE_PURPOSE_LABELS } from '../reports/web-ai-matrix.js';
import { chartSeries } from '../reports/web-charts.js';
import { complianceCrawlers, compliancePage, violationsPage } from '../reports/web-compliance.js';
import { EVENT_TYPES, eventsPage, flipCrawlers } from '../reports/web-events.js';
import { ALERT_KINDS, CHANGE_KINDS, FLIP_CAUSES } from '../night/vocabulary.js';
import { nightEvents } from '../reports/night-events.js';
import { normalizeSearch, overviewPage } from '../reports/web-overview.js';
import { pageSize } from '../reports/web-paging.js';
import { deliveriesPage, runById, runProgress, runsPage, runWaits } from '../reports/web-runs.js';
import { findSite, sitePage } from '../reports/web-site.js';
import { InvalidUrlError, resolveSiteUrl } from '../robots/origin.js';
import {
  aiParams,
  BadRequest,
  chartsParams,
  complianceParams,
  decodeCursor,
  deliveriesParams,
  encodeCursor,
  eventParams,
  nightParams,
  overviewParams,
  parseNight,
  parseParams,
  runIdParams,
  runsParams,
  siteParams,
} from './query-params.js';
import type { ComplianceParams } from './query-params.js';
import { shareLinesSvg, stackedBarsSvg, timelineSvg } from './svg-charts.js';
import { registerDraftPage } from './draft-page.js';
import { NotFound } from './not-found.js';
import type { PageCompute } from './page-compute.js';
import type { PageContext } from './page-context.js';

export async function portfolioId(pool: pg.Pool, name: string | undefined): Promise<number | null> {
  if (name === undefined || name === '') return null;
  return (await resolveReportFilters(pool, { portfolio: name })).portfolioId;
}

async function portfolioNames(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>('select name from portfolios order by name limit 500');
  return rows.map((r) => r.name);
}

/** The number of pages of `total` rows; a page past the last is a 404 that offers the last one. */
function pagesOf(total: number, size: number, page: number, href: (page: number) => string): number {
  const pages = Math.max(1, Math.ceil(total / size));
  if (page > pages) throw new NotFound(`There is no page ${page.toLocaleString('en-US')}: this list has ${pages.toLocaleString('en-US')} page${pages === 1 ? '' : 's'}.`, { href: href(pages), text: `Go to page ${pages.toLocaleString('en-US')}` });
  return pages;
}

/** The same URL with another page number. */
const withPage = (url: string) => (page: number) => {
  const [path, query = ''] = url.split('?');
  const params = new URLSearchParams(query);
  params.set('page', String(page));
  return `${path}?${params.toString()}`;
};

/** "Check any URL": the site's answer for a URL and a crawler, or the reason there is none. */
export interface UrlCheck {
  url: string;
  ua: string;
  explanation: SiteExplanation | null;
  deciding: string | null;
  group: string | null;
  why: string | null;
  error: string | null;
}

async function checkUrl(pool: pg.Pool, compute: PageCompute, site: { id: number; origin: string }, input: string, ua: string): Promise<UrlCheck> {
  const empty = { url: input, ua, explanation: null, deciding: null, group: null, why: null };
  let url: string;
  let state;
  try {
    url = resolveSiteUrl(site.origin, input);
    state = await loadExplainState(pool, site, url, ua);
  } catch (err) {
    if (err instanceof SiteReportError || err instanceof InvalidUrlError) return { ...empty, error: err.message };
    throw err;
  }
  // The verdict on a 500 KiB rules body may take a second: in the thread, with a deadline.
  const computed = await compute.explain({ site, url, userAgent: ua, ...state });
  if (!computed.ok) return { ...empty, error: computed.note };
  const explanation = computed.value;
  return { ...empty, explanation, deciding: decidingText(explanation), group: groupText(explanation), why: policyWhy(explanation.state), error: null };
}

/** The Compliance pages' filters, as `report compliance --portfolio --since --crawler` reads them. */
async function complianceFilters(pool: pg.Pool, q: ComplianceParams): Promise<ReportFilters> {
  const latest = countsBackFromLatestNight(q.since) ? await latestNight(pool) : null;
  const since = parseNight('since', q.since, latest);
  return { portfolioId: await portfolioId(pool, q.portfolio), since, crawler: q.crawler || null, search: normalizeSearch(q.q ?? null) };
}

export function registerPages(app: FastifyInstance, ctx: PageContext): void {
  const { pool, render, compute } = ctx;

  app.get('/', async (request, reply) => {
    const q = parseParams(overviewParams, request.query);
    const size = pageSize(q.size);
    const descending = q.dir === undefined ? q.sort === 'changed' || q.sort === 'failing' || q.sort === 'checked' : q.dir === 'desc';
    const [data, portfolios] = await Promise.all([
      portfolioId(pool, q.portfolio).then((id) =>
        overviewPage(pool, { portfolioId: id, search: q.q ?? null, state: q.show ?? null, sort: q.sort, descending, page: q.page, pageSize: size }),
      ),
      portfolioNames(pool),
    ]);
    const pages = pagesOf(data.matching, size, q.page, withPage(request.url));
    return render(reply, 'overview', { title: 'Overview', nav: 'overview', q: { ...q, dir: descending ? 'desc' : 'asc', size }, data, pages, portfolios });
  });

  app.get('/site', async (request, reply) => {
    const q = parseParams(siteParams, request.query);
    const id = await findSite(pool, q.origin);
    if (id === null) throw new NotFound(`No site is monitored at ${q.origin}.`);
    const ua = q.ua || 'Googlebot';
    // The page and its check at once: each computation's deadline runs from now.
    const [data, check] = await Promise.all([
      sitePage(pool, id, q.version ?? null, compute.siteFile),
      q.url === undefined || q.url.trim() === '' ? null : checkUrl(pool, compute, { id, origin: q.origin }, q.url, ua),
    ]);
    if (!data) throw new NotFound(`No site is monitored at ${q.origin}.`);
    return render(reply, 'site', { title: data.site.origin, nav: 'overview', data, fileRows: data.analysis?.rowsHtml ?? null, timeline: timelineSvg(data.timeline), check, checkUa: ua, purposeLabels: USAGE_PURPOSE_LABELS });
  });

  app.get('/night', async (request, reply) => {
    const q = parseParams(nightParams, request.query);
    const size = pageSize(q.size);
    const [id, portfolios] = await Promise.all([portfolioId(pool, q.portfolio), portfolioNames(pool)]);
    const data = await nightEvents(pool, { runId: q.run ?? null, portfolioId: id, severity: q.severity ?? null, page: q.page, pageSize: size });
    if (q.run !== undefined && data.run === null) throw new NotFound(`There is no run ${q.run}.`);
    const pages = pagesOf(data.matching, size, q.page, withPage(request.url));
    return render(reply, 'night', { title: 'Last night', nav: 'night', q: { ...q, size }, data, pages, portfolios });
  });

  app.get('/changes', async (request, reply) => {
    const q = parseParams(eventParams, request.query);
    // Only "7d" counts back from the latest night; a date needs no query.
    const latest = countsBackFromLatestNight(q.since) || countsBackFromLatestNight(q.until) ? await latestNight(pool) : null;
    const since = parseNight('since', q.since, latest);
    const until = parseNight('until', q.until, latest);
    if (since && until && until.getTime() <= since.getTime()) {
      throw new BadRequest(`until (${q.until}) is not after since (${q.since}): the period would hold no night`);
    }
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
    let data;
    try {
      data = await aiMatrix(pool, { portfolioId: id, search: q.q ?? null, category: q.category ?? null, crawlers: q.crawler, blocks: q.blocks || null, usage: q.usage ?? null, page: q.page, pageSize: size });
    } catch (err) {
      if (err instanceof UnknownCrawler) throw new BadRequest(err.message);
      throw err;
    }
    const pages = pagesOf(data.matching, size, q.page, withPage(request.url));
    return render(reply, 'ai', { title: 'AI access', nav: 'ai', q: { ...q, size }, data, pages, portfolios, categories: AI_CATEGORIES, usageFilters: USAGE_FILTERS.map((f) => ({ value: f, text: USAGE_FILTER_TEXT[f] })), purposeLabels: USAGE_PURPOSE_LABELS });
  });

  // What the imported server logs say crawlers did (issue 29): per site x crawler, and each violation.
  const compliance = (list: typeof compliancePage, template: string, title: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const q = parseParams(complianceParams, request.query);
    const size = pageSize(q.size);
    const [filters, portfolios, crawlers] = await Promise.all([complianceFilters(pool, q), portfolioNames(pool), complianceCrawlers(pool)]);
    const data = await list(pool, { filters, page: q.page, pageSize: size });
    const pages = pagesOf(data.matching, size, q.page, withPage(request.url));
    return render(reply, template, { title, nav: 'compliance', q: { ...q, size }, data, pages, portfolios, crawlers });
  };
  app.get('/compliance', compliance(compliancePage, 'compliance', 'Compliance'));
  app.get('/compliance/violations', compliance(violationsPage, 'violations', 'Violations'));

  app.get('/runs', async (request, reply) => {
    const q = parseParams(runsParams, request.query);
    const size = pageSize(q.size);
    const data = await runsPage(pool, q.page, size);
    const pages = pagesOf(data.total, size, q.page, withPage(request.url));
    return render(reply, 'runs', { title: 'Runs', nav: 'runs', q: { ...q, size }, data, pages });
  });

  app.get('/runs/:id', async (request, reply) => {
    const { id } = parseParams(runIdParams, request.params);
    const run = await runById(pool, id);
    if (!run) throw new NotFound(`There is no run ${id}.`);
    const waits = run.sitesWaiting > 0 ? await runWaits(pool, id) : [];
    return render(reply, 'run', { title: `Run ${run.runKey}`, nav: 'runs', run, waits });
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
    const pages = pagesOf(total, size, q.page, withPage(request.url));
    return render(reply, 'alerts', { title: 'Alerts', nav: 'alerts', q: { ...q, size }, data, pages });
  });

  app.get('/charts', async (request, reply) => {
    const q = parseParams(chartsParams, request.query);
    const [id, portfolios] = await Promise.all([portfolioId(pool, q.portfolio), portfolioNames(pool)]);
    // Both series run over the same weeks: every week from the first audited night to the last.
    const { changes: weeks, blocking } = await chartSeries(pool, id);
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
}
