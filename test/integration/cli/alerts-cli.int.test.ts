/**
 * `robots-audit alerts add|list|remove|test`: alert channels in a real database, and test
 * messages sent to webhook receivers on 127.0.0.1 that verify the Standard Webhooks signature.
 * The loopback is refused by the SSRF guard unless `--allow-network` lets it through.
 */
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChannelsRepo } from '../../../src/db/channels.repo.js';
import { WEBHOOK_EVENT_TEST } from '../../../src/services/alerting/test-message.js';
import { closedPort, startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver, WebhookReceiverOptions } from '../../fixtures/webhook-receiver.js';
import { runCli } from '../../helpers/cli.js';
import type { CliRun } from '../../helpers/cli.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = 'whsec_dGhpcyBpcyBub3QgdGhlIHNhbWUga2V5';
const LOOPBACK = ['--allow-network', '127.0.0.0/8'];

let testDb: TestDatabase;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb?.close();
});
beforeEach(async () => {
  await testDb.db.execute(sql`truncate alert_channels restart identity cascade`);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(options);
  receivers.push(started);
  return started;
}

function alerts(args: string[]): Promise<CliRun> {
  return runCli(['alerts', ...args, '--database-url', testDb.url]);
}

interface ChannelJson {
  id: number;
  kind: string;
  url: string;
  minSeverity: string;
  digest: boolean;
  secret: string | null;
  enabled: boolean;
}

async function listJson(): Promise<ChannelJson[]> {
  const run = await alerts(['list', '--json']);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as ChannelJson[];
}

const storedChannels = () => createChannelsRepo(testDb.db).listChannels();

describe('alerts add', () => {
  it('adds a signed webhook with its settings', async () => {
    const run = await alerts(['add', 'https://hooks.example/robots', '--secret', SECRET, '--min-severity', 'critical', '--digest']);
    expect(run).toEqual({ code: 0, stdout: 'added channel 1: webhook https://hooks.example/robots (min severity critical, digest per run, signed)\n', stderr: '' });
    expect(await storedChannels()).toMatchObject([{ id: 1, kind: 'webhook', url: 'https://hooks.example/robots', secret: SECRET, minSeverity: 'critical', digest: true, enabled: true }]);
  });

  it('defaults: warning and above, one message per alert, unsigned', async () => {
    const run = await alerts(['add', 'https://hooks.example/plain']);
    expect(run.stdout).toBe('added channel 1: webhook https://hooks.example/plain (min severity warning, per alert, unsigned)\n');
  });

  it('adding again updates only what is given (the secret is kept) and enables the channel', async () => {
    await alerts(['add', 'https://hooks.example/robots', '--secret', SECRET]);
    await createChannelsRepo(testDb.db).setEnabled(1, false);
    const run = await alerts(['add', 'https://hooks.example/robots', '--min-severity', 'info', '--digest']);
    expect(run.stdout).toBe('updated channel 1: webhook https://hooks.example/robots (min severity info, digest per run, signed)\n');
    expect(await storedChannels()).toMatchObject([{ id: 1, secret: SECRET, minSeverity: 'info', digest: true, enabled: true }]);
    await alerts(['add', 'https://hooks.example/robots', '--no-secret', '--no-digest']);
    expect(await storedChannels()).toMatchObject([{ id: 1, secret: null, minSeverity: 'info', digest: false }]);
  });

  it('the same URL as a webhook and as Slack is two channels', async () => {
    await alerts(['add', 'https://hooks.example/x']);
    await alerts(['add', 'https://hooks.example/x', '--slack']);
    expect((await storedChannels()).map((c) => c.kind)).toEqual(['webhook', 'slack']);
  });

  it.each([
    [['ftp://hooks.example/x'], 'robots-audit: invalid URL "ftp://hooks.example/x": alerts are sent over http or https, not ftp\n'],
    [['hooks.example/x'], 'robots-audit: invalid URL "hooks.example/x": not an absolute URL\n'],
    [['https://hooks.slack.com/services/T/B/x', '--slack', '--secret', SECRET], 'robots-audit: --secret: Slack incoming webhooks are not signed (the URL is the secret)\n'],
    [['https://hooks.example/x', '--secret', 'whsec_not base64!'], 'robots-audit: a whsec_ secret must be followed by base64\n'],
  ])('%j is refused with exit code 1', async (args, stderr) => {
    expect(await alerts(['add', ...args])).toEqual({ code: 1, stdout: '', stderr });
    expect(await storedChannels()).toEqual([]);
  });

  it('an unknown severity is a usage error', async () => {
    const run = await alerts(['add', 'https://hooks.example/x', '--min-severity', 'loud']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Allowed choices are critical, warning, info");
  });
});

describe('alerts list: never a secret', () => {
  beforeEach(async () => {
    await alerts(['add', 'https://hooks.example/robots?token=abc123', '--secret', SECRET]);
    await alerts(['add', 'https://hooks.slack.com/services/T0001/B0002/SlackToken42', '--slack', '--min-severity', 'critical', '--digest']);
    await alerts(['add', 'https://user:pw@hooks.example/plain', '--secret', 'plain-string-secret']);
  });

  it('prints a table with the secret, the Slack token, query and credentials masked', async () => {
    const run = await alerts(['list']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'ID  KIND     MIN       DIGEST  SECRET   ENABLED  URL',
        '1   webhook  warning   no      whsec_…  yes      https://hooks.example/robots?…',
        '2   slack    critical  yes     -        yes      https://hooks.slack.com/services/T0001/B0002/…',
        '3   webhook  warning   no      …        yes      https://…@hooks.example/plain',
        '',
      ].join('\n'),
    });
    for (const secret of [SECRET.slice('whsec_'.length), 'SlackToken42', 'abc123', 'plain-string-secret', 'pw']) expect(run.stdout).not.toContain(secret);
  });

  it('--json masks the same way', async () => {
    expect(await listJson()).toEqual([
      { id: 1, kind: 'webhook', url: 'https://hooks.example/robots?…', minSeverity: 'warning', digest: false, secret: 'whsec_…', enabled: true, createdAt: expect.any(String) },
      { id: 2, kind: 'slack', url: 'https://hooks.slack.com/services/T0001/B0002/…', minSeverity: 'critical', digest: true, secret: null, enabled: true, createdAt: expect.any(String) },
      { id: 3, kind: 'webhook', url: 'https://…@hooks.example/plain', minSeverity: 'warning', digest: false, secret: '…', enabled: true, createdAt: expect.any(String) },
    ]);
  });

  it('add output masks too', async () => {
    const run = await alerts(['add', 'https://hooks.slack.com/services/T0001/B0002/SlackToken42', '--slack']);
    expect(run.stdout).toBe('updated channel 2: slack https://hooks.slack.com/services/T0001/B0002/… (min severity critical, digest per run)\n');
  });
});

describe('alerts remove', () => {
  beforeEach(async () => {
    await alerts(['add', 'https://hooks.example/a']);
    await alerts(['add', 'https://hooks.example/b']);
    await alerts(['add', 'https://hooks.example/b', '--slack']);
  });

  it('by id', async () => {
    expect(await alerts(['remove', '1'])).toEqual({ code: 0, stdout: 'removed channel 1: webhook https://hooks.example/a\n', stderr: '' });
    expect((await storedChannels()).map((c) => c.id)).toEqual([2, 3]);
  });

  it('by URL (every kind with that URL), read as add stores it', async () => {
    const run = await alerts(['remove', 'HTTPS://HOOKS.example/b#frag']);
    expect(run.stdout).toBe('removed channel 2: webhook https://hooks.example/b\nremoved channel 3: slack https://hooks.example/…\n');
    expect((await storedChannels()).map((c) => c.id)).toEqual([1]);
  });

  it('nothing matching is an error', async () => {
    expect(await alerts(['remove', '42'])).toEqual({ code: 1, stdout: '', stderr: 'robots-audit: no alert channel matches "42"\n' });
    expect(await storedChannels()).toHaveLength(3);
  });
});

describe('alerts test', () => {
  it('sends a signed test message that the receiver verifies', async () => {
    const hook = await receiver({ secret: SECRET });
    await alerts(['add', hook.url, '--secret', SECRET]);
    const run = await alerts(['test', ...LOOPBACK]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^channel 1 webhook ${hook.url.replace(/[.]/g, '\\.')}: HTTP 200, delivered in \\d+ ms\\n$`));
    expect(hook.requests).toHaveLength(1);
    const [request] = hook.requests;
    expect(request!.verification).toEqual({ ok: true });
    expect(request!.headers['webhook-id']).toMatch(/^test-ch1-\d+$/);
    expect(JSON.parse(request!.body)).toEqual({ type: WEBHOOK_EVENT_TEST, timestamp: expect.any(String), data: { channelId: 1, message: expect.any(String) } });
  });

  it('a receiver that expects another secret answers 401: exit code 1', async () => {
    const hook = await receiver({ secret: OTHER_SECRET });
    await alerts(['add', hook.url, '--secret', SECRET]);
    const run = await alerts(['test', '1', ...LOOPBACK]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(': HTTP 401, failed (no_matching_signature)\n');
    expect(hook.requests[0]!.verification).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('a Slack channel gets a Slack message, unsigned', async () => {
    const hook = await receiver();
    await alerts(['add', hook.url, '--slack']);
    const run = await alerts(['test', hook.url, ...LOOPBACK]);
    expect(run.code).toBe(0);
    const [request] = hook.requests;
    expect(request!.headers['webhook-signature']).toBeUndefined();
    const body = JSON.parse(request!.body) as { text: string; blocks: { type: string }[] };
    expect(body.text).toEqual(expect.any(String));
    expect(body.blocks.map((b) => b.type)).toEqual(['section', 'context']);
    expect(run.stdout).toContain(`channel 1 slack ${hook.url.replace(/robots-audit$/, '…')}: HTTP 200`);
  });

  it('a failing receiver gives exit code 1; the others are still tried', async () => {
    const broken = await receiver({ status: 500 });
    const fine = await receiver();
    await alerts(['add', broken.url]);
    await alerts(['add', fine.url]);
    const run = await alerts(['test', ...LOOPBACK]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`channel 1 webhook ${broken.url}: HTTP 500, failed (status 500)`);
    expect(lines[1]).toMatch(/^channel 2 webhook .*: HTTP 200, delivered/);
    expect([broken.requests.length, fine.requests.length]).toEqual([1, 1]);
  });

  it('no answer at all is a failure with its error code', async () => {
    const port = await closedPort();
    await alerts(['add', `http://127.0.0.1:${port}/hook`]);
    const run = await alerts(['test', ...LOOPBACK]);
    expect(run).toEqual({ code: 1, stdout: `channel 1 webhook http://127.0.0.1:${port}/hook: no response, failed (ECONNREFUSED)\n`, stderr: '' });
  });

  it('without --allow-network the SSRF guard refuses the loopback and nothing is sent', async () => {
    const hook = await receiver();
    await alerts(['add', hook.url]);
    const run = await alerts(['test']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(`channel 1 webhook ${hook.url}: no response, failed (SSRF_BLOCKED)\n`);
    expect(hook.requests).toHaveLength(0);
  });

  it('ROBOTS_AUDIT_ALLOW_NETWORKS lets the loopback through as --allow-network does', async () => {
    const hook = await receiver();
    await alerts(['add', hook.url]);
    const run = await runCli(['alerts', 'test', '--database-url', testDb.url], { env: { ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8' } });
    expect(run.code).toBe(0);
    expect(hook.requests).toHaveLength(1);
  });

  it('a bad --allow-network is an error before anything is sent', async () => {
    const hook = await receiver();
    await alerts(['add', hook.url]);
    const run = await alerts(['test', '--allow-network', 'localhost']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'robots-audit: invalid allowNetworks entry "localhost": expected a CIDR such as 127.0.0.0/8\n' });
    expect(hook.requests).toHaveLength(0);
  });

  it('only enabled channels without a selector; a disabled one can be named', async () => {
    const hook = await receiver();
    await alerts(['add', hook.url]);
    await createChannelsRepo(testDb.db).setEnabled(1, false);
    expect(await alerts(['test', ...LOOPBACK])).toEqual({ code: 1, stdout: '', stderr: 'robots-audit: no enabled alert channel to test\n' });
    expect((await alerts(['test', '1', ...LOOPBACK])).code).toBe(0);
    expect(hook.requests).toHaveLength(1);
  });

  it('an unknown channel is an error', async () => {
    expect(await alerts(['test', '7', ...LOOPBACK])).toEqual({ code: 1, stdout: '', stderr: 'robots-audit: no alert channel matches "7"\n' });
  });
});
