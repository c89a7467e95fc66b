/**
 * Migration 0019 (portability findings kept per body, issue 26) on a database filled as the
 * release before it left it: every body carries over as it was, not analysed yet (`portability`
 * NULL, `portability_version` 0), and the analysis job, run as a worker runs it, then stores each
 * body's findings: the same as computing them from its bytes, which the site page and `report
 * portability` did on every read before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPortabilityAnalysis } from '../../../src/services/portability-analysis.service.js';
import { portabilityOf, PORTABILITY_VERSION } from '../../../src/robots/profiles/portability.js';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
let bodiesBefore: Record<string, unknown>[];
const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;
const BODIES = 'select * from bodies order by id';
const FILES = [
  'User-agent: *\nDisallow: /search?*\n',
  'User-agent: GPTBot\nDisallow: /*.pdf$\n\nUser-agent: *\nAllow: /\n',
  'User-agent: *\nDisallow: /private/\n',
];

beforeAll(async () => {
  old = await databaseBefore('0019_');
  db = old.db;
  for (const [i, file] of FILES.entries()) {
    await db.pool.query(`insert into bodies (id, sha256, content, size, rules, groups, indexed) values ($1, sha256($2::bytea), $2::bytea, $3, 1, 1, true)`, [i + 1, Buffer.from(file), Buffer.byteLength(file)]);
  }
  bodiesBefore = await q(BODIES);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0019: portability findings on the bodies', () => {
  it('every body carries over as it was, not analysed yet', async () => {
    expect(bodiesBefore).toHaveLength(FILES.length);
    expect(await q(BODIES)).toEqual(bodiesBefore.map((r) => ({ ...r, portability: null, portability_version: 0 })));
  });

  it('the analysis job takes them in the index order and stores what portabilityOf finds', async () => {
    expect(await q(`select indexdef from pg_indexes where indexname = 'bodies_portability_version_idx'`)).toEqual([
      { indexdef: 'CREATE INDEX bodies_portability_version_idx ON public.bodies USING btree (portability_version, id)' },
    ]);
    const analysis = createPortabilityAnalysis({ pool: db.pool });
    try {
      expect(await analysis.analysePending()).toEqual({ analysed: FILES.length, failed: 0, more: false });
      // Nothing is left: a second job finds nothing to do.
      expect(await analysis.analysePending()).toEqual({ analysed: 0, failed: 0, more: false });
    } finally {
      await analysis.close();
    }
    const rows = await q<{ id: number; portability: unknown; portability_version: number }>('select id, portability, portability_version from bodies order by id');
    expect(rows.map((r) => r.portability_version)).toEqual(FILES.map(() => PORTABILITY_VERSION));
    for (const [i, file] of FILES.entries()) {
      expect(rows[i]!.portability).toEqual(JSON.parse(JSON.stringify({ outcome: 'analysed', ...portabilityOf(Buffer.from(file)) })));
    }
    // The first file's finding, as the demo's grin.com has it: python-urllib reads `*` literally.
    expect((rows[0]!.portability as { findings: { rule: string; verdicts: Record<string, unknown> }[] }).findings[0]).toMatchObject({
      rule: 'Disallow: /search?*',
      verdicts: { google: false, 'python-urllib': true },
    });
  });
});
