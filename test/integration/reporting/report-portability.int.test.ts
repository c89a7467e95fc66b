/**
 * `robots-audit report portability` (issue 19, item 4) against nights replayed through the real
 * pipeline (loopback sites, Postgres, Redis): a publisher whose GPTBot block sits after an empty
 * line (python-urllib ends the group there), a shop that blocks every crawler with a wildcard
 * rule of `*` only on PDFs (not an AI-crawler block), a site every parser reads alike.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, replayNight } from '../../helpers/nightly.js';

const NIGHT = '2026-03-01T03:00:00.000Z';
const NEWS = 'User-agent: *\nDisallow: /search\n\nUser-agent: GPTBot\n\nDisallow: /\n';
const SHOP = 'User-agent: *\nDisallow: /*.pdf$\n';
const PLAIN = 'User-agent: CCBot\nDisallow: /\n';

let p: Pipeline;

beforeAll(async () => {
  p = await startPipeline();
  await addSites(p, ['news'], 'publishers');
  await addSites(p, ['shop', 'plain'], 'shops');
  await replayNight(p, NIGHT, { news: NEWS, shop: SHOP, plain: PLAIN });
}, 120_000);

afterAll(async () => {
  await p?.close();
});

describe('report portability', () => {
  it('lists the AI-crawler block python-urllib does not read, with every parser\'s verdict and why', async () => {
    const run = await p.cli(['report', 'portability', '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        origin: p.origin('news'),
        line: 6,
        rule: 'Disallow: /',
        agents: ['GPTBot'],
        path: '/',
        google: 'disallowed',
        pythonUrllib: 'allowed',
        scrapyProtego: 'disallowed',
        nodeRobotsParser: 'disallowed',
        reason: 'python-urllib ends a group at an empty line, so / stays allowed',
      },
    ]);
  });

  it('as CSV with the table\'s headings, and filtered by portfolio', async () => {
    const csv = await p.cli(['report', 'portability', '--format', 'csv']);
    const records = parseCsv(csv.stdout, { columns: true }) as Record<string, string>[];
    expect(records.map((r) => [r.SITE, r.AGENTS, r['PYTHON-URLLIB']])).toEqual([[p.origin('news'), 'GPTBot', 'allowed']]);
    expect(await p.cli(['report', 'portability', '--portfolio', 'shops'])).toMatchObject({ code: 0, stdout: 'no rows (portability)\n' });
  });
});
