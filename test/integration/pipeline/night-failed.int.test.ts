/**
 * Issue 17, item 4: a site whose night cannot be stored, every time (Postgres refuses its row),
 * still gets a night: outcome `night_failed`, error code NIGHT_FAILED, the reason kept. It is
 * alerted (critical), listed by `report failing`, and `audit --wait` names it and exits 1; the
 * other sites of its batch are stored, and the run ends.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, rows } from '../../helpers/nightly.js';

const BODY = 'User-agent: *\nDisallow: /private/\n';
let p: Pipeline;
let ids: Record<string, number>;

beforeAll(async () => {
  p = await startPipeline({ env: { ROBOTS_AUDIT_JOB_BACKOFF_MS: '10' } });
  ids = await addSites(p, ['refused', 'fine0', 'fine1']);
  for (const name of ['refused', 'fine0', 'fine1']) p.web.set(`${name}.test`, { status: 200, body: BODY });
  // Postgres refuses the ok night of one site, as a constraint would, on every try.
  await p.rt.db.db.execute(
    sql.raw(`create function refuse_night() returns trigger language plpgsql as $$
      begin if new.site_id = ${ids.refused} and new.outcome = 'ok' then raise exception 'refused for the test' using errcode = '22003'; end if; return new; end $$;
      create trigger refuse_night before insert on snapshots for each row execute function refuse_night();`),
  );
}, 60_000);

afterAll(async () => {
  await p?.close();
});

describe('a night that cannot be stored', () => {
  it('is recorded as night_failed, alerted, listed as failing; audit --wait names it and exits 1', async () => {
    const run = await p.cli(['audit', '--wait', '--at', '2026-11-01T03:00:00.000Z']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/failed: http:\/\/refused\.test:\d+: the night could not be stored: .*refused for the test/);
    const nights = await rows<{ site_id: number; outcome: string; error_code: string | null }>(
      p,
      "select site_id, outcome::text, error_code from snapshots where run_id = (select id from audit_runs where run_key like 'at-%') order by site_id",
    );
    expect(nights).toEqual([
      { site_id: ids.refused, outcome: 'night_failed', error_code: 'NIGHT_FAILED' },
      { site_id: ids.fine0, outcome: 'ok', error_code: null },
      { site_id: ids.fine1, outcome: 'ok', error_code: null },
    ]);
    const [status] = await rows<{ status: string }>(p, "select status::text from audit_runs where run_key like 'at-%'");
    expect(status).toEqual({ status: 'completed' });
    const alerts = await rows<{ kind: string; severity: string }>(p, 'select kind, severity::text from alerts where site_id = $1', [ids.refused]);
    expect(alerts).toEqual([{ kind: 'night_failed', severity: 'critical' }]);
    const failing = await p.cli(['report', 'failing', '--format', 'csv']);
    expect(failing.stdout).toMatch(/refused\.test.*night_failed/);
    expect(failing.stdout).not.toMatch(/fine/);
  }, 120_000);
});
