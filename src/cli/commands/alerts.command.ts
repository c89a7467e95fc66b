/**
 * `robots-audit alerts add|list|remove|test`: the channels alerts go to. A `webhook` channel
 * gets JSON signed the Standard Webhooks way when it has a secret; a `--slack` channel is a
 * Slack incoming webhook, unsigned, whose URL is itself the secret; a `mailto:` channel gets
 * e-mail through ROBOTS_AUDIT_SMTP_URL (src/mail/).
 *
 * Secrets are never printed: a secret shows as `whsec_…` (or `…`), and the last path segment of
 * a Slack URL (its token) as `…`, as do a URL's query and credentials. Webhook URLs are user
 * input, so `alerts test` sends through the SSRF-guarded dispatcher: an address in a private
 * network is refused unless `--allow-network` (or ROBOTS_AUDIT_ALLOW_NETWORKS) lets it through.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { NetworkOptions } from '../network-options.js';
import { addNetworkOptions, networkSettings } from '../network-options.js';
import { pipelineConfig } from '../pipeline-config.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import type { AlertChannel, ChannelSelector, ChannelSeverity } from '../../db/channels.repo.js';
import { createChannelsRepo } from '../../db/channels.repo.js';
import { SEVERITIES } from '../../night/vocabulary.js';
import type { DeliveryResult } from '../../http/deliver-webhook.js';
import { deliverWebhook } from '../../http/deliver-webhook.js';
import { createFetchDispatcher } from '../../http/fetch-dispatcher.js';
import { createMailSender, mailDomain } from '../../mail/smtp-sender.js';
import type { MailSender } from '../../mail/smtp-sender.js';
import { SECRET_PREFIX, secretKey } from '../../http/standard-webhooks.js';
import { testMessageBody } from '../../services/alerting/test-message.js';
import { testMail } from '../../services/alerting/mail-message.js';
import { ALERT_MAIL_HEADERS } from '../../services/alert-delivery.service.js';
import { isMailto, parseMailto } from '../../mail/mailto.js';
import type { AppConfig } from '../../config/env.js';

interface AddOptions extends DatabaseOptions {
  slack?: boolean;
  /** A string, or false for --no-secret. */
  secret?: string | false;
  minSeverity?: ChannelSeverity;
  digest?: boolean;
}

interface ListOptions extends DatabaseOptions {
  json?: boolean;
}

type TestOptions = DatabaseOptions & NetworkOptions;

/** Characters of a failing receiver's answer shown by `alerts test`. */
export const TEST_RESPONSE_PREVIEW_CHARS = 200;

class ChannelInputError extends Error {}

/** A channel URL as stored: absolute http(s), fragment dropped, in WHATWG form. */
export function channelUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new ChannelInputError(`invalid URL "${input}": not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ChannelInputError(`invalid URL "${input}": alerts are sent over http or https, not ${url.protocol.replace(':', '')}`);
  }
  url.hash = '';
  return url.href;
}

/** A secret as it may be shown: its `whsec_` prefix at most. */
export function maskSecret(secret: string | null): string | null {
  if (secret === null) return null;
  return secret.startsWith(SECRET_PREFIX) ? `${SECRET_PREFIX}…` : '…';
}

/** A channel URL as it may be shown: no credentials, no query, and no token for Slack; an e-mail channel's addresses as they are. */
export function displayChannelUrl(channel: Pick<AlertChannel, 'kind' | 'url'>): string {
  if (channel.kind === 'email') return channel.url;
  let url: URL;
  try {
    url = new URL(channel.url);
  } catch {
    return '…';
  }
  let path = url.pathname;
  if (channel.kind === 'slack') {
    const segments = path.split('/');
    const last = segments.findLastIndex((s) => s !== '');
    if (last >= 0) segments[last] = '…';
    path = segments.join('/');
  }
  const credentials = url.username || url.password ? '…@' : '';
  return `${url.protocol}//${credentials}${url.host}${path}${url.search ? '?…' : ''}`;
}

function describeChannel(channel: AlertChannel): string {
  const delivery = channel.digest ? 'digest per run' : 'per alert';
  const signing = channel.kind !== 'webhook' ? '' : channel.secret ? ', signed' : ', unsigned';
  return `${channel.kind} ${displayChannelUrl(channel)} (min severity ${channel.minSeverity}, ${delivery}${signing})`;
}

/** `3` is an id; anything else a URL, read as `alerts add` stores it. */
function parseSelector(input: string): ChannelSelector {
  if (/^\d+$/.test(input.trim())) return Number(input.trim());
  return isMailto(input) ? parseMailto(input).url : channelUrl(input);
}

/** The channel `alerts add` stores: its kind and its URL as stored. Throws ChannelInputError or MailtoError. */
function channelOf(input: string, slack: boolean): { kind: AlertChannel['kind']; url: string } {
  if (!isMailto(input)) return { kind: slack ? 'slack' : 'webhook', url: channelUrl(input) };
  if (slack) throw new ChannelInputError('--slack: a mailto: channel is e-mail, not Slack');
  return { kind: 'email', url: parseMailto(input).url };
}

function writeTable(channels: AlertChannel[], io: CliIo): void {
  const rows = [
    ['ID', 'KIND', 'MIN', 'DIGEST', 'SECRET', 'ENABLED', 'URL'],
    ...channels.map((c) => [String(c.id), c.kind, c.minSeverity, c.digest ? 'yes' : 'no', maskSecret(c.secret) ?? '-', c.enabled ? 'yes' : 'no', displayChannelUrl(c)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) io.stdout.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}\n`);
}

/** `alerts test` for e-mail channels: one SMTP transport for them all, made when the first is tested. */
class TestMailer {
  private sender: MailSender | null = null;
  constructor(private readonly config: AppConfig) {}

  async send(channel: AlertChannel, at: Date): Promise<DeliveryResult> {
    const { ROBOTS_AUDIT_SMTP_URL: url, ROBOTS_AUDIT_MAIL_FROM: from } = this.config;
    if (url === null || from === null) {
      return { ok: false, status: null, error: 'e-mail is not set up: set ROBOTS_AUDIT_SMTP_URL and ROBOTS_AUDIT_MAIL_FROM', retryable: false, gone: false, durationMs: 0 };
    }
    this.sender ??= createMailSender({ url, from, timeoutMs: this.config.ROBOTS_AUDIT_SMTP_TIMEOUT_MS, maxConnections: 1 });
    return this.sender.send({
      to: parseMailto(channel.url).addresses,
      ...testMail(channel.id, at),
      messageId: `<robots-audit.test-ch${channel.id}-${at.getTime()}@${mailDomain(from)}>`,
      date: at,
      headers: { ...ALERT_MAIL_HEADERS },
    });
  }

  close(): void {
    this.sender?.close();
  }
}

function testLine(channel: AlertChannel, result: DeliveryResult): string {
  const name = `channel ${channel.id} ${channel.kind} ${displayChannelUrl(channel)}`;
  if (channel.kind === 'email') {
    if (result.ok) return `${name}: SMTP ${result.status}, accepted in ${result.durationMs} ms`;
    return `${name}: failed (${result.error ?? 'unknown error'})`;
  }
  if (result.ok) return `${name}: HTTP ${result.status}, delivered in ${result.durationMs} ms`;
  if (result.status === null) return `${name}: no response, failed (${result.error ?? 'unknown error'})`;
  const answer = (result.responseSnippet ?? '').split('\n')[0]!.slice(0, TEST_RESPONSE_PREVIEW_CHARS).trim();
  return `${name}: HTTP ${result.status}, failed${answer ? ` (${answer})` : ''}`;
}

export const registerAlertsCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const alerts = program.command('alerts').description(COMMAND_DESCRIPTIONS.alerts);

  const fail = (message: string) => {
    io.stderr.write(`robots-audit: ${message}\n`);
    io.exitCode = 1;
  };

  alerts
    .command('add')
    .description('Add an alert channel, or update the one with the same kind and URL.')
    .argument('<url>', 'the webhook URL (http or https), or mailto:name@example.com for e-mail (several addresses: comma-separated)')
    .option('--slack', 'a Slack incoming webhook (unsigned: its URL is the secret)')
    .option('--secret <secret>', 'sign deliveries with this Standard Webhooks secret (whsec_<base64>, or any string)')
    .option('--no-secret', 'stop signing: remove the stored secret')
    .addOption(new Option('--min-severity <severity>', 'least severe alert sent (default: warning)').choices(SEVERITIES))
    .option('--digest', 'one message per run instead of one per alert')
    .option('--no-digest', 'one message per alert (the default)')
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      `
Adding a channel again updates only the settings given, and enables it again.

E-mail (mailto:) goes through ROBOTS_AUDIT_SMTP_URL (smtp://user:pass@host:587, STARTTLS when the
server offers it; smtps:// for TLS from the start) from ROBOTS_AUDIT_MAIL_FROM: a text and an HTML
part, a stable Message-ID per alert, a link to the site's dashboard page when
ROBOTS_AUDIT_DASHBOARD_URL is set. "robots-audit alerts test" sends one.`,
    )
    .action(async (input: string, options: AddOptions) => {
      let kind: AlertChannel['kind'];
      let url: string;
      try {
        ({ kind, url } = channelOf(input, options.slack === true));
        if (typeof options.secret === 'string') {
          if (kind === 'slack') throw new ChannelInputError('--secret: Slack incoming webhooks are not signed (the URL is the secret)');
          if (kind === 'email') throw new ChannelInputError('--secret: e-mail is not signed');
          if (options.secret === '') throw new ChannelInputError('--secret: empty secret');
          secretKey(options.secret);
        }
      } catch (err) {
        return fail((err as Error).message);
      }
      const secret = typeof options.secret === 'string' ? options.secret : options.secret === false ? null : undefined;
      await withDatabase(options, async (db) => {
        const { channel, created } = await createChannelsRepo(db).addChannel({
          kind,
          url,
          ...(secret !== undefined ? { secret } : {}),
          ...(options.minSeverity !== undefined ? { minSeverity: options.minSeverity } : {}),
          ...(options.digest !== undefined ? { digest: options.digest } : {}),
        });
        io.stdout.write(`${created ? 'added' : 'updated'} channel ${channel.id}: ${describeChannel(channel)}\n`);
      });
    });

  alerts
    .command('list')
    .description('List the alert channels (secrets masked).')
    .option('--json', 'write a JSON array')
    .addOption(databaseUrlOption())
    .action(async (options: ListOptions) => {
      await withDatabase(options, async (db) => {
        const channels = await createChannelsRepo(db).listChannels();
        if (options.json) {
          const out = channels.map((c) => ({
            id: c.id,
            kind: c.kind,
            url: displayChannelUrl(c),
            minSeverity: c.minSeverity,
            digest: c.digest,
            secret: maskSecret(c.secret),
            enabled: c.enabled,
            createdAt: c.createdAt.toISOString(),
          }));
          io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        } else if (channels.length === 0) {
          io.stdout.write('no alert channels\n');
        } else {
          writeTable(channels, io);
        }
      });
    });

  alerts
    .command('remove')
    .description('Remove an alert channel (and its pending deliveries).')
    .argument('<id|url>', 'the channel id (see alerts list) or its URL')
    .addOption(databaseUrlOption())
    .action(async (input: string, options: DatabaseOptions) => {
      let selector: ChannelSelector;
      try {
        selector = parseSelector(input);
      } catch (err) {
        return fail((err as Error).message);
      }
      await withDatabase(options, async (db) => {
        const repo = createChannelsRepo(db);
        const found = await repo.findChannels(selector);
        if (found.length === 0) return fail(`no alert channel matches "${input}"`);
        await repo.removeChannel(selector);
        for (const channel of found) io.stdout.write(`removed channel ${channel.id}: ${channel.kind} ${displayChannelUrl(channel)}\n`);
      });
    });

  const test = alerts
    .command('test')
    .description('Send a test message now to one channel, or to every enabled channel, and show the answer.')
    .argument('[id|url]', 'the channel id or URL (default: every enabled channel)')
    .addOption(databaseUrlOption());
  addNetworkOptions(test)
    .addHelpText('after', '\nExit code 1 when any channel did not answer 2xx.')
    .action(async (input: string | undefined, options: TestOptions) => {
      let selector: ChannelSelector | undefined;
      let appConfig;
      let network;
      try {
        selector = input === undefined ? undefined : parseSelector(input);
        appConfig = pipelineConfig(io, {});
        network = networkSettings(options, appConfig);
      } catch (err) {
        return fail((err as Error).message);
      }
      const channels = await withDatabase(options, (db) => {
        const repo = createChannelsRepo(db);
        return selector === undefined ? repo.enabledChannels() : repo.findChannels(selector);
      });
      if (channels.length === 0) return fail(input === undefined ? 'no enabled alert channel to test' : `no alert channel matches "${input}"`);
      const dispatcher = createFetchDispatcher({ connectTimeoutMs: appConfig.ROBOTS_AUDIT_CONNECT_TIMEOUT_MS, ...network });
      const mail = new TestMailer(appConfig);
      try {
        for (const channel of channels) {
          const now = new Date();
          const result =
            channel.kind === 'email'
              ? await mail.send(channel, now)
              : await deliverWebhook({
                  url: channel.url,
                  kind: channel.kind,
                  body: testMessageBody(channel.kind, channel.id, now),
                  ...(channel.secret ? { secret: channel.secret } : {}),
                  messageId: `test-ch${channel.id}-${now.getTime()}`,
                  timeoutMs: appConfig.ROBOTS_AUDIT_WEBHOOK_TIMEOUT_MS,
                  dispatcher: dispatcher.agent,
                  userAgent: appConfig.ROBOTS_AUDIT_USER_AGENT,
                });
          io.stdout.write(`${testLine(channel, result)}\n`);
          if (!result.ok) io.exitCode = 1;
        }
      } finally {
        await dispatcher.close();
        mail.close();
      }
    });
};
