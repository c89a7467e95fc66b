/**
 * The dashboard's CSV downloads: the report commands' CSV (`robots-audit report <name> --format
 * csv`), narrowed by every filter of the page the link is on (docs/reports.md says which report
 * takes which), each applied in the report's query. Streamed from a cursor a batch at a time as
 * the client reads, so a download holds one batch in memory whatever the portfolio's size, and at
 * most ROBOTS_AUDIT_DASHBOARD_DOWNLOADS run at once (the next is told to come back: 503 with
 * Retry-After), each on one connection of the pool, so the pages stay responsive meanwhile. What a
 * report's rows leave out (`report portability`: the sites whose robots.txt is not analysed yet) is
 * said in the `X-Robots-Audit-Note` header, as the CLI says it on stderr.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Logger } from '../log/logger.js';
import { REPORT_NAMES, reportSource, streamReport } from '../reports/index.js';
import type { ReportFilters, ReportName } from '../reports/index.js';
import { csvHeading, csvRecords } from '../reports/format.js';
import type { ReportSource } from '../reports/report-source.js';
import { countsBackFromLatestNight, latestNight } from '../reports/report-filters.js';
import { normalizeSearch } from '../reports/web-overview.js';
import { BadRequest, csvParams, parseNight, parseParams } from './query-params.js';
import { portfolioId } from './routes.js';

/** Seconds a download turned away is told to wait. */
const RETRY_AFTER_SECONDS = 10;

export interface CsvContext {
  pool: pg.Pool;
  /** Downloads streamed at once. */
  downloads: number;
  log?: Logger | undefined;
}

/** The CSV text of a report: its heading, then its records a batch at a time. */
async function* csvText(pool: pg.Pool, source: ReportSource): AsyncGenerator<string> {
  yield csvHeading(source.columns);
  for await (const rows of streamReport(pool, source)) if (rows.length > 0) yield csvRecords(source.columns, rows);
}

export function registerCsvDownloads(app: FastifyInstance, ctx: CsvContext): void {
  let running = 0;
  const download = (name: ReportName) =>
    app.get(`/csv/${name}`, async (request, reply) => {
      const q = parseParams(csvParams, request.query);
      const latest = countsBackFromLatestNight(q.since) || countsBackFromLatestNight(q.until) ? await latestNight(ctx.pool) : null;
      const since = parseNight('since', q.since, latest);
      const until = parseNight('until', q.until, latest);
      if (since && until && until.getTime() <= since.getTime()) throw new BadRequest(`until (${q.until}) is not after since (${q.since}): the period would hold no night`);
      if (running >= ctx.downloads) {
        return reply
          .code(503)
          .header('retry-after', String(RETRY_AFTER_SECONDS))
          .type('text/plain; charset=utf-8')
          .send(`503: ${ctx.downloads} download${ctx.downloads === 1 ? ' is' : 's are'} running; try again in ${RETRY_AFTER_SECONDS} s\n`);
      }
      running += 1;
      let stream: Readable | null = null;
      try {
        const filters: ReportFilters = {
          portfolioId: await portfolioId(ctx.pool, q.portfolio),
          since,
          until,
          search: normalizeSearch(q.q ?? null),
          state: q.show ?? null,
          kind: q.kind || null,
          severity: q.severity ?? null,
          crawler: q.crawler || null,
          blocks: q.blocks || null,
          usage: q.usage ?? null,
        };
        const source = await reportSource(ctx.pool, name, filters);
        // What the rows leave out (report portability: sites not analysed yet) travels in a header, before the rows.
        const notes = source.notes ? await source.notes() : [];
        if (notes.length > 0) reply.header('x-robots-audit-note', notes.join('; '));
        stream = Readable.from(csvText(ctx.pool, source), { objectMode: false });
      } finally {
        if (stream === null) running -= 1;
      }
      // Ended, failed or cut by the client: the slot is free again (the cursor closed itself).
      stream.once('close', () => (running -= 1));
      stream.once('error', (err) => ctx.log?.error({ err, url: request.url }, 'CSV download failed'));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="robots-audit-${name}.csv"`)
        .send(stream);
    });
  for (const name of REPORT_NAMES) download(name);
}
