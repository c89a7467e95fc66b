/**
 * The demo's sites and what each serves night after night: a small portfolio in which the
 * things the product exists to catch happen (an AI crawler blocked, an accidental
 * `Disallow: /`, a 5xx streak, a robots.txt appearing, a comment-only edit). Written for the
 * demo; no third-party content.
 */
export interface DemoReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface DemoSite {
  /** Host name under `.demo`, pinned to the loopback demo server. */
  host: string;
  portfolio: string;
  /** Paths whose verdicts are tracked (on top of `/`). */
  tracked: string[];
  /** What /robots.txt answers on night 1, 2, 3 (index 0, 1, 2). */
  nights: DemoReply[];
}

const NEWS_BASE = `# robots.txt for news.demo
User-agent: *
Disallow: /search
Disallow: /account/
Disallow: /*?share=
Allow: /account/help

User-agent: Googlebot-News
Disallow: /opinion/drafts/

Sitemap: https://news.demo/sitemap.xml
`;

const SHOP_BASE = `User-agent: *
Disallow: /cart
Disallow: /checkout/
Disallow: /*?sort=
Allow: /products/

Sitemap: https://shop.demo/sitemap.xml
`;

const BLOG = `User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
`;

const text = (body: string): DemoReply => ({ status: 200, body, headers: { 'content-type': 'text/plain; charset=utf-8' } });

export const DEMO_SITES: readonly DemoSite[] = [
  {
    host: 'news.demo',
    portfolio: 'publishers',
    tracked: ['/world/2026/election-results', '/search?q=weather'],
    nights: [
      text(NEWS_BASE),
      // Night 2: the publisher opts out of AI training crawlers.
      text(`${NEWS_BASE}\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n`),
      // Night 3: only a comment changes.
      text(`${NEWS_BASE.replace('# robots.txt for news.demo', '# robots.txt for news.demo (reviewed 2026-03-03)')}\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n`),
    ],
  },
  {
    host: 'shop.demo',
    portfolio: 'retail',
    tracked: ['/products/blue-widget', '/checkout/step-1'],
    nights: [
      text(SHOP_BASE),
      // Night 2: a staging file reaches production.
      text('# staging: keep crawlers out\nUser-agent: *\nDisallow: /\n'),
      // Night 3: fixed.
      text(SHOP_BASE),
    ],
  },
  {
    host: 'blog.demo',
    portfolio: 'publishers',
    tracked: ['/2026/02/launch-notes'],
    nights: [text(BLOG), { status: 503, headers: { 'retry-after': '1' } }, { status: 503, headers: { 'retry-after': '1' } }],
  },
  {
    host: 'docs.demo',
    portfolio: 'retail',
    tracked: ['/internal/runbook'],
    nights: [{ status: 404, body: 'Not found' }, text('User-agent: *\nDisallow: /internal/\n'), text('User-agent: *\nDisallow: /internal/\n')],
  },
];

/** The demo's nights: three consecutive nights at 03:00 UTC. */
export const DEMO_NIGHTS = ['2026-03-01T03:00:00Z', '2026-03-02T03:00:00Z', '2026-03-03T03:00:00Z'] as const;
