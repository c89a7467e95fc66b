/**
 * check, explain and the nightly verdicts agree, and answer as each crawler does by its documented
 * crawler rules (src/crawlers/crawler-rules.json, src/crawlers/followed-group.ts): a loopback web, one
 * `audit --wait --at` night, then `explain` and `check` on the same bodies, URL by URL and agent
 * by agent, against the verdicts the night stored.
 *
 *   spec    R-42's example: groups googlebot-news, *, googlebot
 *   adsbot  User-agent: * / Disallow: /      Google's special-case crawlers ignore *
 *   apple   a Googlebot group and a * group, no Applebot group: Applebot follows Googlebot
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from '../../../src/web/server.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, replayNight, rows } from '../../helpers/nightly.js';

const NIGHT = '2026-05-01T03:00:00.000Z';
const BODIES = {
  spec: 'User-agent: googlebot-news\nDisallow: /news-only\n\nUser-agent: *\nDisallow: /star-only\n\nUser-agent: googlebot\nDisallow: /googlebot-only\n',
  adsbot: 'User-agent: *\nDisallow: /\n',
  apple: 'User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n',
};
type SiteName = keyof typeof BODIES;
const TRACKED: Record<SiteName, { paths: string[]; agents: string[] }> = {
  spec: { paths: ['/news-only', '/star-only', '/googlebot-only'], agents: ['Googlebot-Image', 'Googlebot-News', 'Otherbot'] },
  adsbot: { paths: ['/page'], agents: ['AdsBot-Google', 'AdsBot-Google-Mobile', 'Mediapartners-Google', 'Otherbot'] },
  apple: { paths: ['/private/x', '/public'], agents: ['Applebot', 'Otherbot'] },
};

/** The documented answers: [site, path, agent, allowed, the rule that chose the group]. */
const EXPECTED: [SiteName, string, string, boolean, string][] = [
  ['spec', '/googlebot-only', 'Googlebot-Image', false, 'further-token'],
  ['spec', '/star-only', 'Googlebot-Image', true, 'further-token'],
  ['spec', '/news-only', 'Googlebot-News', false, 'own'],
  ['spec', '/star-only', 'Googlebot-News', true, 'own'],
  ['spec', '/star-only', 'Otherbot', false, 'star'],
  ['spec', '/googlebot-only', 'Otherbot', true, 'star'],
  ['adsbot', '/page', 'AdsBot-Google', true, 'ignores-star'],
  ['adsbot', '/page', 'AdsBot-Google-Mobile', true, 'ignores-star'],
  ['adsbot', '/page', 'Mediapartners-Google', true, 'ignores-star'],
  ['adsbot', '/page', 'Otherbot', false, 'star'],
  ['apple', '/private/x', 'Applebot', false, 'further-token'],
  ['apple', '/public', 'Applebot', true, 'further-token'],
  ['apple', '/public', 'Otherbot', false, 'star'],
];

interface Answer {
  allowed: boolean;
  rule: { line: number } | null;
  followed: { rule: string };
}

let p: Pipeline;

beforeAll(async () => {
  p = await startPipeline();
  const names = Object.keys(BODIES) as SiteName[];
  await addSites(p, names);
  for (const name of names) {
    const { paths, agents } = TRACKED[name];
    const tracked = await p.cli(['track', p.origin(name), ...paths, ...agents.flatMap((a) => ['--ua', a])]);
    expect(tracked.code, tracked.stderr).toBe(0);
  }
  await replayNight(p, NIGHT, BODIES);
}, 60_000);

afterAll(async () => {
  await dashboard?.close();
  await p?.close();
});

let dashboard: Awaited<ReturnType<typeof createDashboard>> | undefined;

async function stored(name: SiteName, path: string, agent: string): Promise<{ allowed: boolean; rule_line: number | null }> {
  const found = await rows<{ allowed: boolean; rule_line: number | null }>(p, 'select allowed, rule_line from verdict_latest where origin = $1 and url = $2 and lower(token) = lower($3)', [
    p.origin(name),
    `${p.origin(name)}${path}`,
    agent,
  ]);
  expect(found, `${name} ${path} ${agent}`).toHaveLength(1);
  return found[0]!;
}

async function explained(name: SiteName, path: string, agent: string): Promise<Answer> {
  const run = await p.cli(['explain', p.origin(name), path, '--ua', agent, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Answer;
}

async function checked(name: SiteName, path: string, agent: string): Promise<Answer> {
  const run = await p.cli(['check', '--robots', '-', '--ua', agent, '--json', `${p.origin(name)}${path}`], BODIES[name]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Answer;
}

describe('check, explain and the nightly verdicts give the documented answers, and agree', () => {
  it.each(EXPECTED)('%s %s for %s: allowed %s (%s)', async (name, path, agent, allowed, rule) => {
    const night = await stored(name, path, agent);
    const explain = await explained(name, path, agent);
    const check = await checked(name, path, agent);
    expect(night.allowed).toBe(allowed);
    expect({ allowed: explain.allowed, line: explain.rule?.line ?? null, rule: explain.followed.rule }).toEqual({ allowed, line: night.rule_line, rule });
    expect({ allowed: check.allowed, line: check.rule?.line ?? null, rule: check.followed.rule }).toEqual({ allowed, line: night.rule_line, rule });
  });

  it('every stored verdict of these sites, for every agent (the defaults too), is what explain and check answer', async () => {
    const all = await rows<{ origin: string; url: string; token: string; allowed: boolean; rule_line: number | null }>(
      p,
      'select origin, url, token, allowed, rule_line from verdict_latest where origin = any($1) order by origin, url, token',
      [Object.keys(BODIES).map((n) => p.origin(n))],
    );
    expect(all.length).toBeGreaterThan(EXPECTED.length);
    for (const v of all) {
      const name = (Object.keys(BODIES) as SiteName[]).find((n) => p.origin(n) === v.origin)!;
      const path = v.url.slice(v.origin.length);
      const explain = await explained(name, path, v.token);
      const check = await checked(name, path, v.token);
      const want = [v.allowed, v.rule_line];
      expect([explain.allowed, explain.rule?.line ?? null], `explain ${v.url} ${v.token}`).toEqual(want);
      expect([check.allowed, check.rule?.line ?? null], `check ${v.url} ${v.token}`).toEqual(want);
    }
  });

  it('explain names the rule that applied, with its source', async () => {
    const ads = await p.cli(['explain', p.origin('adsbot'), '/page', '--ua', 'AdsBot-Google']);
    expect(ads.stdout).toContain('AdsBot-Google ignores the * group (https://developers.google.com/crawling/docs/crawlers-fetchers/google-special-case-crawlers)');
    const apple = await p.cli(['explain', p.origin('apple'), '/private/x', '--ua', 'Applebot']);
    expect(apple.stdout).toContain('Applebot follows the Googlebot group when none names Applebot (https://support.apple.com/en-us/119829)');
  });
});

async function dashboardPage(path: string): Promise<string> {
  if (!dashboard) {
    dashboard = await createDashboard({ pool: p.db.pool, token: null, databaseName: 'test' });
    await dashboard.listen({ host: '127.0.0.1', port: 0 });
  }
  const port = (dashboard.server.address() as AddressInfo).port;
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  expect(res.status).toBe(200);
  return res.text();
}

describe("the dashboard's site page names the crawler rule behind each agent's verdicts, and its parser known apart from assumed", () => {
  const sitePageHtml = (name: SiteName) => dashboardPage(`/site?origin=${encodeURIComponent(p.origin(name))}`);
  const verdicts = (html: string) => html.slice(html.indexOf('<section id="verdicts">'), html.indexOf('</section>', html.indexOf('<section id="verdicts">')));

  it('AdsBot-Google: ignores the * group, with the source; Google parser, known', async () => {
    const html = verdicts(await sitePageHtml('adsbot'));
    expect(html).toContain('<li>AdsBot-Google ignores the * group (https://developers.google.com/crawling/docs/crawlers-fetchers/google-special-case-crawlers)</li>');
    expect(html).toMatch(/AdsBot-Google<br><span class="parser muted" title="[^"]+">google parser, known<\/span>/);
    expect(html).toMatch(/CCBot<br><span class="parser muted" title="[^"]+">crawler-commons parser, assumed<\/span>/);
    expect(html).toMatch(/GPTBot<br><span class="parser muted" title="no operator documents its parser">parser unknown<\/span>/);
    expect(html).toContain('ChatGPT-User: its operator says robots.txt rules may not apply to the fetches it makes (https://platform.openai.com/docs/bots)');
  });

  it('"Check a URL" answers as explain does, naming the crawler rule and the parser', async () => {
    const html = await dashboardPage(`/site?origin=${encodeURIComponent(p.origin('adsbot'))}&url=%2Fpage&ua=AdsBot-Google`);
    const answer = html.slice(html.indexOf('<div class="answer'), html.indexOf('</div>', html.indexOf('<div class="answer')));
    expect(answer).toContain('class="answer allow"');
    expect(answer).toContain('<dt>Crawler rule</dt><dd>AdsBot-Google ignores the * group (https://developers.google.com/crawling/docs/crawlers-fetchers/google-special-case-crawlers)</dd>');
    expect(answer).toMatch(/<dt>Parser<\/dt><dd>google \(known, https:\/\/developers.google.com\/search\/blog\/2019\/07\/repp-oss\)/);
  });

  it('Applebot: follows the Googlebot group, with the source', async () => {
    expect(verdicts(await sitePageHtml('apple'))).toContain('<li>Applebot follows the Googlebot group when none names Applebot (https://support.apple.com/en-us/119829)</li>');
  });
});

describe("the dashboard's AI access page shows each crawler's parser known apart from assumed, and its documented rules", () => {
  it('CCBot assumed, GPTBot unknown, ChatGPT-User: robots.txt may not apply, GoogleOther-Image: the GoogleOther group', async () => {
    const html = await dashboardPage('/ai?crawler=CCBot&crawler=GPTBot&crawler=ChatGPT-User&crawler=GoogleOther-Image');
    expect(html).toMatch(/CCBot<br><span class="parser muted" title="https:\/\/commoncrawl.org\/faq">crawler-commons parser, assumed<\/span>/);
    expect(html).toMatch(/GPTBot<br><span class="parser muted" title="no operator documents its parser">parser unknown<\/span>/);
    expect(html).toContain('<li>ChatGPT-User: its operator says robots.txt rules may not apply to the fetches it makes (https://platform.openai.com/docs/bots)</li>');
    expect(html).toContain('<li>GoogleOther-Image follows the GoogleOther group when none names GoogleOther-Image (https://developers.google.com/crawling/docs/crawlers-fetchers/google-common-crawlers)</li>');
  });
});
