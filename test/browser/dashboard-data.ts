/**
 * A populated database for the dashboard's browser tests and screenshots: sites in two
 * portfolios replayed over four nights through the real pipeline (loopback sites, Postgres,
 * Redis): a publisher that blocks AI crawlers on night 2, a shop that answers 503 from night 3
 * every tracked URL flips for every agent, one outage), a blog without robots.txt,
 * a store that lets GPTBot in, a hostile site whose robots.txt holds markup, quotes, a script and
 * control bytes, and one whose text lies: a right-to-left override that shows `toBTPG` as
 * `GPTBot` and `/gnp.exe` as `/exe.png`, a zero-width space in a token, and a 20,000-character
 * rule. Two sites of the `signals` portfolio state usage preferences (issue 28): one whose
 * Content-Signal line allows AI training, then on night 2 refuses it while GPTBot may still crawl
 * (the contradiction the AI page filters by), its line holding a right-to-left override; one that
 * refuses it to Bingbot alone while every other crawler is kept out.
 * Alerts go to a webhook receiver on loopback (the alerts page lists their deliveries).
 */
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { createDb } from '../../src/db/client.js';
import type { DbHandle } from '../../src/db/client.js';
import { createDashboard } from '../../src/web/server.js';
import { startWebhookReceiver } from '../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../fixtures/webhook-receiver.js';
import { addSites, replayNight, settleAnalysis, settleDeliveries, track } from '../helpers/nightly.js';
import { startPipeline } from '../helpers/pipeline.js';
import type { Pipeline } from '../helpers/pipeline.js';

export const NIGHTS = ['2026-03-01T03:00:00.000Z', '2026-03-02T03:00:00.000Z', '2026-03-03T03:00:00.000Z', '2026-03-10T03:00:00.000Z'];

const NEWS_1 = 'User-agent: *\nDisallow: /search\nDisallow: /admin/\n\nSitemap: https://news.example/sitemap.xml\n';
const NEWS_2 = `${NEWS_1}\n# No AI training on our journalism\nUser-agent: GPTBot\nUser-agent: CCBot\nUser-agent: ClaudeBot\nUser-agent: Google-Extended\nDisallow: /\n`;
const SHOP = 'User-agent: *\nDisallow: /cart\nDisallow: /checkout\nAllow: /checkout/help\n';
const STORE = 'User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nUser-agent: GPTBot\nAllow: /\n';

/** What a hostile robots.txt holds: if any of it ran, `window.__pwned` would be set. */
export const HOSTILE_SCRIPT = '<script>window.__pwned = 1</script>';
export const HOSTILE_IMG = '"><img src=x onerror="window.__pwned=2">';
export const HOSTILE_BODY = Buffer.concat([
  Buffer.from(`User-agent: *\nDisallow: /${HOSTILE_SCRIPT}\nDisallow: /a${HOSTILE_IMG}\nDisallow: /quote"'&amp;\n# <b>bold</b> \u2028 comment\n`, 'utf8'),
  Buffer.from([0x44, 0x69, 0x73, 0x61, 0x6c, 0x6c, 0x6f, 0x77, 0x3a, 0x20, 0x2f, 0x6e, 0x75, 0x6c, 0x00, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0xff, 0xfe, 0x0a]),
]);

/** Usage preferences: AI training allowed, then refused (night 2), a hidden character in the line's value. */
export const SIGNALS_1 = 'User-agent: *\nContent-Signal: search=yes, ai-train=yes\nDisallow: /private/\n';
export const SIGNALS_2 = 'User-agent: *\nContent-Signal: search=yes, ai-train=no, note=\u202eon\nDisallow: /private/\n';
/** AI training refused to the one crawler let in: no AI-training crawler may crawl, so no contradiction. */
export const STRICT = 'User-agent: *\nDisallow: /\n\nUser-agent: Bingbot\nContent-Signal: ai-train=no\nAllow: /\n';

/** A rule of 20,000 characters: one line, no space to break at. */
export const LONG_RULE = `Disallow: /${'a'.repeat(19_990)}`;
/** What the lying file shows a reader (U+202E reverses what follows it on its line). */
export const TROJAN_BODY = `User-agent: \u202etoBTPG\nDisallow: /\n\nUser-agent: *\nDisallow: /\u202egnp.exe\nDisallow: /GPT\u200bBot\nAllow: /\u001b[2Jclear\n${LONG_RULE}\n`;

/** The shop's tracked URLs besides its root: with ten default agents, the outage flips thirty verdicts. */
export const SHOP_URLS = ['/products/a', '/products/b'];

export interface DashboardData {
  p: Pipeline;
  receiver: WebhookReceiver;
  origin(name: string): string;
  close(): Promise<void>;
}

export async function populateDashboardData(): Promise<DashboardData> {
  const p = await startPipeline({ env: { ROBOTS_AUDIT_ALERT_BACKOFF_MS: '20' } });
  const receiver = await startWebhookReceiver();
  await addSites(p, ['news', 'blog', 'evil', 'trojan'], 'publishers');
  await addSites(p, ['shop', 'store'], 'shops');
  await addSites(p, ['signals', 'strict'], 'signals');
  await track(p, 'news', ['/world/a', '/search?q=x']);
  await track(p, 'evil', ['/a"><script>x</script>']);
  await track(p, 'shop', SHOP_URLS);
  const added = await p.cli(['alerts', 'add', receiver.url]);
  if (added.code !== 0) throw new Error(added.stderr);
  await replayNight(p, NIGHTS[0]!, {
    news: NEWS_1,
    blog: { status: 404, body: 'not found' },
    shop: SHOP,
    store: STORE,
    evil: { status: 200, body: HOSTILE_BODY },
    trojan: TROJAN_BODY,
    signals: SIGNALS_1,
    strict: STRICT,
  });
  await replayNight(p, NIGHTS[1]!, { news: NEWS_2, signals: SIGNALS_2 });
  await replayNight(p, NIGHTS[2]!, { shop: { status: 503, body: 'busy' } });
  await replayNight(p, NIGHTS[3]!, {});
  await settleDeliveries(p);
  // The site pages' "Other parsers" panels read what the analysis job stores after each run.
  await settleAnalysis(p);
  return {
    p,
    receiver,
    origin: (name) => p.origin(name),
    close: async () => {
      await p.close();
      await receiver.close();
    },
  };
}

/** Debian's package (`.ci/run` installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

/** The populated database, the dashboard on it (read-only, on loopback, no token) and Chromium. */
export interface DashboardInBrowser {
  data: DashboardData;
  handle: DbHandle;
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function openDashboardInBrowser(): Promise<DashboardInBrowser> {
  const data = await populateDashboardData();
  const handle = createDb(data.p.db.url, { max: 4, readOnly: true, jit: false });
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: data.p.db.name });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  return {
    data,
    handle,
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    browser,
    close: async () => {
      await browser.close();
      await app.close();
      await handle.close();
      await data.close();
    },
  };
}
