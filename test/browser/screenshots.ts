/**
 * The screenshots of docs/screenshots/ (README, docs): the dashboard in headless Chromium on the
 * browser tests' database (test/browser/dashboard-data.ts), with a few more weekly nights so the
 * charts have a history to show. Not a test: `npm run screenshots` writes the PNGs again.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { createDb } from '../../src/db/client.js';
import { createDashboard } from '../../src/web/server.js';
import { ROOT } from '../bench/bench-doc.js';
import { nightAt, replayNight } from '../helpers/nightly.js';
import { NIGHTS, populateDashboardData } from './dashboard-data.js';

const OUT = path.join(ROOT, 'docs', 'screenshots');

const PAGES: { file: string; path: (origin: (name: string) => string) => string; height?: number }[] = [
  { file: 'overview.png', path: () => '/' },
  { file: 'site.png', path: (o) => `/site?origin=${encodeURIComponent(o('news'))}`, height: 1500 },
  { file: 'changes.png', path: () => '/changes' },
  { file: 'ai-access.png', path: () => '/ai?category=ai-training' },
  { file: 'charts.png', path: () => '/charts', height: 1000 },
  { file: 'runs.png', path: () => '/runs' },
  { file: 'hostile.png', path: (o) => `/site?origin=${encodeURIComponent(o('evil'))}#file` },
];

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
  const handle = createDb(data.p.db.url, { readOnly: true });
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: 'robots_audit_demo' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  fs.mkdirSync(OUT, { recursive: true });
  for (const page of PAGES) {
    const tab = await browser.newPage({ viewport: { width: 1360, height: page.height ?? 820 } });
    await tab.goto(base + page.path(data.origin));
    await tab.screenshot({ path: path.join(OUT, page.file) });
    await tab.close();
    console.log(`docs/screenshots/${page.file}`);
  }
  await browser.close();
  await app.close();
  await handle.close();
} finally {
  await data.p.close();
}
