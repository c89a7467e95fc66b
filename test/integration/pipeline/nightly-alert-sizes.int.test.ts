/**
 * Issue 26, item 6, through the real pipeline: sites whose robots.txt is about 500 KiB of
 * `Sitemap:` lines, of `Content-Signal:` values, of `Clean-param:` values, or of groups of one
 * agent each, all changed the next night. Every alert's details as Postgres stores them, and
 * every message the channels receive (a signed webhook and a Slack webhook on 127.0.0.1, a real
 * SMTP server, a digest webhook), stay under their documented maxima (size-limits.ts, README
 * "Alerts"), and what they leave out is counted exactly. The dashboard's and the CLI's readers
 * show the counts.
 *
 * Before the bounds, the sitemaps site's alert was stored in 893 KB of details and sent in an
 * 893 KB webhook; each size is printed (`npx vitest run <this file>`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffRobotsTxt } from '../../../src/robots/diff.js';
import type { RobotsDiff } from '../../../src/robots/diff.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { jsonbTextBytes } from '../../../src/services/alerting/alert-bounds.js';
import type { AlertDetails } from '../../../src/night/alerts.js';
import {
  MAIL_HTML_MAX_BYTES,
  MAIL_TEXT_MAX_BYTES,
  MAX_ALERT_DETAILS_BYTES,
  MAX_ALERT_TITLE_CHARS,
  MAX_SITEMAPS_PER_ALERT,
  SLACK_BODY_MAX_BYTES,
  SLACK_MAX_BLOCKS,
  SLACK_SECTION_MAX_CHARS,
  WEBHOOK_ALERT_MAX_BYTES,
  WEBHOOK_DIGEST_MAX_BYTES,
} from '../../../src/services/alerting/size-limits.js';
import { nightEvents } from '../../../src/reports/night-events.js';
import { eventsPage } from '../../../src/reports/web-events.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, eventually, replayNight, rows, settleDeliveries } from '../../helpers/nightly.js';
import type { Night } from '../../helpers/nightly.js';
import { manyAgentGroups, manyRecords, manySitemaps } from '../../helpers/hostile-bodies.js';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { startSmtpReceiver } from '../../fixtures/smtp-receiver.js';
import type { SmtpReceiver } from '../../fixtures/smtp-receiver.js';

const NIGHT_1 = '2026-12-01T03:00:00.000Z';
const NIGHT_2 = '2026-12-02T03:00:00.000Z';
/** Each site's body on night 1 and night 2: nothing of the first is left in the second. */
const BODIES = {
  sitemaps: [manySitemaps('v1'), manySitemaps('v2')],
  signals: [manyRecords('Content-Signal', 'a'), manyRecords('Content-Signal', 'b')],
  cleanparams: [manyRecords('Clean-param', 'a'), manyRecords('Clean-param', 'b')],
  agents: [manyAgentGroups('x'), manyAgentGroups('y')],
} as const;
type SiteName = keyof typeof BODIES;
const SITES = Object.keys(BODIES) as SiteName[];
/** The semantic diff of each site's night 2, as the pipeline computes it. */
const DIFFS = Object.fromEntries(
  SITES.map((name) => {
    const [before, after] = BODIES[name];
    return [name, diffRobotsTxt(parseRobotsTxt(before), parseRobotsTxt(after), { before, after })];
  }),
) as Record<SiteName, RobotsDiff>;

const serve = (night: 0 | 1) => Object.fromEntries(SITES.map((name) => [name, { status: 200, body: Buffer.from(BODIES[name][night]), headers: { 'content-type': 'text/plain' } }]));
const bytes = (text: string) => Buffer.byteLength(text);
/** A list of strings read back: what it lists and what its last entry counts. */
function counted(list: readonly string[] = []): number {
  const m = /^… and (\d+) more .+$/.exec(list.at(-1) ?? '');
  return m ? list.length - 1 + Number(m[1]) : list.length;
}

type StoredAlert = {
  id: number;
  dedupe_key: string;
  kind: string;
  title: string;
  origin: string;
  details: AlertDetails;
  /** `octet_length(details::text)`: what the limit is of. */
  stored_bytes: number;
};

let p: Pipeline;
let webhook: WebhookReceiver;
let slack: WebhookReceiver;
let digest: WebhookReceiver;
let smtp: SmtpReceiver;
let night: Night;
let alerts: StoredAlert[];
const secret = `whsec_${randomBytes(24).toString('base64')}`;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  p = await startPipeline({
    env: {
      ROBOTS_AUDIT_ALERT_BACKOFF_MS: '50',
      ROBOTS_AUDIT_SMTP_URL: smtp.url,
      ROBOTS_AUDIT_MAIL_FROM: 'robots-audit <alerts@example.org>',
      // Bodies of 500 KiB on a machine shared with other test files.
      ROBOTS_AUDIT_BODY_TIMEOUT_MS: '10000',
      ROBOTS_AUDIT_TOTAL_TIMEOUT_MS: '20000',
    },
  });
  [webhook, slack, digest] = await Promise.all([startWebhookReceiver({ secret }), startWebhookReceiver(), startWebhookReceiver({ secret })]);
  for (const args of [
    [webhook.url, '--secret', secret, '--min-severity', 'info'],
    [slack.url, '--slack', '--min-severity', 'info'],
    ['mailto:seo@example.com', '--min-severity', 'info'],
    [digest.url, '--digest', '--secret', secret, '--min-severity', 'info'],
  ]) {
    const added = await p.cli(['alerts', 'add', ...args]);
    expect(added.code, added.stderr).toBe(0);
  }
  await addSites(p, SITES);
  await replayNight(p, NIGHT_1, serve(0));
  night = await replayNight(p, NIGHT_2, serve(1));
  await eventually(async () => digest.requests.length > 0, 'the digest of night 2', 30_000);
  await settleDeliveries(p, 60_000);
  alerts = await rows<StoredAlert>(
    p,
    `select a.id::int, a.dedupe_key, a.kind, a.title, s.origin, a.details, octet_length(a.details::text) as stored_bytes
     from alerts a join sites s on s.id = a.site_id where a.run_id = $1 order by s.origin, a.kind`,
    [night.runId],
  );
  // The sizes, for the record (README, issue 26).
  for (const a of alerts) {
    const hook = webhook.requests.find((r) => JSON.parse(r.body).data.id === a.dedupe_key);
    console.info(`${a.origin.replace(/:\d+$/, '')} ${a.kind}: details stored in ${a.stored_bytes} bytes, webhook body ${hook ? bytes(hook.body) : '?'} bytes`);
  }
}, 180_000);

afterAll(async () => {
  await p?.close();
  await Promise.all([webhook?.close(), slack?.close(), digest?.close(), smtp?.close()]);
});

const alertOf = (site: SiteName, kind: string) => alerts.find((a) => a.origin === p.origin(site) && a.kind === kind)!;

describe('the alerts of a night that changed everything', () => {
  it('each site raised the alerts of what changed, every delivery delivered', async () => {
    expect(alerts.map((a) => [a.origin, a.kind])).toEqual([
      [p.origin('agents'), 'records_changed'],
      [p.origin('agents'), 'rules_changed'],
      [p.origin('cleanparams'), 'records_changed'],
      [p.origin('signals'), 'records_changed'],
      [p.origin('sitemaps'), 'sitemaps_changed'],
    ]);
    const deliveries = await rows<{ status: string; n: number }>(p, 'select status::text, count(*)::int as n from alert_deliveries group by status');
    expect(deliveries).toEqual([{ status: 'delivered', n: alerts.length * 3 + 1 }]);
  });

  it(`every alert's details are stored in at most ${MAX_ALERT_DETAILS_BYTES / 1024} KiB (as Postgres prints them), its title in ${MAX_ALERT_TITLE_CHARS} characters`, () => {
    for (const a of alerts) {
      expect(a.stored_bytes, a.kind).toBeLessThanOrEqual(MAX_ALERT_DETAILS_BYTES);
      // The measure the bound uses is the server's own.
      expect(jsonbTextBytes(a.details)).toBe(a.stored_bytes);
      expect(a.title.length).toBeLessThanOrEqual(MAX_ALERT_TITLE_CHARS);
    }
  });

  it('sitemaps: the first 100 each way listed, the others counted, the title the total', () => {
    const a = alertOf('sitemaps', 'sitemaps_changed');
    const diff = DIFFS.sitemaps;
    expect(diff.sitemapsAdded.length).toBeGreaterThan(8_000);
    expect(a.title).toBe(`${diff.sitemapsAdded.length + diff.sitemapsRemoved.length} sitemaps changed on ${p.origin('sitemaps')}`);
    expect(a.details.sitemapsAdded).toEqual([...diff.sitemapsAdded.slice(0, MAX_SITEMAPS_PER_ALERT), `… and ${diff.sitemapsAdded.length - MAX_SITEMAPS_PER_ALERT} more sitemaps`]);
    expect(counted(a.details.sitemapsRemoved)).toBe(diff.sitemapsRemoved.length);
  });

  it.each(['signals', 'cleanparams'] as const)('%s: one record line, its first values listed and the others counted', (site) => {
    const a = alertOf(site, 'records_changed');
    const [record] = DIFFS[site].records;
    expect(a.details.diffLines).toHaveLength(1);
    expect(a.details.diffLines![0]).toContain(`… and ${record!.before.length - 10} more values -> `);
    expect(a.details.diffLines![0]).toContain(`… and ${record!.after.length - 10} more values`);
  });

  it('agents: every renamed group and every record counted', () => {
    const diff = DIFFS.agents;
    const rules = alertOf('agents', 'rules_changed');
    expect(counted(rules.details.agentsAdded)).toBe(diff.agentsAdded.length);
    expect(counted(rules.details.agentsRemoved)).toBe(diff.agentsRemoved.length);
    expect(rules.title).toBe(`robots.txt rules changed on ${p.origin('agents')}: ${diff.agents.length + (diff.agentsNotListed ?? 0)} user-agents affected`);
    const records = alertOf('agents', 'records_changed');
    expect(counted(records.details.diffLines)).toBe(diff.records.length);
    expect(records.title).toBe(`robots.txt directives changed on ${p.origin('agents')}: crawl-delay`);
  });
});

describe('what the channels received', () => {
  it(`the signed webhook: one body per alert, each at most ${WEBHOOK_ALERT_MAX_BYTES / 1024} KiB, its details those stored`, () => {
    expect(webhook.requests).toHaveLength(alerts.length);
    for (const r of webhook.requests) {
      expect(r.verification).toEqual({ ok: true });
      expect(bytes(r.body)).toBeLessThanOrEqual(WEBHOOK_ALERT_MAX_BYTES);
      const { data } = JSON.parse(r.body) as { data: { id: string; details: AlertDetails; textDiff?: string } };
      expect(data.details).toEqual(alerts.find((a) => a.dedupe_key === data.id)!.details);
      // Thousands of changed lines are not diffed as text; the night says so.
      expect(data.textDiff).toMatch(/^# too many changed lines to diff/);
    }
  });

  it(`Slack: one message per alert within Slack's limits, each at most ${SLACK_BODY_MAX_BYTES / 1024} KiB`, () => {
    expect(slack.requests).toHaveLength(alerts.length);
    for (const r of slack.requests) {
      expect(bytes(r.body)).toBeLessThanOrEqual(SLACK_BODY_MAX_BYTES);
      const message = JSON.parse(r.body) as { blocks: { type: string; text?: { text: string } }[] };
      expect(message.blocks.length).toBeLessThanOrEqual(SLACK_MAX_BLOCKS);
      for (const b of message.blocks) expect(b.text?.text.length ?? 0).toBeLessThanOrEqual(SLACK_SECTION_MAX_CHARS);
    }
    // The sitemaps each way: those shown, and the others counted.
    const message = slack.requests.map((r) => JSON.parse(r.body) as { text: string; blocks: { text?: { text: string } }[] }).find((m) => m.text.includes('sitemaps changed'))!;
    const code = message.blocks.map((b) => b.text?.text ?? '').find((t) => t.startsWith('```'))!;
    for (const [sign, total] of [['-', DIFFS.sitemaps.sitemapsRemoved.length], ['+', DIFFS.sitemaps.sitemapsAdded.length]] as const) {
      const shown = code.split('\n').filter((l) => l.startsWith(`${sign} http`)).length;
      expect(shown).toBeGreaterThan(5);
      expect(code).toContain(`${sign} … and ${total - shown} more sitemaps`);
    }
  });

  it(`e-mail: one mail per alert, text part at most ${MAIL_TEXT_MAX_BYTES / 1024} KiB, HTML ${MAIL_HTML_MAX_BYTES / 1024} KiB, the counts in both`, async () => {
    const mails = await smtp.waitFor(alerts.length);
    expect(mails).toHaveLength(alerts.length);
    for (const m of mails) {
      expect(bytes(m.text!)).toBeLessThanOrEqual(MAIL_TEXT_MAX_BYTES);
      expect(bytes(m.html!)).toBeLessThanOrEqual(MAIL_HTML_MAX_BYTES);
    }
    const sitemaps = mails.find((m) => m.headers.subject!.includes('sitemaps changed'))!;
    for (const part of [sitemaps.text!, sitemaps.html!]) {
      expect(part).toContain(`+ … and ${DIFFS.sitemaps.sitemapsAdded.length - MAX_SITEMAPS_PER_ALERT} more sitemaps`);
      expect(part).toContain(`- … and ${DIFFS.sitemaps.sitemapsRemoved.length - MAX_SITEMAPS_PER_ALERT} more sitemaps`);
    }
  });

  it(`the digest webhook: one signed body for the run, at most ${WEBHOOK_DIGEST_MAX_BYTES / 1024} KiB, every alert in it`, () => {
    expect(digest.requests).toHaveLength(1);
    const [r] = digest.requests;
    expect(r!.verification).toEqual({ ok: true });
    expect(bytes(r!.body)).toBeLessThanOrEqual(WEBHOOK_DIGEST_MAX_BYTES);
    const body = JSON.parse(r!.body) as { data: { alerts: unknown[]; omitted: number } };
    expect([body.data.alerts.length, body.data.omitted]).toEqual([alerts.length, 0]);
  });
});

describe('the readers of the night show the counts', () => {
  it('report alerts: each alert by its title, the sitemaps counted', async () => {
    const report = await p.cli(['report', 'alerts', '--since', NIGHT_2.slice(0, 10), '--format', 'json']);
    expect(report.code, report.stderr).toBe(0);
    const listed = JSON.parse(report.stdout) as { origin: string; kind: string; title: string }[];
    expect(listed.map((a) => a.title).sort()).toEqual(alerts.map((a) => a.title).sort());
  });

  it('history of a site: the alert titles of the night', async () => {
    const history = await p.cli(['history', p.origin('sitemaps'), '--json']);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(alertOf('sitemaps', 'sitemaps_changed').title);
  });

  it('the dashboard: the night page and the changes feed list the first lines of the diff and count the rest', async () => {
    const page = await nightEvents(p.db.pool, { runId: night.runId, portfolioId: null, severity: null, page: 1, pageSize: 10 });
    const site = page.sites.find((s) => s.origin === p.origin('sitemaps'))!;
    const what = site.causes.flatMap((c) => c.what);
    expect(what.at(-1)).toMatch(/^… and \d+ more lines$/);
    const feed = await eventsPage(p.db.pool, { portfolioId: null, types: ['change'], kind: null, severity: null, crawler: null, since: null, until: null, after: null, pageSize: 50 });
    const change = feed.events.find((e) => e.origin === p.origin('sitemaps') && e.runId === night.runId)!;
    expect(change.summary).toMatch(/… and \d+ more lines$/);
    expect(change.summary.length).toBeLessThan(64 * 1024);
  });
});
