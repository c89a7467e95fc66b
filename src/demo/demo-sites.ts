/**
 * The demo's scripted sites: robots.txt files written for this project (no third-party text)
 * that change the way real ones did. The publishers of 2023 block GPTBot in August, CCBot and
 * ChatGPT-User soon after and Google-Extended at the end of September (the months those tokens
 * were announced); one names GPTBot in a group of its own and so opens to it what `*` kept
 * closed; a shop ships its staging file. In 2025, next to the recorded histories, the cases
 * the fetch rules are about: a 503 streak longer than 30 days (D-3), a redirect chain across
 * hosts that later grows past five hops (R-11), a robots.txt that disappears (404, R-12), an
 * HTML page served as robots.txt, and one synthetic site whose Content-Signal line turns AI
 * training from yes to no (issue 28). Pure data and functions of the night.
 */
import type { DemoHistory } from './histories.js';
import { bodyOnNight } from './histories.js';
import type { Timeline } from './timeline.js';
import { inForceOn } from './timeline.js';

export interface DemoReply {
  status: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** The absolute URL of a path on a demo host, on the port the demo web listens on. */
export type DemoUrl = (host: string, path: string) => string;

/** A host the demo web answers for. */
export interface DemoHost {
  /** Under `.demo`, which the demo pins to its loopback web (ROBOTS_AUDIT_RESOLVE). */
  host: string;
  /** What `path` (with its query) answers on `night`; null answers 404. */
  serve(night: Date, path: string, url: DemoUrl): DemoReply | null;
}

/** A host the demo audits. */
export interface DemoSite extends DemoHost {
  portfolio: string;
  /** Paths whose verdicts are tracked, on top of `/`. */
  tracked: readonly string[];
  /** What happens to the site, in a few words (printed when it is added). */
  story: string;
}

const text = (body: string | Buffer): DemoReply => ({ status: 200, body, headers: { 'content-type': 'text/plain; charset=utf-8' } });
const html = (body: string | Buffer): DemoReply => ({ status: 200, body, headers: { 'content-type': 'text/html; charset=utf-8' } });
const redirect = (status: 301 | 302 | 307 | 308, location: string): DemoReply => ({ status, headers: { location } });
/** No Retry-After: the retries follow ROBOTS_AUDIT_RETRY_DELAYS, which the demo keeps short. */
const UNAVAILABLE: DemoReply = { status: 503, body: 'Service Unavailable', headers: { 'content-type': 'text/plain' } };

/** A site whose /robots.txt follows a timeline of replies, and whose other paths answer 404. */
function robotsTimeline(host: string, portfolio: string, story: string, tracked: readonly string[], timeline: Timeline<DemoReply>): DemoSite {
  return { host, portfolio, story, tracked, serve: (night, path) => (path === '/robots.txt' ? inForceOn(timeline, night) : null) };
}

// ---------------------------------------------------------------------------------------------
// 2023: publishers and AI crawlers, month by month.

const COURIER = `# courier.demo
User-agent: *
Disallow: /search
Disallow: /account/
Disallow: /api/
Allow: /api/oembed

User-agent: Googlebot-News
Disallow: /live/drafts/

Sitemap: https://courier.demo/sitemap-news.xml
`;

const GAZETTE = `User-agent: *
Disallow: /search
Disallow: /subscribers/
Disallow: /print/

Sitemap: https://gazette.demo/sitemap.xml
`;

const WEEKLY = `User-agent: *
Disallow: /admin/
Disallow: /preview/
`;

const WEEKLY_AI_GROUP = (agents: readonly string[]) => `${WEEKLY}
# AI crawlers: no use of our articles without a licence
${agents.map((a) => `User-agent: ${a}`).join('\n')}
Disallow: /
`;

const RECIPES = `User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
`;

const SHOP = `User-agent: *
Disallow: /cart
Disallow: /checkout/
Disallow: /*?sort=
Allow: /products/

Sitemap: https://shop.demo/sitemap.xml
`;

/** The shop's staging robots.txt, which reached production in April 2023 (the demo tests it with test-draft too). */
export const SHOP_STAGING = '# staging: keep crawlers out\nUser-agent: *\nDisallow: /\n';

const OUTAGE = `User-agent: *
Disallow: /checkout/
Disallow: /basket
`;

export const PUBLISHERS_2023: readonly DemoSite[] = [
  robotsTimeline('courier.demo', 'publishers', 'blocks GPTBot in August 2023, then CCBot and ChatGPT-User, then Google-Extended', ['/world/2023/06/heatwave-across-europe', '/search?q=election'], [
    ['2022-11-02T10:00:00Z', text(COURIER)],
    // GPTBot's documentation appeared on 7 August 2023.
    ['2023-08-08T09:30:00Z', text(`${COURIER}\nUser-agent: GPTBot\nDisallow: /\n`)],
    ['2023-08-24T15:00:00Z', text(`${COURIER}\nUser-agent: GPTBot\nUser-agent: ChatGPT-User\nUser-agent: CCBot\nDisallow: /\n`)],
    // Google-Extended was announced on 28 September 2023.
    ['2023-09-29T08:00:00Z', text(`${COURIER}\nUser-agent: GPTBot\nUser-agent: ChatGPT-User\nUser-agent: CCBot\nUser-agent: Google-Extended\nDisallow: /\n`)],
  ]),
  robotsTimeline('gazette.demo', 'publishers', 'a GPTBot group of its own opens to GPTBot what `*` keeps closed (August 2023)', ['/subscribers/weekend-edition', '/archive/1998/flood'], [
    ['2022-05-17T12:00:00Z', text(GAZETTE)],
    // Meant to keep GPTBot out of the archive only; but a crawler obeys only its own group (R-40),
    // so /search, /subscribers/ and /print/ are now open to it.
    ['2023-08-21T11:00:00Z', text(`${GAZETTE}\n# Keep OpenAI out of the archive\nUser-agent: GPTBot\nDisallow: /archive/\n`)],
  ]),
  robotsTimeline('weekly-review.demo', 'publishers', 'blocks seven AI crawlers in September 2023, adds Google-Extended, lets OpenAI back in after a licensing deal in December', ['/essays/2023/the-long-summer'], [
    ['2021-03-01T09:00:00Z', text(WEEKLY)],
    ['2023-09-05T16:00:00Z', text(WEEKLY_AI_GROUP(['GPTBot', 'ChatGPT-User', 'CCBot', 'anthropic-ai', 'Claude-Web', 'Omgilibot', 'FacebookBot']))],
    ['2023-10-03T10:00:00Z', text(WEEKLY_AI_GROUP(['GPTBot', 'ChatGPT-User', 'CCBot', 'anthropic-ai', 'Claude-Web', 'Omgilibot', 'FacebookBot', 'Google-Extended']))],
    ['2023-12-14T14:00:00Z', text(`${WEEKLY_AI_GROUP(['CCBot', 'anthropic-ai', 'Claude-Web', 'Omgilibot', 'FacebookBot', 'Google-Extended'])}\n# Licensed since December 2023: OpenAI (GPTBot, ChatGPT-User)\n`)],
  ]),
  robotsTimeline('recipes.demo', 'publishers', 'a food blog that blocks no AI crawler: a sitemap added, a comment edited', ['/recipes/plum-cake'], [
    ['2020-09-09T09:00:00Z', text(RECIPES)],
    ['2023-03-14T18:00:00Z', text(`${RECIPES}\nSitemap: https://recipes.demo/sitemap_index.xml\n`)],
    ['2023-06-20T07:00:00Z', text(`# Summer menu is live!\n${RECIPES}\nSitemap: https://recipes.demo/sitemap_index.xml\n`)],
  ]),
  robotsTimeline('shop.demo', 'retail', 'its staging robots.txt (Disallow: /) reaches production in April 2023 and is fixed in May', ['/products/blue-widget', '/checkout/step-1'], [
    ['2022-02-01T00:00:00Z', text(SHOP)],
    ['2023-04-27T17:45:00Z', text(SHOP_STAGING)],
    ['2023-05-03T08:10:00Z', text(SHOP)],
  ]),
  robotsTimeline('outage.demo', 'retail', 'fine through 2023; answers 503 every night from 29 July 2025: full disallow, then after 30 days its last good rules (D-3)', ['/products/red-kettle', '/checkout/pay'], [
    ['2022-06-01T00:00:00Z', text(OUTAGE)],
    ['2025-07-29T00:00:00Z', UNAVAILABLE],
  ]),
];

// ---------------------------------------------------------------------------------------------
// 2025: the fetch rules' cases, beside the recorded histories.

const MOVED = `User-agent: *
Disallow: /account/
Disallow: /internal/
`;

/** Before the CDN move: three hops, the first to another host (R-11: at least five are followed). */
const MOVED_CHAIN_FROM = '2025-07-01T00:00:00Z';
/** The CDN move adds three more: six hops, past the limit, so a crawler reads full allow (R-11). */
const MOVED_TO_CDN = '2025-08-25T09:00:00Z';

function servedOn<T>(night: Date, timeline: Timeline<T>): T | null {
  return inForceOn(timeline, night);
}

const MOVED_HOSTS: readonly DemoHost[] = [
  {
    host: 'www.moved.demo',
    serve: (night, path, url) => {
      if (path === '/robots.txt') return redirect(302, url('www.moved.demo', '/seo/robots.txt'));
      if (path === '/seo/robots.txt') return redirect(307, url('www.moved.demo', '/seo/robots-2025.txt'));
      if (path !== '/seo/robots-2025.txt') return null;
      return servedOn(night, [
        [MOVED_CHAIN_FROM, text(MOVED)],
        [MOVED_TO_CDN, redirect(301, url('cdn.moved.demo', '/assets/robots.txt'))],
      ]);
    },
  },
  {
    host: 'cdn.moved.demo',
    serve: (_night, path, url) => {
      if (path === '/assets/robots.txt') return redirect(302, url('cdn.moved.demo', '/assets/v2/robots.txt'));
      if (path === '/assets/v2/robots.txt') return redirect(302, url('cdn.moved.demo', '/assets/v3/robots.txt'));
      return path === '/assets/v3/robots.txt' ? text(MOVED) : null;
    },
  },
];

const SPA_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Dashboard</title>
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
</body>
</html>
`;

const WALLED = `User-agent: *
Disallow: /basket/
Disallow: /account/
`;

/**
 * A Cloudflare managed challenge, as Cloudflare documents it: `cf-mitigated: challenge` on the
 * answer, the "Just a moment..." page loading /cdn-cgi/challenge-platform/
 * (https://developers.cloudflare.com/cloudflare-challenges/challenge-types/challenge-pages/detect-response).
 */
const CHALLENGE: DemoReply = {
  status: 403,
  body: '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></body></html>',
  headers: { 'content-type': 'text/html; charset=UTF-8', 'cf-mitigated': 'challenge', server: 'cloudflare' },
};

const CDN_PAIR = `User-agent: *
Disallow: /checkout/
Allow: /new-arrivals/
`;

/** The copy a stale edge node kept from spring: it still hides the new-arrivals pages. */
const CDN_PAIR_STALE = `User-agent: *
Disallow: /checkout/
Disallow: /new-arrivals/
`;

/** Nights from 12 to 19 August 2025: the two edge nodes answer in turn, one night each. */
function cdnPairOn(night: Date): DemoReply {
  const day = night.toISOString().slice(0, 10);
  if (day < '2025-08-12' || day > '2025-08-19') return text(CDN_PAIR);
  return Number(day.slice(8, 10)) % 2 === 0 ? text(CDN_PAIR_STALE) : text(CDN_PAIR);
}

/**
 * Synthetic, unlike every other 2025 site: Content-Signal lines as Cloudflare's Content Signals
 * Policy writes them (contentsignals.org), a month before it was published (24 September 2025),
 * to show the usage preferences (issue 28) beside the recorded histories, which hold none.
 */
const SIGNALS = (aiTrain: 'yes' | 'no') => `# signals.demo: a synthetic site (robots-audit's demo)
User-agent: *
Content-Signal: search=yes, ai-input=yes, ai-train=${aiTrain}
Disallow: /account/
`;

export const EDGE_CASES_2025: readonly DemoSite[] = [
  robotsTimeline(
    'walled.demo',
    'edge-cases',
    "Cloudflare's bot challenge answers the auditor from 10 to 20 August 2025: challenged, its last rules stand, unverified",
    ['/basket/'],
    [
      ['2025-07-01T00:00:00Z', text(WALLED)],
      ['2025-08-10T00:00:00Z', CHALLENGE],
      ['2025-08-21T00:00:00Z', text(WALLED)],
    ],
  ),
  {
    host: 'cdn-pair.demo',
    portfolio: 'edge-cases',
    story: 'two edge nodes serve two versions in turn from 12 to 19 August 2025 (one hides /new-arrivals/ from Googlebot): flapping, then settled',
    tracked: ['/new-arrivals/'],
    serve: (night, path) => (path === '/robots.txt' ? cdnPairOn(night) : null),
  },
  {
    host: 'moved.demo',
    portfolio: 'edge-cases',
    story: 'robots.txt behind three redirects, the first to www.moved.demo; from 25 August six, past the limit (R-11)',
    tracked: ['/account/orders'],
    serve: (night, path, url) => (path === '/robots.txt' && servedOn(night, [[MOVED_CHAIN_FROM, true]]) ? redirect(301, url('www.moved.demo', '/robots.txt')) : null),
  },
  robotsTimeline('gone.demo', 'edge-cases', 'its robots.txt is lost in a relaunch on 6 August 2025: 404, so full allow (R-12)', ['/admin/login', '/drafts/next-week'], [
    ['2025-07-01T00:00:00Z', text('User-agent: *\nDisallow: /admin/\nDisallow: /drafts/\n')],
    ['2025-08-06T09:00:00Z', { status: 404, body: 'Not found', headers: { 'content-type': 'text/plain' } }],
  ]),
  robotsTimeline(
    'signals.demo',
    'edge-cases',
    'synthetic: a Content-Signal line allows AI training, then refuses it from 20 August 2025 (ai-train=yes -> no)',
    ['/articles/summer-reading'],
    [
      ['2025-07-01T00:00:00Z', text(SIGNALS('yes'))],
      ['2025-08-20T09:00:00Z', text(SIGNALS('no'))],
    ],
  ),
  robotsTimeline('spa.demo', 'edge-cases', 'a single-page app that answers every path with its HTML page, /robots.txt too', ['/app/settings'], [['2025-07-01T00:00:00Z', html(SPA_PAGE)]]),
];

/** Hosts the demo web answers for that are not audited themselves (redirect targets). */
export const DEMO_EXTRA_HOSTS: readonly DemoHost[] = MOVED_HOSTS;

// ---------------------------------------------------------------------------------------------
// The recorded histories, as sites.

export const RECORDED_PORTFOLIO = 'recorded-2025';

/** The demo's name for a recorded host: the real name under `.demo`, so nothing leaves the machine. */
export function recordedHostName(host: string): string {
  return `${host}.demo`;
}

/**
 * An HTML page served as robots.txt (the corpus holds several) goes out as text/html. The corpus
 * keeps no headers, so this is a guess that only changes what the snapshot records: the parser
 * reads the bytes whatever the content type says. No charset either: not every body is UTF-8.
 */
function looksLikeHtml(body: Buffer): boolean {
  const start = body.subarray(0, 512).toString('latin1').replace(/^\u00ef\u00bb\u00bf/, '').trimStart().toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head');
}

/** A recorded host: each night it serves the body in force then, and 404 before its first version. */
export function recordedSite(history: DemoHistory): DemoSite {
  return {
    host: recordedHostName(history.host),
    portfolio: RECORDED_PORTFOLIO,
    story: `${history.host} as ${history.source} collected it: ${history.versions.length} versions`,
    tracked: [],
    serve: (night, path) => {
      if (path !== '/robots.txt') return null;
      const body = bodyOnNight(history, night);
      if (!body) return null;
      return { status: 200, body, headers: { 'content-type': looksLikeHtml(body) ? 'text/html' : 'text/plain' } };
    },
  };
}
