/**
 * E-mail alerts through a real SMTP server (aiosmtpd, test/fixtures/smtp-receiver.ts) started by
 * each test: the nightly pipeline sends an alert as a multipart mail (a text and an HTML part that
 * name the flipped URL and the deciding line, and link to the dashboard), once, with a Message-ID
 * that a retry keeps; a digest channel gets one mail per run; `alerts test` sends one, upgrading
 * with STARTTLS when the server offers it and refusing a certificate nobody signed.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, alertsOf, replayNight, rows, settleDeliveries, track } from '../../helpers/nightly.js';
import { cliProcess } from '../../helpers/cli-process.js';
import { runCli } from '../../helpers/cli.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { deliveriesPage } from '../../../src/reports/web-runs.js';
import { startSmtpReceiver, TLS_FIXTURES } from '../../fixtures/smtp-receiver.js';
import type { SmtpReceiver } from '../../fixtures/smtp-receiver.js';

const NIGHT_1 = '2026-06-01T03:00:00.000Z';
const NIGHT_2 = '2026-06-02T03:00:00.000Z';
const BASE = 'User-agent: *\nDisallow: /private/\n';
/** Googlebot and Bingbot lose /products/blue-widget: one critical alert, and warnings. */
const PRODUCTS_BLOCKED = `${BASE}Disallow: /products/\n`;
const FROM = 'robots-audit <alerts@example.org>';
const DASHBOARD = 'https://robots.example.org';
const AUTH = { user: 'alerts', password: 'p@ss word' };

function mailEnv(receiver: SmtpReceiver): Record<string, string> {
  return {
    ROBOTS_AUDIT_SMTP_URL: receiver.url,
    ROBOTS_AUDIT_MAIL_FROM: FROM,
    ROBOTS_AUDIT_DASHBOARD_URL: `${DASHBOARD}/`,
    ROBOTS_AUDIT_ALERT_BACKOFF_MS: '50',
  };
}

describe('an alert by e-mail: retried after a 451, arrives once, as text and HTML', () => {
  let p: Pipeline;
  let receiver: SmtpReceiver;
  let night: Night;
  let siteId: number;
  let origin: string;

  beforeAll(async () => {
    // The server logs in its user and refuses the first message with a transient 451.
    receiver = await startSmtpReceiver({ auth: AUTH, failFirst: 1 });
    p = await startPipeline({ env: mailEnv(receiver) });
    ({ shop: siteId } = await addSites(p, ['shop']));
    origin = p.origin('shop');
    await track(p, 'shop', ['/products/blue-widget']);
    const added = await p.cli(['alerts', 'add', 'mailto:SEO@Shop.Example', '--min-severity', 'critical']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe('added channel 1: email mailto:SEO@shop.example (min severity critical, per alert)\n');
    await replayNight(p, NIGHT_1, { shop: BASE });
    night = await replayNight(p, NIGHT_2, { shop: PRODUCTS_BLOCKED });
    await settleDeliveries(p);
  });
  afterAll(async () => {
    await p?.close();
    await receiver?.close();
  });

  it('the delivery took two attempts and is done', async () => {
    const deliveries = await rows<{ status: string; attempts: number; last_status: number }>(p, 'select status::text, attempts, last_status from alert_deliveries');
    expect(deliveries).toEqual([{ status: 'delivered', attempts: 2, last_status: 250 }]);
  });

  it('one message arrived, to the channel, from ROBOTS_AUDIT_MAIL_FROM, logged in, with a stable Message-ID', async () => {
    const [alert] = (await alertsOf(p, night.runId, siteId)).filter((a) => a.severity === 'critical');
    const mails = receiver.messages();
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail!.rcptTos).toEqual(['SEO@shop.example']);
    expect(mail!.mailFrom).toBe('alerts@example.org');
    expect(mail!.login).toBe(AUTH.user);
    expect(mail!.headers['message-id']).toBe(`<robots-audit.${alert!.dedupe_key}.ch1@example.org>`);
    expect(mail!.headers.from).toBe(FROM);
    expect(mail!.headers['auto-submitted']).toBe('auto-generated');
    expect(mail!.headers.subject).toBe(`[robots-audit] CRITICAL: ${alert!.title}`);
    expect(mail!.contentType).toBe('multipart/alternative');
  });

  it('both parts say what flipped, for which crawlers, by which line, and link to the site\'s dashboard page', async () => {
    const [mail] = receiver.messages();
    const link = `${DASHBOARD}/site?origin=${encodeURIComponent(origin)}`;
    for (const part of [mail!.text!, mail!.html!]) {
      expect(part).toContain(`${origin}/products/blue-widget`);
      expect(part).toContain('Googlebot (search)');
      expect(part).toContain('line 3: Disallow: /products/');
      expect(part).toContain(link.replace(/&/g, part === mail!.html ? '&amp;' : '&'));
    }
    expect(mail!.text).toContain('allowed → disallowed');
    expect(mail!.html).toMatch(/<table[^>]*>.*<td[^>]*>https?:\/\/shop\.test:\d+\/products\/blue-widget<\/td>/s);
  });

  it('the dashboard\'s deliveries name the channel by its addresses', async () => {
    const page = await deliveriesPage(p.db.pool, null, 1, 50);
    expect(page.rows.map((r) => [r.channelKind, r.channelHost, r.status, r.lastStatus])).toEqual([['email', 'SEO@shop.example', 'delivered', 250]]);
  });

  it('delivering it again sends nothing: the delivery is done', async () => {
    const [delivery] = await rows<{ id: number }>(p, 'select id::int from alert_deliveries');
    expect(await p.rt.delivery.deliver(delivery!.id)).toBe('already-delivered');
    expect(receiver.messages()).toHaveLength(1);
  });
});

describe('a digest by e-mail: one mail for the run', () => {
  let p: Pipeline;
  let receiver: SmtpReceiver;
  let night: Night;

  beforeAll(async () => {
    receiver = await startSmtpReceiver();
    p = await startPipeline({ env: mailEnv(receiver) });
    await addSites(p, ['one', 'two']);
    await track(p, 'one', ['/products/blue-widget']);
    const added = await p.cli(['alerts', 'add', 'mailto:team@example.com,seo@example.com', '--digest', '--min-severity', 'warning']);
    expect(added.code, added.stderr).toBe(0);
    await replayNight(p, NIGHT_1, { one: BASE, two: BASE });
    night = await replayNight(p, NIGHT_2, { one: PRODUCTS_BLOCKED, two: `${BASE}\nUser-agent: GPTBot\nDisallow: /\n` });
    await settleDeliveries(p);
  });
  afterAll(async () => {
    await p?.close();
    await receiver?.close();
  });

  it('exactly one message, to both addresses, listing each site\'s alerts at or above warning', async () => {
    const mails = await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.messages()).toHaveLength(1);
    const [mail] = mails;
    expect(mail!.rcptTos).toEqual(['team@example.com', 'seo@example.com']);
    expect(mail!.headers['message-id']).toBe(`<robots-audit.digest-run${night.runId}.ch1@example.org>`);
    const alerts = await rows<{ origin: string; kind: string; severity: string }>(
      p,
      `select s.origin, a.kind, a.severity::text from alerts a join sites s on s.id = a.site_id where a.run_id = $1 and a.severity in ('critical', 'warning')`,
      [night.runId],
    );
    expect(alerts.length).toBeGreaterThanOrEqual(3);
    const counts = { critical: alerts.filter((a) => a.severity === 'critical').length, warning: alerts.filter((a) => a.severity === 'warning').length };
    expect(mail!.headers.subject).toBe(`[robots-audit] run ${night.runId}: ${counts.critical} critical, ${counts.warning} warning, 0 info on 2 sites`);
    for (const part of [mail!.text!, mail!.html!]) {
      for (const a of alerts) expect(part).toContain(a.kind);
      expect(part).toContain(`${DASHBOARD}/runs/${night.runId}`);
    }
  });
});

describe('alerts test: one message, STARTTLS when offered, a certificate checked', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    const added = await runCli(['alerts', 'add', 'mailto:seo@example.com', '--database-url', db.url]);
    expect(added.code, added.stderr).toBe(0);
  });
  afterAll(async () => db?.close());

  it('a server that offers STARTTLS with a certificate of a trusted CA: the mail goes encrypted, logged in', async () => {
    const receiver = await startSmtpReceiver({ tls: TLS_FIXTURES.secure, auth: AUTH });
    try {
      // A process of its own: NODE_EXTRA_CA_CERTS is read when Node starts (README: a private CA).
      const [command, args] = cliProcess(['alerts', 'test', '--database-url', db.url]);
      const run = spawnSync(command, args, {
        encoding: 'utf8',
        env: { ...process.env, NODE_EXTRA_CA_CERTS: TLS_FIXTURES.ca, ROBOTS_AUDIT_SMTP_URL: `${receiver.url}/?tls.servername=secure.test`, ROBOTS_AUDIT_MAIL_FROM: FROM },
      });
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(/^channel 1 email mailto:seo@example\.com: SMTP 250, accepted in \d+ ms\n$/);
      expect(run.status).toBe(0);
      const [mail] = await receiver.waitFor(1);
      expect([mail!.tls, mail!.login, mail!.headers.subject]).toEqual([true, AUTH.user, '[robots-audit] test message']);
      expect(mail!.text).toContain('This address receives robots.txt alerts');
      expect(mail!.html).toContain('This address receives robots.txt alerts');
    } finally {
      await receiver.close();
    }
  });

  it('a self-signed certificate is refused (exit 1, the reason); accepted only when the URL says so', async () => {
    const receiver = await startSmtpReceiver({ tls: TLS_FIXTURES.selfSigned });
    try {
      const env = { ROBOTS_AUDIT_SMTP_URL: receiver.url, ROBOTS_AUDIT_MAIL_FROM: FROM };
      const refused = await runCli(['alerts', 'test', '--database-url', db.url], { env });
      expect(refused.code).toBe(1);
      // The reason as Node gives it: Node 24 adds a hint after it ("; if the root CA is installed
      // locally, try running Node.js with --use-system-ca").
      expect(refused.stdout).toMatch(/^channel 1 email mailto:seo@example\.com: failed \(ESOCKET: self-signed certificate(?:; [^\n]+)?\)\n$/);
      expect(receiver.messages()).toEqual([]);
      const accepted = await runCli(['alerts', 'test', '--database-url', db.url], { env: { ...env, ROBOTS_AUDIT_SMTP_URL: `${receiver.url}/?tls.rejectUnauthorized=false` } });
      expect(accepted.code, accepted.stdout).toBe(0);
      expect((await receiver.waitFor(1))[0]!.tls).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('without ROBOTS_AUDIT_SMTP_URL: exit 1 and what to set', async () => {
    const run = await runCli(['alerts', 'test', '--database-url', db.url], { env: { ROBOTS_AUDIT_SMTP_URL: '', ROBOTS_AUDIT_MAIL_FROM: '' } });
    expect([run.code, run.stdout]).toEqual([1, 'channel 1 email mailto:seo@example.com: failed (e-mail is not set up: set ROBOTS_AUDIT_SMTP_URL and ROBOTS_AUDIT_MAIL_FROM)\n']);
  });
});

describe('alerts add mailto:', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.close());
  const alerts = (...args: string[]) => runCli(['alerts', ...args, '--database-url', db.url]);

  it.each([
    ['mailto:', /no address/],
    ['mailto:not-an-address', /"not-an-address" is not an e-mail address/],
    ['mailto:seo@example.com?subject=hi', /header fields/],
  ])('%s is refused with the reason', async (url, reason) => {
    const run = await alerts('add', url);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(reason);
  });

  it('--secret and --slack do not go with e-mail', async () => {
    expect((await alerts('add', 'mailto:a@example.com', '--secret', 'x')).stderr).toContain('--secret: e-mail is not signed');
    expect((await alerts('add', 'mailto:a@example.com', '--slack')).stderr).toContain('--slack: a mailto: channel is e-mail, not Slack');
  });

  it('listed, and removed by its mailto: URI', async () => {
    expect((await alerts('add', 'mailto:seo@Example.com', '--digest')).code).toBe(0);
    const list = JSON.parse((await alerts('list', '--json')).stdout) as { kind: string; url: string; digest: boolean; secret: string | null }[];
    expect(list.map((c) => [c.kind, c.url, c.digest, c.secret])).toEqual([['email', 'mailto:seo@example.com', true, null]]);
    const removed = await alerts('remove', 'mailto:seo@EXAMPLE.com');
    expect([removed.code, removed.stdout]).toEqual([0, 'removed channel 1: email mailto:seo@example.com\n']);
  });
});
