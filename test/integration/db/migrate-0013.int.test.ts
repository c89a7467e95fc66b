/**
 * Migration 0013 (the `email` channel kind) on a database filled as the release before it left
 * it: webhook and Slack channels with their deliveries carry over as they were, and a `mailto:`
 * channel can be added next to them, its deliveries keyed like the others'.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
let channelsBefore: unknown[];
let deliveriesBefore: unknown[];

const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;
const CHANNELS = 'select * from alert_channels order by id';
const DELIVERIES = 'select * from alert_deliveries order by id';

beforeAll(async () => {
  old = await databaseBefore('0013_');
  db = old.db;
  await db.pool.query(`
    insert into sites (id, origin) values (1, 'https://shop.example');
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total) values (1, 'nightly-2026-11-01', 'scheduled', '2026-11-01T03:00Z', 'completed', 1);
    insert into alerts (id, dedupe_key, run_id, site_id, severity, kind, title, details)
      values (1, 'search_url_disallowed-abc', 1, 1, 'critical', 'search_url_disallowed', '1 tracked URL now disallowed', '{"flipsTotal": 1}');
    insert into alert_channels (id, kind, url, secret, min_severity, digest)
      values (1, 'webhook', 'https://hooks.example/robots', 'whsec_c2VjcmV0', 'warning', false),
             (2, 'slack', 'https://hooks.slack.com/services/T/B/x', null, 'critical', true);
    insert into alert_deliveries (channel_id, alert_id, run_id, dedupe_key, status, attempts, last_status, delivered_at)
      values (1, 1, null, 'ch1:alert1', 'delivered', 1, 204, '2026-11-01T03:05Z'),
             (2, null, 1, 'ch2:run1:digest', 'pending', 0, null, null);`);
  channelsBefore = await q(CHANNELS);
  deliveriesBefore = await q(DELIVERIES);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0013: e-mail channels', () => {
  it('every channel and delivery as it was', async () => {
    expect(await q(CHANNELS)).toEqual(channelsBefore);
    expect(await q(DELIVERIES)).toEqual(deliveriesBefore);
  });

  it('the kinds, in order', async () => {
    expect(await q("select unnest(enum_range(null::channel_kind))::text as kind")).toEqual([{ kind: 'webhook' }, { kind: 'slack' }, { kind: 'email' }]);
  });

  it('a mailto: channel beside them, its deliveries keyed like the others', async () => {
    await db.pool.query("insert into alert_channels (id, kind, url, min_severity, digest) values (3, 'email', 'mailto:seo@shop.example', 'warning', false)");
    await db.pool.query("insert into alert_deliveries (channel_id, alert_id, dedupe_key) values (3, 1, 'ch3:alert1')");
    expect(await q("select c.kind::text, d.status::text from alert_deliveries d join alert_channels c on c.id = d.channel_id where d.dedupe_key = 'ch3:alert1'")).toEqual([
      { kind: 'email', status: 'pending' },
    ]);
  });
});
