/**
 * The dashboard's "Test a draft" in a real browser (Debian's headless Chromium): from the site's
 * page, paste or upload a draft and read what `test-draft` says; a hostile draft is shown as text
 * and runs nothing; nothing is written; a form sent from another site is refused; a draft over
 * 500 KiB is refused; with a dashboard token, the page needs it as every page does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client.js';
import type { DbHandle } from '../../src/db/client.js';
import { createRepos } from '../../src/db/index.js';
import { storeSingleNight } from '../../src/services/night-runner.js';
import { createDashboard } from '../../src/web/server.js';
import { fetchResult } from '../helpers/fetch-results.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/test-db.js';
import { CHROMIUM } from './dashboard-data.js';
import { collectProblems } from './page-problems.js';
import type { TestDatabase } from '../helpers/test-db.js';

const ORIGIN = 'https://shop.example';
const SHOP = 'User-agent: *\nDisallow: /cart\nDisallow: /checkout/\n\nSitemap: https://shop.example/sitemap.xml\n';
const STAGING = '# staging: keep crawlers out\nUser-agent: *\nDisallow: /\n';
const TOKEN = 'draft-test-token-0123456789';

let db: TestDatabase;
let handle: DbHandle;
let app: Awaited<ReturnType<typeof createDashboard>>;
let locked: Awaited<ReturnType<typeof createDashboard>>;
let base: string;
let lockedBase: string;
let browser: Browser;

async function listen(dashboard: Awaited<ReturnType<typeof createDashboard>>): Promise<string> {
  await dashboard.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(dashboard.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  db = await createTestDatabase();
  for (const argv of [
    ['sites', 'add', ORIGIN],
    ['track', ORIGIN, '/products/blue-widget'],
  ]) {
    const run = await runCli([...argv, '--database-url', db.url]);
    expect(run.code, run.stderr).toBe(0);
  }
  const repos = createRepos(db.db);
  const site = (await repos.sites.findSiteByOrigin(ORIGIN))!;
  const at = new Date('2026-11-01T03:00:00Z');
  const { run } = await repos.runs.createRun({ runKey: 'nightly-2026-11-01', trigger: 'scheduled', runAt: at });
  await storeSingleNight(db.pool, run.id, site.id, fetchResult({ origin: ORIGIN, outcome: 'ok', body: SHOP, startedAt: at }));
  handle = createDb(db.url, { max: 4, readOnly: true });
  app = await createDashboard({ pool: handle.pool, token: null, databaseName: db.name });
  locked = await createDashboard({ pool: handle.pool, token: TOKEN, databaseName: db.name });
  base = await listen(app);
  lockedBase = await listen(locked);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await locked?.close();
  await handle?.close();
  await db?.close();
});

interface Visit {
  page: Page;
  problems: string[];
}

async function open(path: string): Promise<Visit> {
  const page = await browser.newPage();
  const problems = collectProblems(page);
  const response = await page.goto(base + path);
  expect(response?.status(), path).toBe(200);
  return { page, problems };
}

const draftPath = `/draft?origin=${encodeURIComponent(ORIGIN)}`;

async function counts(): Promise<Record<string, number>> {
  const tables = ['sites', 'tracked_urls', 'user_agents', 'audit_runs', 'snapshots', 'bodies', 'verdicts', 'verdict_flips', 'alerts', 'alert_deliveries', 'site_state'];
  const out: Record<string, number> = {};
  for (const t of tables) out[t] = Number((await db.pool.query<{ n: string }>(`select count(*) as n from ${t}`)).rows[0]!.n);
  return out;
}

describe('Test a draft, from the site page', () => {
  it('a pasted staging Disallow: / fails: the tracked URL flips for Googlebot, on the draft\'s line 3', async () => {
    const before = await counts();
    const { page, problems } = await open(`/site?origin=${encodeURIComponent(ORIGIN)}`);
    await page.getByRole('link', { name: 'Test a draft robots.txt' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Test a draft robots.txt');
    await page.fill('textarea[name=draft]', STAGING);
    await page.click('#draft-form button[type=submit]');
    await page.waitForSelector('#verdict');
    expect(await page.locator('#verdict').innerText()).toMatch(/^FAIL: 2 access alert\(s\) at or above critical \(disallow_all_added, search_url_disallowed\)/);
    const row = page.locator('#flips tr', { hasText: `${ORIGIN}/products/blue-widget` }).first();
    expect(await row.textContent()).toContain('Googlebot');
    expect(await row.textContent()).toContain('allowed → disallowed');
    expect(await row.locator('a', { hasText: 'line 3' }).count()).toBe(1);
    expect(await page.locator('#draft-alerts').textContent()).toContain('disallow_all_added');
    expect(await page.locator('#D3').getAttribute('class')).toBe('mark-fail');
    // The pasted draft is kept in the form, to edit and test again.
    expect(await page.inputValue('textarea[name=draft]')).toBe(STAGING);
    expect(problems).toEqual([]);
    expect(await counts()).toEqual(before);
    await page.close();
  });

  it('an uploaded file that only adds a comment passes, with no flip', async () => {
    const { page, problems } = await open(draftPath);
    await page.setInputFiles('input[name=file]', { name: 'robots.txt', mimeType: 'text/plain', buffer: Buffer.from(`# reviewed\n${SHOP}`) });
    await page.click('#draft-form button[type=submit]');
    await page.waitForSelector('#verdict');
    expect(await page.locator('#verdict').innerText()).toMatch(/^PASS: no access alert at or above critical\./);
    expect(await page.locator('#result').textContent()).toContain('Verdicts that would flip');
    expect(await page.locator('#flips').count()).toBe(0);
    expect(await page.locator('#draft-alerts').textContent()).toContain('comments_only');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('--fail-on from the form: warning fails on an AI crawler blocked', async () => {
    const { page } = await open(draftPath);
    await page.fill('textarea[name=draft]', `${SHOP}\nUser-agent: GPTBot\nDisallow: /\n`);
    await page.selectOption('select[name=fail_on]', 'warning');
    await page.click('#draft-form button[type=submit]');
    await page.waitForSelector('#verdict');
    expect(await page.locator('#verdict').innerText()).toMatch(/^FAIL: .*ai_access_changed/);
    await page.close();
  });

  it('a draft that refuses AI training: the usage change per URL and purpose, with its line, and the alert (issue 28)', async () => {
    const { page, problems } = await open(draftPath);
    const draft = SHOP.replace('User-agent: *\n', 'User-agent: *\nContent-Signal: search=yes, ai-train=no\n');
    await page.fill('textarea[name=draft]', draft);
    await page.selectOption('select[name=fail_on]', 'info');
    await page.click('#draft-form button[type=submit]');
    await page.waitForSelector('#verdict');
    expect(await page.locator('#verdict').innerText()).toMatch(/^FAIL: .*ai_training_refused.*\n?.*0 of \d+ verdicts would flip; \d+ usage preferences would change\./);
    const row = page.locator('#usage-flips tr', { hasText: 'AI training' }).filter({ hasText: `${ORIGIN}/products/blue-widget` });
    expect(await row.innerText()).toMatch(/info ai_training_refused\s+https:\/\/shop\.example\/products\/blue-widget\s+.*GPTBot.*\s+AI training\s+unknown → refused\s+not stated\s+line 2 Content-Signal: search=yes, ai-train=no/);
    expect(await row.locator('a[href="#D2"]').count()).toBe(1);
    expect(await page.locator('#draft-alerts').textContent()).toContain('ai_training_refused');
    expect(await page.locator('#D2').getAttribute('class')).toBe('mark-fail');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a hostile draft is shown as text and runs nothing; a hidden character is a marker', async () => {
    const { page, problems } = await open(draftPath);
    await page.fill('textarea[name=draft]', 'User-agent: *\nDisallow: /<script>window.__pwned = 1</script>\nDisallow: /"><img src=x onerror="window.__pwned=2">\nDisallow: /a\u202eb\n');
    await page.click('#draft-form button[type=submit]');
    await page.waitForSelector('#draft-file');
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('#D2 td.code').textContent()).toBe('Disallow: /<script>window.__pwned = 1</script>');
    expect(await page.locator('#D4 td.code').textContent()).toBe('Disallow: /a<U+202E>b');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a file over 500 KiB is refused with the reason (413)', async () => {
    const { page } = await open(draftPath);
    await page.setInputFiles('input[name=file]', { name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(600 * 1024, 0x61) });
    const [response] = await Promise.all([page.waitForNavigation(), page.click('#draft-form button[type=submit]')]);
    expect(response?.status()).toBe(413);
    expect(await page.locator('.error').textContent()).toContain('larger than 512,000 bytes (500 KiB)');
    await page.close();
  });
});

describe('cross-site requests', () => {
  let evil: http.Server;
  let evilBase: string;
  let formToken: string;

  beforeAll(async () => {
    const { page } = await open(draftPath);
    formToken = (await page.getAttribute('input[name=token]', 'value'))!;
    await page.close();
    // Another site's page that posts to the dashboard as soon as it loads, with the token even
    // (as if it had leaked) or without it.
    evil = http.createServer((req, res) => {
      const withToken = req.url === '/with-token';
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<form id="f" method="post" action="${base}/draft" enctype="multipart/form-data">
        ${withToken ? `<input name="token" value="${formToken}">` : ''}<input name="origin" value="${ORIGIN}"><textarea name="draft">User-agent: *\nDisallow: /</textarea></form>
        <script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    evilBase = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((r) => evil.close(() => r())));

  it.each(['/without-token', '/with-token'])('a form another site submits is refused (%s): 403, nothing computed', async (path) => {
    const page = await browser.newPage();
    const answered = page.waitForResponse((r) => r.url() === `${base}/draft` && r.request().method() === 'POST');
    await page.goto(evilBase + path);
    const response = await answered;
    expect(response.status()).toBe(403);
    expect(await response.text()).toContain('Refused');
    await page.close();
  });
});

describe('with a dashboard token: the page follows the rules of every page', () => {
  it('no token: the page sends to the login form, the POST is a 401', async () => {
    const page = await browser.newPage();
    await page.goto(lockedBase + draftPath);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.close();
    const form = new FormData();
    form.set('origin', ORIGIN);
    form.set('draft', STAGING);
    expect((await fetch(`${lockedBase}/draft`, { method: 'POST', body: form })).status).toBe(401);
  });

  it('with the token (Bearer), a script reads the form and tests a draft', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const html = await (await fetch(lockedBase + draftPath, { headers: auth })).text();
    const formToken = /name="token" value="([^"]+)"/.exec(html)![1]!;
    const form = new FormData();
    form.set('token', formToken);
    form.set('origin', ORIGIN);
    form.set('draft', STAGING);
    const answer = await fetch(`${lockedBase}/draft`, { method: 'POST', body: form, headers: auth });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('id="verdict">FAIL');
  });
});
