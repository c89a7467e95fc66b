/**
 * A populated database for the dashboard's browser tests and screenshots: sites in two
 * portfolios replayed over four nights through the real pipeline (loopback sites, Postgres,
 * Redis): a publisher that blocks AI crawlers on night 2, a shop that answers 503 from night 3
 * a blog without robots.txt, a store that lets GPTBot in, and a hostile site whose
 * robots.txt holds markup, quotes, a script and control bytes, as a website may serve.
 */
import { addSites, replayNight, track } from '../helpers/nightly.js';
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

export interface DashboardData {
  p: Pipeline;
  origin(name: string): string;
}

export async function populateDashboardData(): Promise<DashboardData> {
  const p = await startPipeline();
  await addSites(p, ['news', 'blog', 'evil'], 'publishers');
  await addSites(p, ['shop', 'store'], 'shops');
  await track(p, 'news', ['/world/a', '/search?q=x']);
  await track(p, 'evil', ['/a"><script>x</script>']);
  await replayNight(p, NIGHTS[0]!, { news: NEWS_1, blog: { status: 404, body: 'not found' }, shop: SHOP, store: STORE, evil: { status: 200, body: HOSTILE_BODY } });
  await replayNight(p, NIGHTS[1]!, { news: NEWS_2 });
  await replayNight(p, NIGHTS[2]!, { shop: { status: 503, body: 'busy' } });
  await replayNight(p, NIGHTS[3]!, {});
  return { p, origin: (name) => p.origin(name) };
}
