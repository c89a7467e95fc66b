/**
 * The screenshots of docs/screenshots/ (README, docs): the dashboard in headless Chromium on the
 * browser tests' database (test/browser/dashboard-data.ts), with a few more weekly nights so the
 * charts have a history to show, on a laptop (1366 px) and a phone (390 px). Not a test: `npm run
 * screenshots` writes the PNGs again.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { createDb } from '../../src/db/client.js';
import { createDashboard } from '../../src/web/server.js';
import { ROOT } from '../bench/bench-doc.js';
import { nightAt, replayNight } from '../helpers/nightly.js';
import { CHROMIUM, NIGHTS, populateDashboardData } from './dashboard-data.js';

const OUT = path.join(ROOT, 'docs', 'screenshots');

/** Desktop (1366 px wide, a laptop) and phone (390 px, CSS pixels of a current phone) shots. */
const DESKTOP = 1366;
const PHONE = 390;
const PAGES: { file: string; path: (origin: (name: string) => string, outageRun: number) => string; width: number; height: number; full?: boolean; open?: string }[] = [
  { file: 'overview.png', path: () => '/', width: DESKTOP, height: 820 },
  { file: 'site.png', path: (o) => `/site?origin=${encodeURIComponent(o('news'))}&url=/world/a&ua=GPTBot`, width: DESKTOP, height: 1500 },
  { file: 'night.png', path: (_o, run) => `/night?run=${run}`, width: DESKTOP, height: 820, open: 'details.cause summary' },
  { file: 'changes.png', path: () => '/changes', width: DESKTOP, height: 820 },
  { file: 'ai-access.png', path: () => '/ai', width: DESKTOP, height: 820 },
  { file: 'charts.png', path: () => '/charts', width: DESKTOP, height: 1000 },
  { file: 'runs.png', path: () => '/runs', width: DESKTOP, height: 820 },
  { file: 'hostile.png', path: (o) => `/site?origin=${encodeURIComponent(o('evil'))}#file`, width: DESKTOP, height: 820 },
  { file: 'hidden-text.png', path: (o) => `/site?origin=${encodeURIComponent(o('trojan'))}#file`, width: DESKTOP, height: 900 },
  { file: 'compliance.png', path: () => '/compliance', width: DESKTOP, height: 700 },
  { file: 'violations.png', path: () => '/compliance/violations', width: DESKTOP, height: 700 },
  { file: 'phone-overview.png', path: () => '/', width: PHONE, height: 844, full: true },
  { file: 'phone-night.png', path: (_o, run) => `/night?run=${run}`, width: PHONE, height: 844, open: 'details.cause summary' },
  { file: 'phone-site.png', path: (o) => `/site?origin=${encodeURIComponent(o('trojan'))}`, width: PHONE, height: 844 },
];

/**
 * The Compliance pages' data: the operators' range files (test/fixtures/crawler-ranges) and an
 * access log of news.example's crawlers around the night it closed to GPTBot, CCBot and ClaudeBot
 * (NIGHTS[1]), imported as `robots-audit logs import` does.
 */
async function importAccessLog(d: Awaited<ReturnType<typeof populateDashboardData>>): Promise<void> {
  for (const [source, file] of [['gptbot', 'openai-gptbot.json'], ['ccbot', 'commoncrawl-ccbot.json'], ['googlebot', 'google-common-crawlers.json']]) {
    const run = await d.p.cli(['crawlers', 'ranges', 'import', path.join(ROOT, 'test/fixtures/crawler-ranges', file!), '--source', source!]);
    if (run.code !== 0) throw new Error(run.stderr);
  }
  const news = new URL(d.origin('news')).hostname;
  const store = new URL(d.origin('store')).hostname;
  const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
  const requests: [string, string, string, string, string][] = [
    ['01/Mar/2026:10:00:00', news, '132.196.86.5', '/robots.txt', GPTBOT],
    ['01/Mar/2026:10:00:05', news, '132.196.86.5', '/world/a', GPTBOT],
    ['01/Mar/2026:11:00:00', news, '192.178.4.5', '/robots.txt', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
    ['01/Mar/2026:11:00:02', news, '192.178.4.5', '/world/a', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
    ['02/Mar/2026:08:00:00', news, '132.196.86.5', '/world/b', GPTBOT],
    ['03/Mar/2026:12:00:00', news, '3.41.188.33', '/world/a', 'CCBot/2.0 (https://commoncrawl.org/faq/)'],
    ['04/Mar/2026:09:00:00', news, '132.196.86.5', '/world/c', GPTBOT],
    ['04/Mar/2026:09:30:00', news, '203.0.113.9', '/world/d', GPTBOT],
    ['04/Mar/2026:10:00:00', news, '192.0.2.60', '/world/e', 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)'],
    ['05/Mar/2026:09:00:00', news, '132.196.86.5', '/world/f', GPTBOT],
    ['05/Mar/2026:12:00:00', store, '132.196.86.5', '/products/1', GPTBOT],
  ];
  const log = requests.map(([at, host, ip, target, ua]) => `${host} ${ip} - - [${at} +0000] "GET ${target} HTTP/1.1" 200 512 "-" "${ua}"\n`).join('');
  const run = await d.p.cli(['logs', 'import', '-', '--no-dns'], log);
  if (run.code !== 0) throw new Error(run.stderr);
}

const data = await populateDashboardData();
try {
  // Weekly nights after the fourth: the shop recovers, the store closes to GPTBot, then opens again.
  const replies: Record<string, string>[] = [
    { shop: 'User-agent: *\nDisallow: /cart\n' },
    { store: 'User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n' },
    {},
    { blog: 'User-agent: *\nDisallow: /drafts/\n\nUser-agent: CCBot\nDisallow: /\n' },
    {},
    { store: 'User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nUser-agent: GPTBot\nAllow: /\n' },
  ];
  for (const [i, serve] of replies.entries()) await replayNight(data.p, nightAt(NIGHTS[3]!, 7 * (i + 1)), serve);
  await importAccessLog(data);
  const [outage] = (await data.p.db.pool.query<{ id: number }>('select id from audit_runs where run_at = $1', [NIGHTS[2]])).rows;
  const outageRun = outage!.id;
  const handle = createDb(data.p.db.url, { readOnly: true, jit: false });
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: 'robots_audit_demo' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  fs.mkdirSync(OUT, { recursive: true });
  for (const page of PAGES) {
    const tab = await browser.newPage({ viewport: { width: page.width, height: page.height } });
    await tab.goto(base + page.path(data.origin, outageRun));
    if (page.open) await tab.locator(page.open).first().click();
    await tab.screenshot({ path: path.join(OUT, page.file), fullPage: page.full === true });
    await tab.close();
    console.log(`docs/screenshots/${page.file}`);
  }
  await browser.close();
  await app.close();
  await handle.close();
} finally {
  await data.close();
}
