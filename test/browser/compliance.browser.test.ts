/**
 * The Compliance pages in a real browser (Debian's headless Chromium): reached from the
 * navigation, the table per site x crawler narrows to the crawler typed in its filter, a row's
 * violations open their list, where a path from a log that holds markup and a right-to-left
 * override is shown as text, and runs nothing; no page reports a problem.
 */
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client.js';
import type { DbHandle } from '../../src/db/client.js';
import { createDashboard } from '../../src/web/server.js';
import { insertCrawlerRequests } from '../helpers/crawler-requests.js';
import { createTestDatabase } from '../helpers/test-db.js';
import type { TestDatabase } from '../helpers/test-db.js';
import { CHROMIUM } from './dashboard-data.js';
import { collectProblems } from './page-problems.js';

const SHOP = 'https://shop.example';
const NEWS = 'https://news.example';
/** If this ran, `window.__pwned` would be set. */
const HOSTILE_PATH = '/private/<img src=x onerror="window.__pwned=1">\u202egnp.exe';

let db: TestDatabase;
let handle: DbHandle;
let app: Awaited<ReturnType<typeof createDashboard>>;
let base: string;
let browser: Browser;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query('insert into sites (origin) select unnest($1::text[])', [[SHOP, NEWS]]);
  await insertCrawlerRequests(db.pool, [
    { origin: SHOP, at: '2026-11-02T01:00:00Z', crawler: 'GPTBot', path: '/private/a', judgement: 'violation', ruleLine: 2, rule: 'Disallow: /private/' },
    { origin: SHOP, at: '2026-11-02T02:00:00Z', crawler: 'GPTBot', path: HOSTILE_PATH, judgement: 'violation', identity: 'unverifiable', ruleLine: 2, rule: 'Disallow: /private/' },
    { origin: SHOP, at: '2026-11-02T03:00:00Z', crawler: 'ClaudeBot', path: '/products', judgement: 'allowed' },
    { origin: NEWS, at: '2026-11-02T04:00:00Z', crawler: 'ClaudeBot', path: '/world', judgement: 'unjudged' },
    { origin: NEWS, at: '2026-11-02T05:00:00Z', crawler: 'Googlebot', path: '/', judgement: 'allowed', identity: 'spoofed' },
  ]);
  handle = createDb(db.url, { max: 4, readOnly: true, jit: false });
  app = await createDashboard({ pool: handle.pool, token: null, databaseName: db.name });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await handle?.close();
  await db?.close();
});

/** Each row of a table as "site crawler". */
const sitesAndCrawlers = (page: Page) =>
  page.locator('table#compliance tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.children[0]!.textContent!.trim()} ${tr.children[1]!.textContent!.trim()}`));

describe('the Compliance pages', () => {
  it('from the navigation, a crawler typed in the filter narrows the table, and no page reports a problem', async () => {
    const page = await browser.newPage();
    const problems = collectProblems(page);
    await page.goto(`${base}/`);
    await page.locator('header.top nav a', { hasText: 'Compliance' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Compliance');
    expect(await sitesAndCrawlers(page)).toEqual([`${SHOP} GPTBot`, `${NEWS} Googlebot`, `${NEWS} ClaudeBot`, `${SHOP} ClaudeBot`]);

    await page.locator('form.filters input[name=crawler]').fill('ClaudeBot');
    await Promise.all([page.waitForURL(/crawler=ClaudeBot/), page.locator('form.filters button[type=submit]').click()]);
    expect(await sitesAndCrawlers(page)).toEqual([`${NEWS} ClaudeBot`, `${SHOP} ClaudeBot`]);
    expect(await page.locator('p.matching').textContent()).toMatch(/^2 sites and crawlers/);
    expect(await page.locator('form.filters input[name=crawler]').inputValue()).toBe('ClaudeBot');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a row's violations open their list, where a hostile path is text that runs nothing", async () => {
    const page = await browser.newPage();
    const problems = collectProblems(page);
    await page.goto(`${base}/compliance?crawler=GPTBot`);
    await Promise.all([page.waitForURL(/\/compliance\/violations\?/), page.locator('table#compliance tbody tr').first().locator('td.bad a').click()]);
    expect(await page.locator('h1').textContent()).toBe('Violations');
    const urls = await page.locator('table#violations td.url:nth-child(4)').allTextContents();
    expect(urls).toHaveLength(2);
    // Newest first: the hostile path, its override shown as a marked code point, its markup as text.
    expect(urls[0]).toBe(`${SHOP}/private/<img src=x onerror="window.__pwned=1">U+202Egnp.exe`);
    expect(urls[0]).not.toContain('\u202e');
    expect(await page.locator('table#violations img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('#hidden-note').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});
