/**
 * The dashboard's CSV downloads over HTTP on 127.0.0.1: streamed (no length known in advance,
 * the first rows arrive while the rest is still being read), a download that is not read holds
 * its slot and the next one beyond ROBOTS_AUDIT_DASHBOARD_DOWNLOADS is told to come back (503,
 * Retry-After), a client that goes away frees its slot and its connection (the cursor closed),
 * and the pages answer meanwhile.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/client.js';
import type { DbHandle } from '../../../src/db/client.js';
import { createDashboard } from '../../../src/web/server.js';
import { eventually } from '../../helpers/nightly.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const SITES = 6_000;
let db: TestDatabase;
let handle: DbHandle;
let base: string;
let close: () => Promise<unknown>;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(`
    insert into sites (id, origin) select i, 'https://www.site-' || i || '.example' from generate_series(1, ${SITES}) i;
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total) values (1, 'nightly-2026-03-01', 'scheduled', '2026-03-01T03:00Z', 'completed', ${SITES});
    insert into snapshots (run_at, fetched_at, site_id, run_id, duration_ms, outcome, policy, status, attempts, policy_reason)
      select '2026-03-01T03:00Z', '2026-03-01T03:00Z', i, 1, 100, 'ok', 'rules', 200, 1, 'R-10' from generate_series(1, ${SITES}) i;
    insert into site_state (site_id, run_id, run_at, outcome, status, policy, policy_reason, failed_nights)
      select i, 1, '2026-03-01T03:00Z', 'ok', 200, 'rules', 'R-10', 0 from generate_series(1, ${SITES}) i;`);
  handle = createDb(db.url, { max: 6, readOnly: true, jit: false });
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: db.name, downloads: 1 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  close = () => app.close();
}, 60_000);

afterAll(async () => {
  await close?.();
  await handle?.close();
  await db?.close();
});

describe('CSV downloads are streamed, a few at a time', () => {
  it('the whole report, in chunks, without a length known in advance', async () => {
    const response = await fetch(`${base}/csv/status`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    let chunks = 0;
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      chunks += 1;
      text += decoder.decode(chunk, { stream: true });
    }
    expect(chunks).toBeGreaterThan(1);
    const rows = parseCsv(text, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(SITES);
    expect(rows[0]!.SITE).toBe('https://www.site-1.example');
  });

  it('a download not being read holds its slot: the next gets 503 with Retry-After, the pages still answer; gone, the slot and its connection are free', async () => {
    // A client of node:http, which closes its connection when it gives up (as a browser cancelling a download does).
    const request = http.get(`${base}/csv/status`);
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    expect(response.statusCode).toBe(200);
    await new Promise((resolve) => response.once('data', resolve));
    response.pause(); // the heading and a first batch, then nothing more is read
    const turnedAway = await fetch(`${base}/csv/lint`);
    expect(turnedAway.status).toBe(503);
    expect(turnedAway.headers.get('retry-after')).toBe('10');
    expect(await turnedAway.text()).toContain('1 download is running');
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    await page.arrayBuffer();
    // The client goes away: the cursor is closed, the connection back in the pool, the slot free.
    request.destroy();
    await eventually(async () => handle.pool.idleCount === handle.pool.totalCount, "the download's connection to come back");
    await eventually(async () => {
      const next = await fetch(`${base}/csv/failing`);
      await next.arrayBuffer();
      return next.status === 200;
    }, 'the slot to be free');
  });
});
