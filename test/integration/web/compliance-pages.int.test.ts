/**
 * The dashboard's Compliance pages (issue 29) over HTTP on 127.0.0.1, on judged crawler requests
 * written to the tables as a log import leaves them: before any import, how to import a log; then
 * per site x crawler the report's counts, each violation with its rule and the version in force,
 * every filter narrowing the lists as `report compliance` does, pages of a long list, a path from
 * a log shown as text with its hidden characters marked, and the CSV downloads of both lists.
 */
import type { AddressInfo } from 'node:net';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/client.js';
import type { DbHandle } from '../../../src/db/client.js';
import { createRepos } from '../../../src/db/index.js';
import { storeSingleNight } from '../../../src/services/night-runner.js';
import { createDashboard } from '../../../src/web/server.js';
import { insertCrawlerRequests } from '../../helpers/crawler-requests.js';
import type { StoredRequest } from '../../helpers/crawler-requests.js';
import { fetchResult } from '../../helpers/fetch-results.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const SHOP = 'https://shop.example';
const NEWS = 'https://news.example';
const MANY = 'https://many.example';
const NIGHT = '2026-11-01T03:00:00.000Z';
const ROBOTS = 'User-agent: *\nAllow: /\nDisallow: /private/\n';
/** A path from a log that holds markup, ESC and a right-to-left override. */
const HOSTILE_PATH = '/private/<script>window.__pwned=1</script>\u001b[31m\u202egnp.exe';
const MANY_VIOLATIONS = 30;

let db: TestDatabase;
let handle: DbHandle;
let base: string;
let close: () => Promise<unknown>;

const get = async (path: string) => {
  const response = await fetch(base + path);
  return { status: response.status, html: await response.text(), type: response.headers.get('content-type') ?? '' };
};
/** The rows of a page's table, each cell's text (tags left out). */
const tableRows = (html: string, id: string) => {
  const table = new RegExp(`<table[^>]*id="${id}"[^>]*>([\\s\\S]*?)</table>`).exec(html)?.[1] ?? '';
  const body = /<tbody>([\s\S]*)<\/tbody>/.exec(table)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) => [...tr[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((td) => td[1]!.replace(/<[^>]+>/g, '').trim()));
};
/** How many rows the page says match. */
const matching = (html: string) => Number(/<p class="muted matching">([\d,]+) /.exec(html)?.[1]?.replaceAll(',', '') ?? NaN);

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query('insert into sites (origin) select unnest($1::text[])', [[SHOP, NEWS, MANY]]);
  await db.pool.query("insert into portfolios (name) values ('shops'), ('publishers'), ('bulk')");
  await db.pool.query(
    `insert into portfolio_sites (portfolio_id, site_id)
     select p.id, s.id from unnest($1::text[], $2::text[]) m(name, origin) join portfolios p on p.name = m.name join sites s on s.origin = m.origin`,
    [['shops', 'publishers', 'bulk'], [SHOP, NEWS, MANY]],
  );
  handle = createDb(db.url, { max: 4, readOnly: true, jit: false });
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: db.name });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  close = () => app.close();
}, 60_000);

afterAll(async () => {
  await close?.();
  await handle?.close();
  await db?.close();
});

describe('before any log is imported', () => {
  it('the Compliance page is in the navigation and says how to import a log', async () => {
    for (const path of ['/compliance', '/compliance/violations']) {
      const { status, html } = await get(path);
      expect(status, path).toBe(200);
      expect(html).toContain('<a href="/compliance" class="on">Compliance</a>');
      expect(html).toContain('id="no-logs"');
      expect(html).toContain('robots-audit logs import &lt;file&gt;');
      expect(html).not.toContain('<table');
    }
  });
});

describe('after an import', () => {
  let versionSha: string;

  beforeAll(async () => {
    const repos = createRepos(db.db);
    const shop = (await repos.sites.findSiteByOrigin(SHOP))!;
    const { run } = await repos.runs.createRun({ runKey: 'nightly-2026-11-01', trigger: 'scheduled', runAt: new Date(NIGHT) });
    await storeSingleNight(db.pool, run.id, shop.id, fetchResult({ origin: SHOP, outcome: 'ok', body: ROBOTS, startedAt: new Date(NIGHT) }));
    const [version] = (await db.pool.query<{ sha: string }>(`select encode(b.sha256, 'hex') as sha from site_rule_nights n join bodies b on b.id = n.rules_body_id where n.run_id = $1`, [run.id])).rows;
    versionSha = version!.sha;
    const forbidden = { runId: run.id, ruleLine: 3, rule: 'Disallow: /private/' };
    const requests: StoredRequest[] = [
      { origin: SHOP, at: '2026-11-02T00:00:00Z', crawler: 'GPTBot', path: '/robots.txt', judgement: 'robots_txt', runId: run.id },
      { origin: SHOP, at: '2026-11-02T00:30:00Z', crawler: 'GPTBot', path: '/products', judgement: 'allowed', runId: run.id },
      { origin: SHOP, at: '2026-11-02T01:00:00Z', crawler: 'GPTBot', path: '/private/a', judgement: 'violation', ...forbidden },
      { origin: SHOP, at: '2026-11-03T01:00:00Z', crawler: 'GPTBot', path: HOSTILE_PATH, judgement: 'violation', identity: 'unverifiable', ...forbidden },
      { origin: SHOP, at: '2026-11-03T02:00:00Z', crawler: 'GPTBot', path: '/cart', judgement: 'allowed', identity: 'spoofed', runId: run.id },
      { origin: SHOP, at: '2026-11-02T05:00:00Z', crawler: 'ClaudeBot', path: '/private/b', judgement: 'cache_window', ...forbidden },
      { origin: SHOP, at: '2026-11-02T06:00:00Z', crawler: 'ClaudeBot', path: '/private/c', judgement: 'between_versions', ...forbidden },
      { origin: SHOP, at: '2026-11-02T07:00:00Z', crawler: 'ChatGPT-User', path: '/private/d', judgement: 'not_bound', ...forbidden },
      { origin: NEWS, at: '2026-10-30T12:00:00Z', crawler: 'Googlebot', path: '/world', judgement: 'unjudged' },
      // A long list: each a violation of a site never audited (no version known to the view).
      ...Array.from({ length: MANY_VIOLATIONS }, (_, i) => ({
        origin: MANY,
        at: new Date(Date.UTC(2026, 10, 4, 0, i)).toISOString(),
        crawler: 'Bytespider',
        path: `/page/${i}`,
        judgement: 'violation' as const,
        identity: 'unverifiable' as const,
      })),
    ];
    await insertCrawlerRequests(db.pool, requests);
  });

  describe('per site x crawler', () => {
    it("the report's counts, the most verified violations first", async () => {
      const { status, html } = await get('/compliance');
      expect(status).toBe(200);
      expect(html).not.toContain('id="no-logs"');
      expect(matching(html)).toBe(5);
      const rows = tableRows(html, 'compliance');
      expect(rows.map((r) => `${r[0]} ${r[1]}`)).toEqual([`${SHOP} GPTBot`, `${MANY} Bytespider`, `${NEWS} Googlebot`, `${SHOP} ChatGPT-User`, `${SHOP} ClaudeBot`]);
      // Requests (robots.txt left out), disallowed, violations verified and unverified, cache window, between versions, not bound, spoofed.
      expect(rows[0]!.slice(2, 10)).toEqual(['4', '2', '1', '1', '0', '0', '0', '1']);
      expect(rows[0]!.slice(10)).toEqual(['yes', '2026-11-02 00:00', '2026-11-02 00:00', '2026-11-03 02:00']);
      expect(rows[1]!.slice(2, 10)).toEqual(['30', '30', '0', '30', '0', '0', '0', '0']);
      expect(rows[3]!.slice(2, 10)).toEqual(['1', '1', '0', '0', '0', '0', '1', '0']);
      expect(rows[4]!.slice(2, 10)).toEqual(['2', '2', '0', '0', '1', '1', '0', '0']);
      expect(rows[2]!.slice(2, 14)).toEqual(['1', '0', '0', '0', '0', '0', '0', '0', 'no', 'never', '2026-10-30 12:00', '2026-10-30 12:00']);
      // A row's violations lead to its list.
      expect(html).toContain(`href="/compliance/violations?crawler=GPTBot&amp;q=${encodeURIComponent(SHOP)}"`);
    });

    it.each([
      ['crawler', '?crawler=ClaudeBot', [`${SHOP} ClaudeBot`]],
      ['crawler, in any case', '?crawler=gptbot', [`${SHOP} GPTBot`]],
      ['portfolio', '?portfolio=publishers', [`${NEWS} Googlebot`]],
      ['search', '?q=NEWS', [`${NEWS} Googlebot`]],
      ['since', '?since=2026-11-03', [`${MANY} Bytespider`, `${SHOP} GPTBot`]],
      ['every filter', '?portfolio=shops&crawler=GPTBot&since=2026-11-03&q=shop', [`${SHOP} GPTBot`]],
    ])('narrowed by %s, as report compliance narrows', async (_, query, expected) => {
      const { status, html } = await get(`/compliance${query}`);
      expect(status).toBe(200);
      expect(tableRows(html, 'compliance').map((r) => `${r[0]} ${r[1]}`)).toEqual(expected);
      expect(matching(html)).toBe(expected.length);
    });

    it('since counts only the requests from that day on', async () => {
      const rows = tableRows((await get('/compliance?since=2026-11-03&crawler=GPTBot')).html, 'compliance');
      // The unverifiable violation and the spoofed request; no robots.txt fetch in the period.
      expect(rows[0]!.slice(2, 12)).toEqual(['2', '1', '0', '1', '0', '0', '0', '1', 'no', 'never']);
    });

    it('filters that match nothing say so; an unknown portfolio, a bad date or a bad token is a 400', async () => {
      const none = await get('/compliance?crawler=NoSuchBot');
      expect(none.status).toBe(200);
      expect(none.html).toContain('No crawler request matches.');
      expect(none.html).not.toContain('id="no-logs"');
      expect((await get('/compliance?portfolio=nope')).status).toBe(400);
      expect((await get('/compliance?since=yesterday')).status).toBe(400);
      expect((await get('/compliance?crawler=%3Cscript%3E')).status).toBe(400);
    });
  });

  describe('each violation', () => {
    it('with its crawler, identity, URL, deciding line and rule, and the version in force', async () => {
      const { status, html } = await get(`/compliance/violations?q=shop`);
      expect(status).toBe(200);
      expect(matching(html)).toBe(2);
      const rows = tableRows(html, 'violations');
      expect(rows).toHaveLength(2);
      expect(rows[1]).toEqual(['2026-11-02 01:00', 'GPTBot', 'verified', `${SHOP}/private/a`, '3', 'Disallow: /private/', '2026-11-01 03:00', versionSha.slice(0, 12)]);
      expect(rows[0]!.slice(0, 3)).toEqual(['2026-11-03 01:00', 'GPTBot', 'unverifiable']);
    });

    it('a path from a log is text: its markup escaped, ESC and U+202E shown as marked code points, never as they are', async () => {
      const { html } = await get(`/compliance/violations?q=shop`);
      expect(html).toContain('/private/&lt;script&gt;window.__pwned=1&lt;/script&gt;');
      expect(html).not.toContain('<script>window.__pwned');
      expect(html).not.toContain('\u001b');
      expect(html).not.toContain('\u202e');
      expect(html).toContain('<span class="hc hc-control" title="U+001B');
      expect(html).toContain('<span class="hc hc-bidi" title="U+202E');
      // The layout's note names the hidden characters the page shows.
      expect(html).toContain('id="hidden-note"');
    });

    it('a long list in pages: 25 then 5, and a page past the last is a 404 that offers the last', async () => {
      const first = await get('/compliance/violations?crawler=Bytespider&size=25');
      expect(matching(first.html)).toBe(MANY_VIOLATIONS);
      const firstRows = tableRows(first.html, 'violations');
      expect(firstRows).toHaveLength(25);
      // Newest first; a site never audited has no version.
      expect(firstRows[0]!.slice(0, 4)).toEqual(['2026-11-04 00:29', 'Bytespider', 'unverifiable', `${MANY}/page/29`]);
      expect(firstRows[0]!.slice(4)).toEqual(['–', '', '–', '–']);
      expect(first.html).toContain('page 1 of 2');
      expect(first.html).toContain('href="/compliance/violations?crawler=Bytespider&amp;size=25&amp;page=2"');
      const second = await get('/compliance/violations?crawler=Bytespider&size=25&page=2');
      expect(tableRows(second.html, 'violations').map((r) => r[3])).toEqual([4, 3, 2, 1, 0].map((i) => `${MANY}/page/${i}`));
      const past = await get('/compliance/violations?crawler=Bytespider&size=25&page=3');
      expect(past.status).toBe(404);
      expect(past.html).toContain('Go to page 2');
    });

    it('the per-site list is paged the same way', async () => {
      const { html } = await get('/compliance?size=25&page=1');
      expect(html).not.toContain('class="pager"');
      expect((await get('/compliance?page=2')).status).toBe(404);
    });
  });

  describe('CSV downloads', () => {
    it('both lists, narrowed by the page\'s filters, linked from the page', async () => {
      const { html } = await get('/compliance?crawler=GPTBot&q=shop');
      expect(html).toContain('href="/csv/compliance?crawler=GPTBot&amp;q=shop"');
      expect(html).toContain('href="/csv/violations?crawler=GPTBot&amp;q=shop"');
      const compliance = await get('/csv/compliance?crawler=GPTBot&q=shop');
      expect(compliance.status).toBe(200);
      expect(compliance.type).toContain('text/csv');
      const rows = parseCsv(compliance.html, { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ SITE: SHOP, CRAWLER: 'GPTBot', REQUESTS: '4', DISALLOWED: '2', VIOLATIONS: '1', UNVERIFIED: '1', SPOOFED: '1' });
      const violations = parseCsv((await get('/csv/violations?crawler=GPTBot&q=shop')).html, { columns: true }) as Record<string, string>[];
      expect(violations.map((v) => v.IDENTITY)).toEqual(['unverifiable', 'verified']);
      expect(violations[1]).toMatchObject({ URL: `${SHOP}/private/a`, LINE: '3', RULE: 'Disallow: /private/', 'SHA-256': versionSha.slice(0, 12) });
      const all = parseCsv((await get('/csv/violations?since=2026-11-04')).html, { columns: true }) as unknown[];
      expect(all).toHaveLength(MANY_VIOLATIONS);
    });
  });
});
