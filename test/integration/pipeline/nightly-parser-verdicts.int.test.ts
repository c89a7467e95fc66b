/**
 * A night where a crawler's own parser reads the file another way than Google's: Scrapy (Protego
 * 0.7.0, `scrapy-protego-0.7`, known) takes the group `User-agent: scrap` as its own, since Protego picks the
 * group whose name is the longest substring of the crawler's token, while Google's parser needs the
 * whole token and finds no group for Scrapy (R-43: allowed). The verdict span stores both,
 * `explain` shows both, and an unchanged night stores nothing new (src/crawlers/parser-verdicts.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, replayNight, rows, track } from '../../helpers/nightly.js';

const NIGHT_1 = '2026-02-01T03:00:00.000Z';
const NIGHT_2 = '2026-02-02T03:00:00.000Z';
const BODY = 'User-agent: scrap\nDisallow: /\n\nUser-agent: GPTBot\nDisallow: /private/\n';

let p: Pipeline;
let siteId: number;
let night1: Night;
let night2: Night;

interface LatestRow extends Record<string, unknown> {
  url: string;
  token: string;
  allowed: boolean;
  parser_profile: string | null;
  parser_allowed: boolean | null;
  since_run_id: number;
}

const latest = () =>
  rows<LatestRow>(p, 'select url, token, allowed, parser_profile, parser_allowed, since_run_id from verdict_latest where site_id = $1 order by url, token', [siteId]);

beforeAll(async () => {
  p = await startPipeline();
  ({ shop: siteId } = await addSites(p, ['shop']));
  const added = await p.cli(['agents', 'add', 'Scrapy']);
  expect(added.code, added.stderr).toBe(0);
  await track(p, 'shop', ['/private/x']);
  night1 = await replayNight(p, NIGHT_1, { shop: BODY });
}, 120_000);

afterAll(async () => {
  await p?.close();
});

describe("a verdict under the crawler's own parser, where it differs", () => {
  it("is stored with Google's verdict on Scrapy's spans, and on no other crawler's", async () => {
    const now = await latest();
    const scrapy = now.filter((r) => r.token === 'Scrapy');
    expect(scrapy.map((r) => [r.url, r.allowed, r.parser_profile, r.parser_allowed])).toEqual([
      [`${p.origin('shop')}/`, true, 'scrapy-protego-0.7', false],
      [`${p.origin('shop')}/private/x`, true, 'scrapy-protego-0.7', false],
    ]);
    expect(now.filter((r) => r.token !== 'Scrapy').every((r) => r.parser_profile === null && r.parser_allowed === null)).toBe(true);
    // GPTBot's own group: Google's verdict, nothing else to say (its parser is unknown).
    expect(now.find((r) => r.token === 'GPTBot' && r.url.endsWith('/private/x'))?.allowed).toBe(false);
  });

  it('explain says both, with the profile and that it is known (text and JSON)', async () => {
    const text = await p.cli(['explain', 'shop.test', '/private/x', '--ua', 'Scrapy']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('/private/x for Scrapy: allowed');
    expect(text.stdout).toContain("under its parser: allowed by Google's parser; disallowed under scrapy-protego-0.7 (Protego 0.7.0, known)");
    const json = await p.cli(['explain', 'shop.test', '/private/x', '--ua', 'Scrapy', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      allowed: true,
      parser: { profile: 'scrapy-protego-0.7', basis: 'known' },
      parserVerdict: { profile: 'scrapy-protego-0.7', basis: 'known', allowed: false, line: null, source: expect.stringContaining('docs.scrapy.org') },
    });
    const gptbot = await p.cli(['explain', 'shop.test', '/private/x', '--ua', 'GPTBot', '--json']);
    expect(JSON.parse(gptbot.stdout)).toMatchObject({ allowed: false, parserVerdict: null });
  });

  it('report ai-access has the column, empty here: Scrapy is not an AI crawler, and no AI crawler of the night reads the file another way', async () => {
    const report = await p.cli(['report', 'ai-access', '--format', 'json']);
    expect(report.code, report.stderr).toBe(0);
    const rows = JSON.parse(report.stdout) as Record<string, unknown>[];
    expect(rows.find((r) => r.origin === p.origin('shop'))).toMatchObject({ blocked: null, parserVerdicts: [] });
  });

  it('an unchanged night opens no span: the parser verdicts still hold from the first night', async () => {
    night2 = await replayNight(p, NIGHT_2, { shop: BODY });
    const [opened] = await rows<{ n: string }>(p, 'select count(*) as n from verdicts where from_run_id = $1', [night2.runId]);
    expect(Number(opened!.n)).toBe(0);
    const scrapy = (await latest()).filter((r) => r.token === 'Scrapy');
    expect(scrapy.map((r) => [r.parser_allowed, r.since_run_id])).toEqual([
      [false, night1.runId],
      [false, night1.runId],
    ]);
  });
});
