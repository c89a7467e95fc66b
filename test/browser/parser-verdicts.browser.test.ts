/**
 * The site page shows, in a real browser, the verdict under a crawler's own parser where it
 * differs from Google's: Scrapy (Protego 0.7.0, `scrapy-protego-0.7`, known) matches a group's
 * name as whole tokens, so `User-agent: Scrapy/2.14` names no group for it, where Google's parser
 * cuts the name at `/` and reads the group: the path Google's parser disallows stays allowed for it. The verdict matrix
 * says so in the cell, the "Check a URL" box in its answer; no console error, nothing refused by
 * the Content-Security-Policy (docs/crawlers.md, "Where parser verdicts are shown").
 */
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client.js';
import type { DbHandle } from '../../src/db/client.js';
import { createDashboard } from '../../src/web/server.js';
import { addSites, replayNight, track } from '../helpers/nightly.js';
import { startPipeline } from '../helpers/pipeline.js';
import type { Pipeline } from '../helpers/pipeline.js';
import { CHROMIUM } from './dashboard-data.js';
import { collectProblems } from './page-problems.js';

/** A group for Scrapy named with its version, and `*` open. */
const BODY = Buffer.from('User-agent: Scrapy/2.14\nDisallow: /private/\n\nUser-agent: *\nAllow: /\n');

let p: Pipeline;
let handle: DbHandle;
let browser: Browser;
let base: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  p = await startPipeline();
  await addSites(p, ['mill']);
  const added = await p.cli(['agents', 'add', 'Scrapy']);
  expect(added.code, added.stderr).toBe(0);
  await track(p, 'mill', ['/private/x']);
  await replayNight(p, '2026-03-01T03:00:00.000Z', { mill: { status: 200, body: BODY } });
  handle = createDb(p.db.url, { max: 2, readOnly: true, jit: false });
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: p.db.name });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  close = async () => {
    await browser.close();
    await app.close();
    await handle.close();
    await p.close();
  };
}, 180_000);

afterAll(async () => {
  await close?.();
});

const sitePath = () => `/site?origin=${encodeURIComponent(p.origin('mill'))}`;

describe("the site page: a verdict under the crawler's own parser", () => {
  it('the matrix cell of Scrapy at the disallowed path says it is allowed under scrapy-protego-0.7 (Protego 0.7.0, known); other cells say nothing of it', async () => {
    const page = await browser.newPage();
    const problems = collectProblems(page);
    const response = await page.goto(base + sitePath());
    expect(response?.status()).toBe(200);
    const heads = await page.locator('table.matrix thead th').allInnerTexts();
    const column = heads.findIndex((h) => h.startsWith('Scrapy'));
    expect(heads[column]).toContain('scrapy-protego-0.7 parser, known');
    const row = page.locator('table.matrix tbody tr', { hasText: '/private/x' });
    const cell = row.locator('td').nth(column);
    await expect.poll(() => cell.getAttribute('class')).toBe('block');
    expect(await cell.locator('.parser-verdict').innerText()).toBe('allowed under scrapy-protego-0.7 (Protego 0.7.0, known)');
    expect(await page.locator('table.matrix .parser-verdict').count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('"Check a URL" for Scrapy answers with both verdicts', async () => {
    const page = await browser.newPage();
    const problems = collectProblems(page);
    await page.goto(`${base}${sitePath()}&url=${encodeURIComponent('/private/x')}&ua=Scrapy#check`);
    const answer = page.locator('#check .answer');
    expect(await answer.getAttribute('class')).toContain('block');
    expect(await answer.locator('dd.parser-verdict').innerText()).toBe("disallowed by Google's parser; allowed under scrapy-protego-0.7 (Protego 0.7.0, known)");
    expect(problems).toEqual([]);
    await page.close();
  });
});
