/**
 * The dashboard in a real browser (Debian's headless Chromium driven by playwright-core) against
 * a database populated by replaying nights through the pipeline: every page answers 200 with no
 * console error, the links between pages lead where they say, a hostile robots.txt is shown as
 * text and runs nothing, the CSV downloads are the report commands' CSV, and `serve` keeps its
 * lock: it refuses a non-loopback address without a token and then requires the token.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createDb } from '../../src/db/client.js';
import type { DbHandle } from '../../src/db/client.js';
import { createDashboard, CONTENT_SECURITY_POLICY } from '../../src/web/server.js';
import { runCli } from '../helpers/cli.js';
import { rows } from '../helpers/nightly.js';
import { collectProblems } from './page-problems.js';
import { HOSTILE_IMG, HOSTILE_SCRIPT, NIGHTS, populateDashboardData } from './dashboard-data.js';
import type { DashboardData } from './dashboard-data.js';

/** Debian's package (`.ci/run` installs it when missing). */
const CHROMIUM = '/usr/bin/chromium';

let data: DashboardData;
let handle: DbHandle;
let app: Awaited<ReturnType<typeof createDashboard>>;
let base: string;
let browser: Browser;

beforeAll(async () => {
  data = await populateDashboardData();
  handle = createDb(data.p.db.url, { max: 4, readOnly: true });
  app = await createDashboard({ pool: handle.pool, token: null, databaseName: data.p.db.name });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await handle?.close();
  await data?.p.close();
});

interface Visit {
  page: Page;
  status: number | undefined;
  problems: string[];
}

/** Opens `path` in a fresh page, collecting console errors, page errors and CSP violations. */
async function visit(path: string): Promise<Visit> {
  const page = await browser.newPage();
  const problems = collectProblems(page);
  const response = await page.goto(base + path);
  return { page, status: response?.status(), problems };
}

const site = (name: string) => `/site?origin=${encodeURIComponent(data.origin(name))}`;

describe('every page renders with HTTP 200 and no console error', () => {
  const pages = () => [
    '/',
    '/?sort=failing',
    '/?sort=changed&dir=desc',
    '/?portfolio=shops',
    '/?q=news',
    site('news'),
    site('shop'),
    site('blog'),
    site('evil'),
    '/changes',
    '/changes?type=flip&crawler=GPTBot',
    '/changes?severity=critical',
    '/changes?kind=rules&since=2026-03-02',
    '/ai',
    '/ai?category=ai-training',
    '/charts',
    '/runs',
    '/alerts',
  ];

  it('each page', async () => {
    for (const path of pages()) {
      const { page, status, problems } = await visit(path);
      expect(status, path).toBe(200);
      expect(problems, path).toEqual([]);
      expect(await page.locator('h1').first().textContent(), path).toBeTruthy();
      await page.close();
    }
  });

  it('a run page, with the run summary', async () => {
    const [run] = await rows<{ id: number }>(data.p, 'select id from audit_runs order by run_at desc limit 1');
    const { page, status, problems } = await visit(`/runs/${run!.id}`);
    expect(status).toBe(200);
    expect(problems).toEqual([]);
    expect(await page.locator('h1').textContent()).toContain(`at-${NIGHTS[3]}`);
    await page.close();
  });

  it('an unknown site is a 404 page, a bad parameter a 400 page, both without console errors but the failed load', async () => {
    const missing = await visit('/site?origin=https://nowhere.example');
    expect(missing.status).toBe(404);
    expect(await missing.page.locator('.error').textContent()).toContain('https://nowhere.example');
    const bad = await visit('/?sort=nonsense');
    expect(bad.status).toBe(400);
    const portfolio = await visit('/?portfolio=nope');
    expect(portfolio.status).toBe(400);
    expect(await portfolio.page.locator('.error').textContent()).toContain('no portfolio named "nope"');
    for (const v of [missing, bad, portfolio]) await v.page.close();
  });
});

describe('links between pages', () => {
  it('overview → site → changes → site → runs → run → its changes', async () => {
    const { page } = await visit('/');
    await page.getByRole('link', { name: data.origin('news'), exact: true }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(data.origin('news'));
    // The news site's second night added the AI groups: the version list and both diffs show it.
    expect(await page.locator('#versions pre.diff').first().textContent()).toContain('+User-agent: GPTBot');
    expect(await page.locator('#versions').textContent()).toContain('+ group GPTBot');
    // The verdict matrix names the deciding line, which links to the file's line.
    const gpt = page.locator('#verdicts td.block').first();
    expect(await gpt.textContent()).toContain('Disallow: /');
    await gpt.locator('a.rule').click();
    expect(page.url()).toMatch(/#L\d+$/);

    await page.getByRole('link', { name: 'Changes and flips' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Changes and flips');
    await page.locator('#events a', { hasText: data.origin('shop') }).first().click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(data.origin('shop'));

    await page.getByRole('link', { name: 'Runs' }).click();
    await page.locator('#runs a').first().click();
    await expect.poll(() => page.locator('h1').textContent()).toContain('Run at-');
    await page.getByRole('link', { name: /changes$/ }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Changes and flips');
    await page.close();
  });

  it('the overview sorts and pages with links that keep the filters (a shareable URL)', async () => {
    const { page } = await visit('/?size=25&portfolio=shops');
    expect(await page.locator('#sites tbody tr').count()).toBe(2);
    await page.getByRole('link', { name: /Failing nights/ }).click();
    expect(new URL(page.url()).searchParams.get('portfolio')).toBe('shops');
    expect(await page.locator('#sites tbody tr td a').first().textContent()).toBe(data.origin('shop'));
    await page.close();
  });

  it('the changes page filters by crawler and severity', async () => {
    const { page } = await visit('/changes?crawler=GPTBot');
    const texts = await page.locator('#events tbody tr').allTextContents();
    expect(texts.length).toBeGreaterThan(0);
    for (const t of texts) expect(t).toContain('GPTBot');
    const critical = await visit('/changes?severity=critical&type=alert');
    for (const t of await critical.page.locator('#events tbody tr').allTextContents()) expect(t).toContain('critical');
    await page.close();
    await critical.page.close();
  });
});

describe('a hostile robots.txt is shown as text and runs nothing (everything from a website is hostile)', () => {
  it('the markup of the file is the text of the page; no script ran, no element was injected', async () => {
    const { page, status, problems } = await visit(site('evil'));
    expect(status).toBe(200);
    expect(problems).toEqual([]);
    const file = await page.locator('table.file').textContent();
    expect(file).toContain(HOSTILE_SCRIPT);
    expect(file).toContain(HOSTILE_IMG);
    // The NUL and the escape byte are shown as control pictures, the bytes that are not UTF-8 as U+FFFD.
    expect(file).toContain('/nul␀␛[31m��');
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('table.file script, table.file img, table.file b, body script, img[src=x]').count()).toBe(0);
    // The tracked URL with markup in its path is text too.
    expect(await page.locator('#verdicts').textContent()).toContain('%22%3E%3Cscript%3Ex%3C/script%3E');
    await page.close();
  });

  it('the overview, the changes and the lint table show it as text too', async () => {
    for (const path of ['/?q=evil', '/changes?portfolio=publishers', '/ai?q=evil']) {
      const { page, problems } = await visit(path);
      expect(problems, path).toEqual([]);
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), path).toBeUndefined();
      await page.close();
    }
  });

  it('every response carries a Content-Security-Policy that forbids inline scripts', async () => {
    const response = await fetch(`${base}${site('evil')}`);
    const csp = response.headers.get('content-security-policy');
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('an inline script, even if one got through, would be refused by the browser', async () => {
    const { page } = await visit('/');
    // Evaluated in the page (a string: the browser's globals are not this file's).
    const ran = await page.evaluate(
      "(() => { const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.append(s); return window.__inline; })()",
    );
    expect(ran).toBeUndefined();
    await page.close();
  });
});

describe('CSV downloads are the report commands\' CSV', () => {
  it.each([
    ['/csv/status?portfolio=shops', ['status', '--portfolio', 'shops']],
    ['/csv/changes?since=2026-03-01', ['changes', '--since', '2026-03-01']],
    ['/csv/flips?since=2026-03-01', ['flips', '--since', '2026-03-01']],
    ['/csv/ai-access', ['ai-access']],
    ['/csv/failing', ['failing']],
    ['/csv/lint', ['lint']],
  ])('%s', async (path, report) => {
    const response = await fetch(base + path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="robots-audit-[a-z-]+\.csv"$/);
    const cli = await data.p.cli(['report', ...report, '--format', 'csv']);
    expect(cli.code, cli.stderr).toBe(0);
    const body = await response.text();
    expect(body).toBe(cli.stdout);
    expect((parseCsv(body, { columns: true }) as unknown[]).length).toBeGreaterThan(0);
  });

  it('the page\'s filters narrow the CSV where the report has the column', async () => {
    const flips = parseCsv(await (await fetch(`${base}/csv/flips?since=2026-03-01&crawler=gptbot`)).text(), { columns: true }) as Record<string, string>[];
    expect(flips.length).toBeGreaterThan(0);
    for (const f of flips) expect(f.CRAWLER).toBe('GPTBot');
  });
});

describe('read-only: no request changes the database', () => {
  it('the dashboard\'s sessions refuse writes', async () => {
    await expect(handle.pool.query("update sites set enabled = false where origin = 'x'")).rejects.toThrow(/read-only transaction/);
  });

  it('no route but the login form takes anything but GET', async () => {
    for (const path of ['/', site('news'), '/changes', '/csv/status']) {
      const response = await fetch(base + path, { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(response.status, path).toBe(404);
    }
  });
});

/** `robots-audit serve` in this process, stopped by aborting its signal; resolves with its exit code. */
function serve(args: string[], env: Record<string, string>) {
  const controller = new AbortController();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const done = main(['serve', ...args, '--database-url', data.p.db.url], { stdin: new PassThrough(), stdout, stderr, env, signal: controller.signal });
  const listening = async () => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const m = /http:\/\/\S+:(\d+)\//.exec(out);
      if (m) return Number(m[1]);
      if (Date.now() > deadline) throw new Error(`serve did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { done, listening, stop: () => controller.abort(), output: () => ({ out, err }) };
}

describe('serve keeps its lock beyond loopback', () => {
  const TOKEN = 'a-dashboard-token-of-some-length';

  it('refuses to listen on a non-loopback address without ROBOTS_AUDIT_DASHBOARD_TOKEN', async () => {
    const run = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--database-url', data.p.db.url], { env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('refusing to listen on 0.0.0.0 without ROBOTS_AUDIT_DASHBOARD_TOKEN');
  });

  it('refuses a token shorter than 16 characters', async () => {
    const run = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--database-url', data.p.db.url], { env: { ROBOTS_AUDIT_DASHBOARD_TOKEN: 'short' } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('ROBOTS_AUDIT_DASHBOARD_TOKEN: must be at least 16 characters');
  });

  it('on 0.0.0.0 with a token: every request needs it, as a Bearer header or through the login form\'s cookie', async () => {
    const server = serve(['--host', '0.0.0.0', '--port', '0'], { ROBOTS_AUDIT_DASHBOARD_TOKEN: TOKEN });
    try {
      const port = await server.listening();
      expect(server.output().out).toContain('token required');
      const url = `http://127.0.0.1:${port}`;
      for (const path of ['/', site('news'), '/csv/status', '/runs/1/progress']) {
        const none = await fetch(url + path);
        expect(none.status, path).toBe(401);
        expect(none.headers.get('www-authenticate')).toContain('Bearer');
        expect((await fetch(url + path, { headers: { authorization: `Bearer ${TOKEN}x` } })).status, path).toBe(401);
        expect((await fetch(url + path, { headers: { authorization: `Bearer ${TOKEN}` } })).status, path).toBe(200);
      }
      // A person: sent to the login form, a wrong token refused, the right one sets an HttpOnly, SameSite cookie.
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${url}/changes?type=flip`);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.fill('input[name=token]', 'not-the-token-at-all');
      await page.click('form.login button');
      expect(await page.locator('.error').textContent()).toContain('not the token');
      await page.fill('input[name=token]', TOKEN);
      await page.click('form.login button');
      await expect.poll(() => page.locator('h1').textContent()).toBe('Changes and flips');
      expect(new URL(page.url()).search).toBe('?type=flip');
      const [cookie] = await context.cookies();
      expect(cookie).toMatchObject({ name: 'robots_audit_session', httpOnly: true, sameSite: 'Strict' });
      expect(cookie!.value).not.toContain(TOKEN);
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.goto(`${url}/`);
      expect(new URL(page.url()).pathname).toBe('/login');
      await context.close();
    } finally {
      server.stop();
    }
    expect(await server.done).toBe(0);
  });

  it('on loopback without a token, it serves', async () => {
    const server = serve(['--port', '0'], {});
    try {
      const port = await server.listening();
      expect(server.output().out).toMatch(/^robots-audit dashboard: http:\/\/127\.0\.0\.1:\d+\/ \(database test_[0-9a-f]+, read-only\)\n$/);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    } finally {
      server.stop();
    }
    expect(await server.done).toBe(0);
  });
});
