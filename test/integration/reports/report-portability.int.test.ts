/**
 * `robots-audit report portability` (issue 19, item 4) against nights replayed through the real
 * pipeline (loopback sites, Postgres, Redis): a publisher whose GPTBot block sits after an empty
 * line (python-urllib ends the group there), a shop that blocks every crawler with a wildcard
 * rule of `*` only on PDFs (not an AI-crawler block), a site every parser reads alike. The report
 * reads the findings the analysis job stored after the run (issue 26): a site whose body is not
 * analysed yet is left out and counted on stderr, never analysed by the report.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, replayNight, settleAnalysis } from '../../helpers/nightly.js';
import { PORTABILITY_VERSION } from '../../../src/robots/profiles/portability.js';

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
  await settleAnalysis(p);
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
        // CPython's RFC 9309 rewrite no longer ends a group at an empty line.
        pythonUrllibRfc9309: 'disallowed',
        scrapyProtego: 'disallowed',
        scrapyProtego07: 'disallowed',
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

describe('report portability reads what the analysis job stored', () => {
  it('a site whose body is not analysed yet is left out and counted on stderr; the report does not analyse it', async () => {
    const news = `(select n.body_id from site_state x join snapshots n on n.site_id = x.site_id and n.run_at = x.run_at and n.run_id = x.run_id
                    join sites s on s.id = x.site_id where s.origin = $1)`;
    const stored = await p.db.pool.query<{ portability: unknown }>(`select portability from bodies where id = ${news}`, [p.origin('news')]);
    // As a body stored before migration 0019 is, or one whose job has not run yet.
    await p.db.pool.query(`update bodies set portability = null, portability_version = 0 where id = ${news}`, [p.origin('news')]);
    try {
      const run = await p.cli(['report', 'portability', '--format', 'json']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([]);
      expect(run.stderr).toBe("robots-audit: report portability: 1 site whose robots.txt is not analysed yet is left out (analysed after the night's run)\n");
      const [after] = (await p.db.pool.query<{ portability_version: number }>(`select portability_version from bodies where id = ${news}`, [p.origin('news')])).rows;
      expect(after!.portability_version).toBe(0);
    } finally {
      await p.db.pool.query(`update bodies set portability = $2, portability_version = $3 where id = ${news}`, [p.origin('news'), stored.rows[0]!.portability, PORTABILITY_VERSION]);
    }
  });

  it('a site whose body could not be analysed is left out with the reason', async () => {
    await p.db.pool.query(
      `update bodies b set portability = '{"outcome": "failed", "reason": "the analysis took longer than 20 s"}', portability_version = $2
        where b.id = (select n.body_id from site_state x join snapshots n on n.site_id = x.site_id and n.run_at = x.run_at and n.run_id = x.run_id
                       join sites s on s.id = x.site_id where s.origin = $1)`,
      [p.origin('plain'), PORTABILITY_VERSION],
    );
    const run = await p.cli(['report', 'portability', '--format', 'csv']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('robots-audit: report portability: 1 site whose robots.txt could not be analysed is left out (the analysis took longer than 20 s)\n');
    expect((parseCsv(run.stdout, { columns: true }) as Record<string, string>[]).map((r) => r.SITE)).toEqual([p.origin('news')]);
  });
});

