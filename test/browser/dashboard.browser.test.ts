/**
 * The dashboard in a real browser (Debian's headless Chromium driven by playwright-core) against
 * a database populated by replaying nights through the pipeline: every page answers 200 with no
 * console error, the links between pages lead where they say, the first screen answers the
 * questions people come with (the summary cards open their lists; last night by site, an outage
 * one line; which sites block GPTBot and since when; why any URL is blocked; the night an alert
 * is about), a hostile robots.txt is shown as text and runs nothing, the CSV downloads are the
 * report commands' CSV narrowed by every filter of the page, and `serve` keeps its lock: it
 * refuses a non-loopback address without a token and then requires the token, behind a login
 * page that shows nothing but the form.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { PassThrough } from 'node:stream';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { DbHandle } from '../../src/db/client.js';
import { CONTENT_SECURITY_POLICY } from '../../src/web/server.js';
import { runCli } from '../helpers/cli.js';
import { rows } from '../helpers/nightly.js';
import { HOSTILE_IMG, HOSTILE_SCRIPT, NIGHTS, openDashboardInBrowser, SHOP_URLS } from './dashboard-data.js';
import type { DashboardData, DashboardInBrowser } from './dashboard-data.js';
import { collectProblems } from './page-problems.js';

let opened: DashboardInBrowser | undefined;
let data: DashboardData;
let handle: DbHandle;
let base: string;
let browser: Browser;

beforeAll(async () => {
  opened = await openDashboardInBrowser();
  ({ data, handle, base, browser } = opened);
}, 180_000);

afterAll(async () => {
  await opened?.close();
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
    '/night',
    '/?show=failing',
    '/ai?blocks=GPTBot',
    '/ai?crawler=GPTBot&crawler=CCBot',
    '/ai?usage=refuses-training-crawled',
    '/ai?usage=states-nothing&portfolio=signals',
    site('signals'),
    `${site('news')}&url=/private&ua=GPTBot`,
    '/compliance',
    '/compliance/violations?crawler=GPTBot',
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

  it('every filter form submits as it comes (its "any" choices are empty values), and the page answers 200', async () => {
    for (const path of ['/', '/changes', '/ai', '/night', '/charts', '/compliance']) {
      const { page } = await visit(path);
      const [response] = await Promise.all([page.waitForNavigation(), page.locator('form.filters button[type=submit]').first().click()]);
      expect(response?.status(), path).toBe(200);
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

    await page.locator('header nav').getByRole('link', { name: 'Changes' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Changes and flips');
    await page.locator('#events a', { hasText: data.origin('shop') }).first().click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(data.origin('shop'));

    await page.getByRole('link', { name: 'Runs' }).click();
    await page.locator('#runs a', { hasText: 'at-' }).first().click();
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
    // The NUL and the escape byte are shown as marked code points, the bytes that are not UTF-8 as U+FFFD.
    expect(file).toContain('/nulU+0000U+001B[31m��');
    expect(await page.locator('table.file .hc-control').allTextContents()).toEqual(['U+2028', 'U+0000', 'U+001B']);
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

describe('the first screen answers the questions people come with', () => {
  it('each summary card opens its list: the count on the card is the list\'s length', async () => {
    const { page } = await visit('/');
    const card = page.locator('ul.counts li', { hasText: 'failing now' });
    const count = Number(await card.locator('b').textContent());
    expect(count).toBe(1);
    await card.locator('a').click();
    expect(new URL(page.url()).searchParams.get('show')).toBe('failing');
    expect(await page.locator('#sites tbody tr').count()).toBe(count);
    expect(await page.locator('#sites tbody tr td a').first().textContent()).toBe(data.origin('shop'));
    expect(await page.locator('p.matching').textContent()).toContain('1 site matches');
    // The card of every site clears it again.
    await page.locator('ul.counts li', { hasText: 'sites' }).first().locator('a').click();
    expect(new URL(page.url()).searchParams.get('show')).toBeNull();
    await page.close();
  });

  it('last night, by site: an outage is one line (its flips and its alert inside), which opens', async () => {
    const { page } = await visit('/night');
    // The latest night changed nothing; the night before it is one click away.
    expect(await page.locator('h1').textContent()).toContain('2026-03-10');
    await page.getByRole('link', { name: /night before/ }).click();
    await expect.poll(() => page.locator('h1').textContent()).toContain('2026-03-03');
    const shop = page.locator('section.night-site', { hasText: data.origin('shop') });
    const causes = shop.locator('details.cause');
    expect(await causes.count()).toBe(1);
    const outage = causes.first();
    const summary = await outage.locator('summary').innerText();
    expect(summary).toContain('Fetch and policy');
    expect(summary).toContain('critical');
    expect(summary).toContain('fetch ok → server_error');
    expect(summary).toContain(`${(SHOP_URLS.length + 1) * 10} verdicts flipped`);
    expect(await outage.locator('table.flips').isVisible()).toBe(false);
    await outage.locator('summary').click();
    expect(await outage.locator('table.flips tbody tr').count()).toBe((SHOP_URLS.length + 1) * 10);
    expect(await outage.locator('ul.alerts').innerText()).toContain('site_unreachable');
    await page.close();
  });

  it('AI access: the default agents first, blocked and allowed in words, since which night; a picker for the rest', async () => {
    const { page } = await visit('/ai');
    // A crawler's head is its token, then its parser (known, assumed or unknown) on a line of its own.
    const tokensOf = () => page.locator('table.ai thead th').evaluateAll((ths) => ths.map((th) => th.firstChild?.textContent ?? ''));
    const headings = await tokensOf();
    // The site, what each purpose is told (issue 28), then the crawlers.
    expect(headings.slice(0, 4)).toEqual(['Site', 'Search', 'AI training', 'AI input']);
    expect(headings.length).toBeLessThan(15);
    expect(headings).toContain('GPTBot');
    const row = page.locator('table.ai tbody tr', { hasText: data.origin('news') });
    const gpt = row.locator('td').nth(headings.indexOf('GPTBot'));
    expect(await gpt.innerText()).toMatch(/✕ disallowed[\s\S]*line \d+, own group[\s\S]*since 2026-03-02/);
    const store = page.locator('table.ai tbody tr', { hasText: data.origin('store') }).locator('td').nth(headings.indexOf('GPTBot'));
    expect(await store.innerText()).toMatch(/✓ allowed/);
    // The picker: another crawler of the catalogue as a column.
    await page.locator('details.picker summary').click();
    const other = page.locator('details.picker label.choice', { hasNotText: 'default' }).first();
    const token = (await other.innerText()).trim();
    await other.locator('input').check();
    await page.locator('form.filters button[type=submit]').click();
    await expect.poll(tokensOf).toEqual(['Site', 'Search', 'AI training', 'AI input', token]);
    expect(await page.locator('table.ai thead th .parser').innerText()).toMatch(/^(parser unknown|[a-z-]+ parser, (known|assumed))$/);
    await page.close();
  });

  it('which of my sites block GPTBot, and since when', async () => {
    const { page } = await visit('/ai?blocks=GPTBot');
    const sites = await page.locator('table.ai tbody td.site').allTextContents();
    expect(sites).toContain(data.origin('news'));
    expect(sites).toContain(data.origin('shop'));
    expect(sites).not.toContain(data.origin('store'));
    expect(await page.locator('p.matching').innerText()).toMatch(/sites? blocks? GPTBot at the root/);
    await page.close();
  });

  it('check any URL on the site page: the verdict, the deciding line (linked to the file) and why the policy applies', async () => {
    const { page } = await visit(site('news'));
    await page.fill('#check input[name=url]', '/any/page?x=1');
    await page.fill('#check input[name=ua]', 'GPTBot');
    await page.locator('#check button').click();
    const answer = page.locator('#check .answer');
    await expect.poll(() => answer.count()).toBe(1);
    expect(await answer.locator('p.verdict').innerText()).toMatch(/✕ disallowed .*\/any\/page\?x=1 for GPTBot/);
    const line = answer.locator('dd a[href^="#L"]');
    expect(await line.innerText()).toMatch(/^line \d+: Disallow: \/$/);
    expect(await answer.innerText()).toMatch(/robots\.txt was fetched OK \(200\)/);
    // Googlebot is allowed there, by no rule of its group.
    await page.fill('#check input[name=ua]', 'Googlebot');
    await page.locator('#check button').click();
    await expect.poll(() => answer.locator('p.verdict').innerText()).toMatch(/✓ allowed/);
    // An outage: the policy decides, and says why.
    const shop = await visit(`${site('shop')}&url=/products/a&ua=Googlebot`);
    expect(await shop.page.locator('#check .answer').innerText()).toMatch(/✕ disallowed[\s\S]*the policy decides[\s\S]*R-13[\s\S]*5xx/);
    // A URL of another site is a message, not an error page.
    const elsewhere = await visit(`${site('shop')}&url=${encodeURIComponent('https://elsewhere.example/x')}`);
    expect(elsewhere.status).toBe(200);
    expect(await elsewhere.page.locator('#check .error').innerText()).toContain('not on');
    for (const v of [shop, elsewhere]) await v.page.close();
    await page.close();
  });

  it('the site page names the rules other parsers read differently, with each parser\'s verdict (issue 19)', async () => {
    const { page } = await visit(site('shop'));
    const row = page.locator('#portability table.portability tbody tr');
    expect(await row.count()).toBe(1);
    const cells = await row.locator('td').allInnerTexts();
    expect(cells.slice(0, 8)).toEqual(['4', 'Allow: /checkout/help', 'any (*)', '/checkout/help', 'allowed', 'disallowed', 'allowed', 'allowed']);
    expect(cells[8]).toBe('python-urllib lets the first matching rule in file order win, not the longest, so /checkout/help stays disallowed');
    expect(await row.locator('td a[href="#L4"]').count()).toBe(1);
    await page.close();
  });

  it('/alerts shows the night each alert is about, not only when its delivery was made', async () => {
    const { page } = await visit('/alerts');
    const row = page.locator('#deliveries tbody tr', { hasText: 'site_unreachable' });
    expect(await row.count()).toBe(1);
    const night = await row.locator('td').first().innerText();
    expect(night).toBe('2026-03-03 03:00');
    expect(await row.locator('td').nth(6).innerText()).not.toContain('2026-03-03');
    await row.locator('td').first().locator('a').click();
    await expect.poll(() => page.locator('h1').textContent()).toContain('2026-03-03');
    await page.close();
  });

  it('the small ones: plurals, a page past the last, a period that ends before it starts, what R-10 means', async () => {
    const one = await visit('/?q=news');
    expect(await one.page.locator('p.matching').textContent()).toMatch(/^1 site matches/);
    const past = await visit('/?page=99');
    expect(past.status).toBe(404);
    expect(await past.page.locator('.error').textContent()).toContain('There is no page 99: this list has 1 page');
    const backwards = await visit('/changes?since=2026-03-05&until=2026-03-01');
    expect(backwards.status).toBe(400);
    expect(await backwards.page.locator('.error').textContent()).toContain('until (2026-03-01) is not after since (2026-03-05)');
    const overview = await visit('/');
    expect(await overview.page.locator('#sites .reason').first().innerText()).toMatch(/^R-\d+: \S/);
    expect(await overview.page.locator('#sites').innerText()).toContain('R-10: robots.txt fetched: its rules apply');
    for (const v of [one, past, backwards, overview]) await v.page.close();
  });
});

describe('AI usage preferences (issue 28): what each purpose is told, and the contradiction', () => {
  const originsOn = async (path: string) => {
    const { page } = await visit(path);
    const sites = await page.locator('table.ai tbody td.site').allTextContents();
    await page.close();
    return sites;
  };

  it('the AI page: per site and purpose, the preference, since when and by which line (its value on hover)', async () => {
    const { page, problems } = await visit('/ai?portfolio=signals');
    const signals = page.locator('table.ai tbody tr', { hasText: data.origin('signals') });
    const training = signals.locator('td.usage[data-purpose="ai-train"]');
    expect(await training.innerText()).toMatch(/^refused\s+line 2, since 2026-03-02\s+yet Applebot-Extended, CCBot, ClaudeBot and \d+ more may crawl \/$/);
    expect((await training.locator('.contradiction').getAttribute('title'))?.split(', ')).toContain('GPTBot');
    // The line's value on hover, its right-to-left override a visible code point, not a character.
    const title = await training.locator('.pref').getAttribute('title');
    expect(title).toContain('Content-Signal: search=yes, ai-train=no, note=');
    expect(title).toContain('U+202E');
    expect(title).not.toContain('\u202e');
    expect(await signals.locator('td.usage[data-purpose="search"]').innerText()).toMatch(/^allowed\s+line 2, since 2026-03-01/);
    expect(await signals.locator('td.usage[data-purpose="ai-input"]').innerText()).toBe('unknown');
    // Bingbot alone is told "refused"; every other crawler may not crawl: counted as such, no contradiction.
    const strict = page.locator('table.ai tbody tr', { hasText: data.origin('strict') }).locator('td.usage[data-purpose="ai-train"]');
    expect(await strict.innerText()).toMatch(/refused ×1[\s\S]*not-crawlable ×\d+/);
    expect(await strict.locator('.contradiction').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the usage filter narrows the list, and the CSV link carries it', async () => {
    expect(await originsOn('/ai?usage=refuses-training-crawled')).toEqual([data.origin('signals')]);
    expect((await originsOn('/ai?usage=refuses-training')).sort()).toEqual([data.origin('signals'), data.origin('strict')].sort());
    expect(await originsOn('/ai?usage=allows-training')).toEqual([]);
    const nothing = await originsOn('/ai?usage=states-nothing');
    expect(nothing).toContain(data.origin('news'));
    expect(nothing).not.toContain(data.origin('signals'));

    const { page } = await visit('/ai?usage=refuses-training-crawled');
    expect(await page.locator('p.matching').innerText()).toMatch(/^1 site refuses AI training but lets an AI-training crawler crawl/);
    const href = await page.locator('.downloads a', { hasText: 'ai-access' }).getAttribute('href');
    expect(href).toBe('/csv/ai-access?usage=refuses-training-crawled');
    const csv = parseCsv(await (await fetch(base + href!)).text(), { columns: true }) as { SITE: string }[];
    expect(csv.map((r) => r.SITE)).toEqual([data.origin('signals')]);
    // The filter chosen in the form travels in the URL.
    await page.goto(`${base}/ai`);
    await page.locator('select[name=usage]').selectOption('refuses-training');
    await page.locator('form.filters button[type=submit]').click();
    await page.waitForURL(/usage=refuses-training(&|$)/);
    expect((await page.locator('table.ai tbody td.site').allTextContents()).sort()).toEqual([data.origin('signals'), data.origin('strict')].sort());
    await page.close();
  });

  it('the site page: the "AI usage preferences" panel, its line escaped, the night AI training became refused, and its alert', async () => {
    const { page, problems } = await visit(site('signals'));
    const now = page.locator('#usage #usage-now');
    const training = now.locator('tr[data-purpose="ai-train"]', { hasText: 'refused' }).first();
    expect(await training.innerText()).toMatch(/AI training\s+refused\s+https?:\/\/.*\/\s+root\s+.*GPTBot.*\s+2026-03-02\s+line 2 Content-Signal: search=yes, ai-train=no, note=U\+202Eon/);
    expect(await training.locator('.hc').count()).toBe(1);
    expect(await training.locator('a[href="#L2"]').count()).toBe(1);
    const change = page.locator('#usage #usage-changes tbody tr').first();
    expect(await change.innerText()).toMatch(/2026-03-02\s+AI training\s+allowed → refused[\s\S]*line 2 Content-Signal: search=yes, ai-train=yes\s+line 2 Content-Signal: search=yes, ai-train=no/);
    expect(await change.locator('a').first().getAttribute('href')).toMatch(/^\/night\?run=\d+$/);
    const alert = page.locator('#alerts tbody tr', { hasText: 'ai_training_refused' });
    expect(await alert.innerText()).toMatch(/info\s+ai_training_refused\s+AI training refused on https?:\/\/\S+: 1 tracked URL \(line 2: /);
    // The note about hidden characters names the override.
    expect(await page.locator('body').innerText()).toContain('RIGHT-TO-LEFT OVERRIDE');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a site whose file states nothing says so', async () => {
    const { page } = await visit(site('news'));
    expect(await page.locator('#usage .none-stated').innerText()).toBe('No tracked URL is told any preference.');
    expect(await page.locator('#usage').innerText()).toContain('No usage preference changed.');
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

  it('/csv/portability is report portability\'s CSV (here: no AI-crawler block another parser misreads)', async () => {
    const response = await fetch(`${base}/csv/portability`);
    expect(response.status).toBe(200);
    const cli = await data.p.cli(['report', 'portability', '--format', 'csv']);
    expect(await response.text()).toBe(cli.stdout);
    expect(cli.stdout).toBe('SITE,LINE,RULE,AGENTS,EXAMPLE,GOOGLE,PYTHON-URLLIB,PYTHON-URLLIB-RFC9309,SCRAPY-PROTEGO,SCRAPY-PROTEGO-0.7,NODE-ROBOTS-PARSER,WHY\r\n');
  });

  it('the download links carry every filter of the page, and the CSV applies them', async () => {
    const filters = 'portfolio=shops&type=flip&severity=critical&since=2026-03-01&until=2026-03-04&kind=outcome_changed&crawler=GPTBot';
    const { page } = await visit(`/changes?${filters}`);
    const links = await page.locator('.downloads a').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
    expect(links).toHaveLength(1);
    const link = new URL(links[0]!);
    expect(link.pathname).toBe('/csv/flips');
    expect(Object.fromEntries(link.searchParams)).toEqual({
      portfolio: 'shops',
      severity: 'critical',
      since: '2026-03-01',
      until: '2026-03-04',
      kind: 'outcome_changed',
      crawler: 'GPTBot',
    });
    const flips = parseCsv(await (await fetch(link)).text(), { columns: true }) as Record<string, string>[];
    expect(flips.length).toBeGreaterThan(0);
    for (const f of flips) expect(f).toMatchObject({ NIGHT: '2026-03-03T03:00:00.000Z', SITE: data.origin('shop'), CRAWLER: 'GPTBot', CAUSE: 'outcome_changed' });
    await page.close();
  });

  it.each([
    ['/csv/changes?since=2026-03-01&until=2026-03-02', (r: Record<string, string>) => r.NIGHT === '2026-03-01T03:00:00.000Z'],
    ['/csv/changes?since=2026-03-01&severity=critical', (r: Record<string, string>) => r.SITE === data.origin('shop')],
    ['/csv/alerts?since=2026-03-01&kind=site_unreachable', (r: Record<string, string>) => r.KIND === 'site_unreachable' && r.NIGHT === '2026-03-03T03:00:00.000Z'],
    ['/csv/lint?q=evil', (r: Record<string, string>) => r.SITE === data.origin('evil')],
    ['/csv/status?show=failing', (r: Record<string, string>) => r.SITE === data.origin('shop')],
    ['/csv/ai-access?blocks=GPTBot', (r: Record<string, string>) => r.SITE !== data.origin('store')],
  ])('%s: every row matches', async (path, matches) => {
    const response = await fetch(base + path);
    expect(response.status).toBe(200);
    const found = parseCsv(await response.text(), { columns: true }) as Record<string, string>[];
    expect(found.length).toBeGreaterThan(0);
    for (const r of found) expect(matches(r), JSON.stringify(r)).toBe(true);
  });

  it('a search that matches nothing gives the headings only; a period that ends before it starts is a 400', async () => {
    for (const name of ['status', 'failing', 'lint', 'ai-access']) {
      const text = await (await fetch(`${base}/csv/${name}?q=no-such-site`)).text();
      expect(text.split('\r\n').filter((l) => l !== ''), name).toHaveLength(1);
    }
    expect((await fetch(`${base}/csv/changes?since=2026-03-05&until=2026-03-01`)).status).toBe(400);
  });

  it('a cell a spreadsheet would read as a formula starts with an apostrophe', async () => {
    const changes = parseCsv(await (await fetch(`${base}/csv/changes?since=2026-03-02&until=2026-03-03`)).text(), { columns: true }) as Record<string, string>[];
    const news = changes.find((r) => r.SITE === data.origin('news'));
    expect(news?.WHAT).toMatch(/^'\+ group /);
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

  it('no route but the login form takes anything but GET: 405, with the methods it takes', async () => {
    for (const path of ['/', site('news'), '/changes', '/csv/status']) {
      const response = await fetch(base + path, { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
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
    // Wrong Bearer headers count as failed logins: enough allowed for this test's own.
    const server = serve(['--host', '0.0.0.0', '--port', '0'], { ROBOTS_AUDIT_DASHBOARD_TOKEN: TOKEN, ROBOTS_AUDIT_DASHBOARD_LOGIN_FAILURES: '20' });
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
      // Before logging in, the form and nothing else: no navigation, no database name.
      expect(await page.locator('header nav').count()).toBe(0);
      expect(await page.locator('main input:not([type=hidden])').count()).toBe(1);
      expect(await page.locator('body').innerText()).not.toContain(data.p.db.name);
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
