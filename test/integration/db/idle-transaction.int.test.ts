/**
 * A pipeline process frozen or cut off in the middle of a transaction must not hold its locks
 * (the run's counter row, which every worker's night transaction updates) for longer than
 * ROBOTS_AUDIT_DB_IDLE_TRANSACTION_MS: Postgres ends its session (issue 30; the cluster tests
 * freeze workers for real). Here a transaction of the runtime's own pool is left idle holding the
 * run's row, and another session's update of that row goes through once the timeout has passed.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

const TIMEOUT_MS = 400;
let p: Pipeline;

beforeAll(async () => {
  p = await startPipeline({ workers: false, env: { ROBOTS_AUDIT_DB_IDLE_TRANSACTION_MS: String(TIMEOUT_MS) } });
});

afterAll(async () => {
  await p?.close();
});

describe('a session idle in a transaction is ended by Postgres', () => {
  it('the setting reaches the sessions of the pipeline pool', async () => {
    const { rows } = await p.rt.db.pool.query<{ t: string }>("select current_setting('idle_in_transaction_session_timeout') as t");
    expect(rows[0]!.t).toBe(`${TIMEOUT_MS}ms`);
  });

  it('the locks of a transaction left idle go after the timeout, and its next statement fails', async () => {
    const { rows } = await p.db.pool.query<{ id: number }>("insert into audit_runs (run_key, run_at, trigger) values ('idle-test', now(), 'manual') returning id");
    const runId = rows[0]!.id;
    const frozen = await p.rt.db.pool.connect();
    await frozen.query('begin');
    await frozen.query('update audit_runs set sites_total = 1 where id = $1', [runId]);
    // Another worker's night transaction updating the same row waits, then goes through.
    const other = new pg.Client({ connectionString: p.db.url });
    await other.connect();
    const started = Date.now();
    await other.query('update audit_runs set sites_total = 2 where id = $1', [runId]);
    const waited = Date.now() - started;
    await other.end();
    expect(waited).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(waited).toBeLessThan(TIMEOUT_MS + 5_000);
    await expect(frozen.query('select 1')).rejects.toThrow();
    frozen.release(true);
    const after = await p.db.pool.query<{ sites_total: number }>('select sites_total from audit_runs where id = $1', [runId]);
    expect(after.rows[0]!.sites_total).toBe(2);
  });
});
