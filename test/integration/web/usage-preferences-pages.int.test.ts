/**
 * The dashboard's reads of usage preferences (issue 28), on nights stored as the nightly run
 * stores them: the AI page's "told" per purpose and its `usage` filter (the contradiction
 * "refuses AI training but lets an AI-training crawler crawl" among them), the same filter in
 * `report ai-access` (the page's CSV), and the site page's panel with its changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepos } from '../../../src/db/index.js';
import { buildReport } from '../../../src/reports/index.js';
import { aiMatrix, USAGE_FILTERS } from '../../../src/reports/web-ai-matrix.js';
import type { AiMatrixQuery, UsageFilter } from '../../../src/reports/web-ai-matrix.js';
import { analyseSiteFileHere, findSite, sitePage } from '../../../src/reports/web-site.js';
import { storeSingleNight } from '../../../src/services/night-runner.js';
import { fetchResult } from '../../helpers/fetch-results.js';
import { runCli } from '../../helpers/cli.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const SITES = {
  /** AI training allowed, then refused on night 2 while GPTBot may crawl: the contradiction. */
  signals: 'https://signals.example',
  /** AI training refused to Bingbot alone; every AI-training crawler kept out. */
  strict: 'https://strict.example',
  /** AI training allowed. */
  open: 'https://open.example',
  /** No preference. */
  plain: 'https://plain.example',
} as const;
const BODIES: Record<keyof typeof SITES, [string, string]> = {
  signals: ['User-agent: *\nContent-Signal: search=yes, ai-train=yes\nDisallow: /private/\n', 'User-agent: *\nContent-Signal: search=yes, ai-train=no\nDisallow: /private/\n'],
  strict: ['User-agent: *\nDisallow: /\n\nUser-agent: Bingbot\nContent-Signal: ai-train=no\nAllow: /\n', ''],
  open: ['User-agent: *\nContent-Usage: train-ai=y\nDisallow: /cart\n', ''],
  plain: ['User-agent: *\nDisallow: /cart\n', ''],
};
const NIGHTS = [new Date('2026-11-01T03:00:00Z'), new Date('2026-11-02T03:00:00Z')];

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  for (const argv of [
    ['sites', 'add', ...Object.values(SITES)],
    ['track', SITES.signals, '/articles/a', '/private/x'],
  ]) {
    const run = await runCli([...argv, '--database-url', db.url]);
    expect(run.code, run.stderr).toBe(0);
  }
  const repos = createRepos(db.db);
  for (const [n, at] of NIGHTS.entries()) {
    const { run } = await repos.runs.createRun({ runKey: `nightly-${n}`, trigger: 'scheduled', runAt: at });
    for (const [name, origin] of Object.entries(SITES) as [keyof typeof SITES, string][]) {
      const body = BODIES[name][n] || BODIES[name][0];
      const site = (await repos.sites.findSiteByOrigin(origin))!;
      await storeSingleNight(db.pool, run.id, site.id, fetchResult({ origin, outcome: 'ok', body, startedAt: at }));
    }
  }
}, 60_000);

afterAll(async () => {
  await db?.close();
});

const query = (usage: UsageFilter | null, page = 1, pageSize = 50): AiMatrixQuery => ({ portfolioId: null, search: null, crawlers: [], category: null, blocks: null, usage, page, pageSize });

describe('the AI page\'s usage filter', () => {
  it.each([
    [null, ['open', 'plain', 'signals', 'strict']],
    ['refuses-training', ['signals', 'strict']],
    ['allows-training', ['open']],
    ['states-nothing', ['plain']],
    ['refuses-training-crawled', ['signals']],
  ] as [UsageFilter | null, (keyof typeof SITES)[]][])('%s: %j', async (usage, names) => {
    const matrix = await aiMatrix(db.pool, query(usage));
    expect(matrix.sites.map((s) => s.origin)).toEqual(names.map((n) => SITES[n]));
    expect(matrix.matching).toBe(names.length);
  });

  it('every filter is one of USAGE_FILTERS, tested above', () => {
    expect([...USAGE_FILTERS].sort()).toEqual(['allows-training', 'refuses-training', 'refuses-training-crawled', 'states-nothing']);
  });

  it('counts the whole set on a later page too, and narrows with blocks', async () => {
    const second = await aiMatrix(db.pool, query('refuses-training', 2, 1));
    expect([second.sites.map((s) => s.origin), second.matching]).toEqual([[SITES.strict], 2]);
    const both = await aiMatrix(db.pool, { ...query('refuses-training'), blocks: 'GPTBot' });
    expect(both.sites.map((s) => s.origin)).toEqual([SITES.strict]);
  });

  it('the same filter narrows report ai-access (the page\'s CSV)', async () => {
    const table = await buildReport(db.pool, 'ai-access', { portfolioId: null, since: null, usage: 'refuses-training-crawled' });
    expect(table.rows.map((r) => r.origin)).toEqual([SITES.signals]);
    const all = await buildReport(db.pool, 'ai-access', { portfolioId: null, since: null, usage: null });
    expect(all.rows).toHaveLength(4);
  });
});

describe('what each purpose is told, per site', () => {
  it('preferences with their counts, the first pair\'s deciding line and since when; the AI-training crawlers let in', async () => {
    const matrix = await aiMatrix(db.pool, query(null));
    const signals = matrix.sites.find((s) => s.origin === SITES.signals)!;
    const training = signals.usage.find((u) => u.purpose === 'ai-train')!;
    // Ten default agents at three URLs: /private/x is not crawlable for any of them.
    expect(training.told.map((t) => [t.preference, t.count])).toEqual([
      ['refused', 20],
      ['not-crawlable', 10],
    ]);
    expect(training.told[0]!.rule).toEqual({ line: 2, mechanism: 'content-signal', label: 'ai-train', value: 'search=yes, ai-train=no', since: NIGHTS[1]!.toISOString() });
    expect(training.told[0]!.example).toEqual({ url: `${SITES.signals}/`, token: 'Applebot-Extended' });
    expect(signals.usage.find((u) => u.purpose === 'search')!.told[0]!.rule?.since).toBe(NIGHTS[0]!.toISOString());
    expect(signals.usage.find((u) => u.purpose === 'ai-input')!.told.map((t) => t.preference)).toEqual(['unknown', 'not-crawlable']);
    expect(signals.trainingCrawlersIn).toContain('GPTBot');
    const strict = matrix.sites.find((s) => s.origin === SITES.strict)!;
    expect(strict.trainingCrawlersIn).toEqual([]);
    expect(strict.usage.find((u) => u.purpose === 'ai-train')!.told.map((t) => [t.preference, t.count])).toEqual([
      ['refused', 1],
      ['not-crawlable', 9],
    ]);
  });
});

describe('the site page\'s "AI usage preferences" panel', () => {
  it('per purpose, the pairs told alike by the same line as one row; the night\'s changes with their lines', async () => {
    const id = (await findSite(db.pool, SITES.signals))!;
    const page = (await sitePage(db.pool, id, null, analyseSiteFileHere))!;
    const training = page.usage.purposes.find((p) => p.purpose === 'ai-train')!;
    expect(training.stated.map((r) => [r.url, r.preference, r.rule.line, r.agents.length])).toEqual([
      [`${SITES.signals}/`, 'refused', 2, 10],
      [`${SITES.signals}/articles/a`, 'refused', 2, 10],
    ]);
    expect([training.unknown, training.notCrawlable]).toEqual([0, 10]);
    expect(page.usage.stated).toBe(true);
    expect(page.usage.changes.map((c) => [c.at.toISOString(), c.url, c.purpose, c.from, c.to, c.ruleBefore?.value, c.ruleAfter?.value, c.agents.length])).toEqual([
      [NIGHTS[1]!.toISOString(), `${SITES.signals}/`, 'ai-train', 'allowed', 'refused', 'search=yes, ai-train=yes', 'search=yes, ai-train=no', 10],
      [NIGHTS[1]!.toISOString(), `${SITES.signals}/articles/a`, 'ai-train', 'allowed', 'refused', 'search=yes, ai-train=yes', 'search=yes, ai-train=no', 10],
    ]);
    expect(page.alerts.map((a) => [a.kind, a.severity])).toContainEqual(['ai_training_refused', 'info']);
  });

  it('a file that states nothing: no row, no change', async () => {
    const page = (await sitePage(db.pool, (await findSite(db.pool, SITES.plain))!, null, analyseSiteFileHere))!;
    expect(page.usage.stated).toBe(false);
    expect(page.usage.changes).toEqual([]);
  });
});
