/**
 * `robots-audit demo`: the main job end to end on this machine, with nothing from the internet.
 * A loopback web serves robots.txt histories night after night: 2023 month by month (scripted
 * publishers blocking AI crawlers), then 29 July to 30 August 2025 night by night (21 real
 * histories, src/demo/data/README.md, beside scripted cases of the fetch rules). The demo
 * creates its own database (`robots_audit_demo` on the DATABASE_URL server), adds the sites,
 * tracks URLs, registers a webhook on a receiver that verifies every signature and an e-mail
 * digest on a loopback SMTP server, and replays the nights as `audit --at` records them, so every
 * stage runs for real. Then it tests the shop's staging robots.txt with `test-draft`, as a CI job
 * would have before it shipped. Between the two, the 2023 publishers' access log (synthetic,
 * src/demo/demo-log.ts) is imported after the operators' range files: each crawler request
 * judged by the robots.txt in force when it was made. It ends with the reports a user reads first,
 * the compliance report among them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import pg from 'pg';
import { demoPlan } from '../../demo/demo-plan.js';
import { DEMO_RANGE_FILES, DEMO_RANGES_DIR, demoAccessLog } from '../../demo/demo-log.js';
import type { DemoSite } from '../../demo/demo-sites.js';
import { SHOP_STAGING } from '../../demo/demo-sites.js';
import { startMailReceiver } from '../../demo/mail-receiver.js';
import { startDemoWeb } from '../../demo/demo-web.js';
import { loadDemoHistories } from '../../demo/histories.js';
import { startWebhookReceiver } from '../../demo/webhook-receiver.js';
import { deletePrefixKeys } from '../../queues/prefix-keys.js';
import { startPipelineWorkers } from '../../services/pipeline-workers.js';
import { prepareDatabase } from '../../services/prepare-database.js';
import { createRuntime } from '../../services/runtime.js';
import { nightLine, replayNight, settleAnalysis, settleDeliveries } from '../demo-nights.js';
import { demoReportsText } from '../demo-reports.js';
import type { CliIo } from '../io.js';
import { terminalWidth } from '../io.js';
import { COMMAND_DESCRIPTIONS, DEMO_DATABASE } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { createProgram, runProgram } from '../program.js';
import { registerAlertsCommand } from './alerts.command.js';
import { registerCrawlersCommand } from './crawlers.command.js';
import { registerLogsCommand } from './logs.command.js';
import { registerSitesCommand } from './sites.command.js';
import { registerTestDraftCommand } from './test-draft.command.js';
import { registerTrackCommand } from './track.command.js';
import type { ConnectionOptions } from '../pipeline-config.js';
import { addConnectionOptions, cliLogger, pipelineConfig, requireServices } from '../pipeline-config.js';

/** A database name the demo may drop and create: plain identifier characters only. */
const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** The width of the reports printed at the end when not on a terminal (they cut long cells to fit). */
export const DEMO_REPORT_WIDTH = 160;
/** Alert titles longer than this are cut (one names every Google crawler a group opened to). */
const ALERT_TITLE_CHARS = 150;
/** The webhook receiver's host name, pinned to 127.0.0.1 like the sites. */
const HOOKS_HOST = 'hooks.demo';
/** Where the demo's e-mail digests go (the loopback SMTP server takes any address). */
const DEMO_MAILBOX = 'mailto:seo@robots-audit.demo';
/** The dashboard the mails link to: where `robots-audit serve` listens by default, as the demo's last line says. */
const DEMO_DASHBOARD = 'http://127.0.0.1:8080';

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function databaseName(value: string): string {
  if (!DATABASE_NAME.test(value)) throw new InvalidArgumentError('a plain database name: lower-case letters, digits and _, at most 63');
  return value;
}

function withDatabaseName(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function recreateDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
}

/** What to run next on the demo's database, with what it shows. */
const MORE_COMMANDS: readonly (readonly [string, string])[] = [
  ['robots-audit report <status|changes|flips|ai-access|ai-use|failing|lint>', 'every report, all rows (--since 2023-01-01: the whole replay)'],
  ['robots-audit report portability', 'AI-crawler blocks other parsers misread (grin.com: python-urllib takes * literally)'],
  ['robots-audit history outage.demo', 'its nights: the 503s, full disallow, then the copy of D-3'],
  ['robots-audit history walled.demo', "a bot wall's nights: challenged, the last rules stand, two alerts"],
  ['robots-audit history cdn-pair.demo', 'two versions in turn: flapping, no alert a night, then settled'],
  ['robots-audit history signals.demo', 'a synthetic Content-Signal line turns AI training from yes to no: usage flips, one alert'],
  ['robots-audit diff www.giga.de.demo', 'what its robots.txt changed on 29 August, per crawler'],
  ['robots-audit explain gazette.demo /subscribers/weekend-edition --ua GPTBot', "why GPTBot may fetch what * may not"],
  ['robots-audit test-draft shop.demo <draft> [--format json|github]', 'a draft robots.txt against the one in force, before it ships'],
  ['robots-audit report violations', "every request a crawler made against the robots.txt in force: URL, time, deciding line, version"],
  ['robots-audit logs import <access.log> [--site <origin>]', 'your own server log (combined, vhost-combined, JSON Lines, Cloudflare Logpush; gzip too)'],
];

/** The commands the demo runs as a user would type them. */
const DEMO_COMMANDS: readonly CommandRegistrar[] = [registerAlertsCommand, registerSitesCommand, registerTrackCommand, registerTestDraftCommand, registerCrawlersCommand, registerLogsCommand];

/**
 * Runs one of the demo's command lines as `robots-audit` would, on a program of the demo's
 * commands alone: main.ts would import the table of commands, which imports this module.
 */
function runDemoCommand(argv: string[], io: CliIo): Promise<number> {
  return runProgram(argv, io, () => {
    const program = createProgram(io);
    for (const register of DEMO_COMMANDS) register(program, io);
    return program;
  });
}

export const registerDemoCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  addConnectionOptions(
    program
      .command('demo')
      .description(COMMAND_DESCRIPTIONS.demo)
      .option('--database-name <name>', 'the database the demo drops and creates on the DATABASE_URL server', databaseName, DEMO_DATABASE),
  ).action(async (options: ConnectionOptions & { databaseName: string }) => {
    const config = pipelineConfig(io, options);
    const database = options.databaseName;
    const demoUrl = withDatabaseName(config.DATABASE_URL, database);
    const say = (line = '') => io.stdout.write(`${line}\n`);
    // One line, before the database is touched, when Postgres or Redis does not answer.
    await requireServices(config);
    const started = Date.now();

    // Read first: a damaged data file stops the demo before it touches the database.
    const histories = loadDemoHistories();
    const plan = demoPlan(histories);

    await recreateDatabase(config.DATABASE_URL, database);
    await prepareDatabase(demoUrl);
    say(`== database ${database}: recreated and migrated`);

    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const web = await startDemoWeb(plan.hosts);
    const receiver = await startWebhookReceiver(secret, HOOKS_HOST);
    const mailbox = await startMailReceiver();
    // The demo's queues live under a prefix of their own, removed from Redis at the end.
    const queuePrefix = `robots-audit-demo-${randomBytes(4).toString('hex')}`;
    const env: Record<string, string> = {
      ...io.env,
      DATABASE_URL: demoUrl,
      REDIS_URL: config.REDIS_URL,
      ROBOTS_AUDIT_QUEUE_PREFIX: queuePrefix,
      ROBOTS_AUDIT_LOG_LEVEL: 'silent',
      // The demo web is on loopback: lift the SSRF guard for it, and only for it.
      ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8',
      ROBOTS_AUDIT_RESOLVE: '*.demo=127.0.0.1',
      // A 503 is retried within the night as in production, but once and 0.1 s later.
      ROBOTS_AUDIT_RETRY_DELAYS: '0.4',
      // A changed body is confirmed by a second fetch, 50 ms later on loopback.
      ROBOTS_AUDIT_CONFIRM_DELAY_MS: '50',
      // A delivery the receiver refuses is retried within the demo, not seconds later.
      ROBOTS_AUDIT_ALERT_BACKOFF_MS: '200',
      // E-mail digests to the loopback mailbox, linking to the dashboard the demo suggests serving.
      ROBOTS_AUDIT_SMTP_URL: mailbox.url,
      ROBOTS_AUDIT_MAIL_FROM: 'robots-audit demo <alerts@robots-audit.demo>',
      ROBOTS_AUDIT_DASHBOARD_URL: DEMO_DASHBOARD,
    };
    /** Runs a command as the user would type it; `shown` abbreviates a long one, and then its output too. */
    const run = async (argv: string[], shown?: string) => {
      say(`$ robots-audit ${(shown ?? argv.join(' ')).replace(secret, 'whsec_…')}`);
      const lines: string[] = [];
      const collect = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          done();
        },
      });
      const stdout = shown === undefined ? io.stdout : collect;
      const code = await runDemoCommand([...argv, '--database-url', demoUrl], { ...io, stdout, env });
      if (lines.length > 0) say(lines.length === 1 ? lines[0] : `${lines[0]}\n… ${lines.length - 1} more lines like it`);
      if (code !== 0) throw new Error(`robots-audit ${argv[0]} exited with ${code}`);
    };
    const addSites = async (sites: readonly DemoSite[]) => {
      for (const portfolio of new Set(sites.map((s) => s.portfolio))) {
        const origins = sites.filter((s) => s.portfolio === portfolio).map((s) => web.origin(s.host));
        const argv = ['sites', 'add', ...origins, '--portfolio', portfolio];
        await run(argv, origins.length > 4 ? ['sites', 'add', ...origins.slice(0, 2), `… (${origins.length} sites)`, '--portfolio', portfolio].join(' ') : undefined);
      }
      for (const site of sites.filter((s) => s.tracked.length > 0)) await run(['track', web.origin(site.host), ...site.tracked]);
      for (const site of sites.filter((s) => s.tracked.length > 0)) say(`   ${site.host}: ${site.story}`);
    };

    const runtimeConfig = pipelineConfig({ ...io, env }, {});
    let workers: ReturnType<typeof startPipelineWorkers> | null = null;
    let rt: Awaited<ReturnType<typeof createRuntime>> | null = null;
    try {
      say(`== demo web on 127.0.0.1:${web.port} (*.demo); signed webhook receiver at ${receiver.url}; SMTP server at ${mailbox.url}`);
      say(`   (each command below runs with --database-url for ${database}; queues under the Redis prefix ${queuePrefix}, removed at the end)`);
      await run(['alerts', 'add', receiver.url, '--secret', secret, '--min-severity', 'warning']);
      await run(['alerts', 'add', DEMO_MAILBOX, '--digest', '--min-severity', 'warning']);
      rt = await createRuntime(runtimeConfig, cliLogger(runtimeConfig, io, 'error'));
      workers = startPipelineWorkers(rt);

      for (const [i, part] of plan.parts.entries()) {
        say();
        say(`== part ${i + 1}: ${part.title}: ${part.about}`);
        await addSites(part.sites);
        say(`   each night below is the run \`robots-audit audit --wait --at <night>\` makes (one worker kept across nights)`);
        for (const night of part.nights) {
          web.setNight(night);
          const replayed = await replayNight(rt, night);
          say(nightLine(night, replayed));
          for (const alert of replayed.alerts) say(`      [${alert.severity}] ${cut(alert.title, ALERT_TITLE_CHARS)}`);
        }
      }
      say();
      say("== do crawlers obey? the 2023 publishers' access log, each crawler request judged by the robots.txt in force when it was made");
      for (const { source, file } of DEMO_RANGE_FILES) {
        await run(['crawlers', 'ranges', 'import', fileURLToPath(new URL(file, DEMO_RANGES_DIR)), '--source', source], `crawlers ranges import ${file} --source ${source}`);
      }
      const logDir = mkdtempSync(join(tmpdir(), 'robots-audit-demo-'));
      try {
        const logPath = join(logDir, 'access.log');
        writeFileSync(logPath, demoAccessLog());
        // The demo is offline: no reverse DNS (the crawlers above publish range files).
        await run(['logs', 'import', logPath, '--no-dns']);
      } finally {
        rmSync(logDir, { recursive: true, force: true });
      }
      const pending = await settleDeliveries(rt);
      // `report portability` at the end reads the findings the analysis job stores after each run.
      await settleAnalysis(rt);
      say();
      say(
        `== webhook: ${receiver.verified.length} alerts received with a valid signature (Standard Webhooks, HMAC-SHA256)` +
          `, ${receiver.rejected.length} rejected` +
          (receiver.rejected.length > 0 ? ` (${[...new Set(receiver.rejected)].join(', ')})` : '') +
          (pending > 0 ? `; ${pending} deliveries still pending` : ''),
      );
      const mails = mailbox.received;
      const bothParts = mails.filter((m) => m.parts.includes('text/plain') && m.parts.includes('text/html')).length;
      say(`== e-mail: ${mails.length} digests received by the SMTP server (one per night with alerts of at least warning), ${bothParts} of them with a text and an HTML part`);
      if (mails[0]) say(`   e.g. "${cut(mails[0].subject, ALERT_TITLE_CHARS)}", Message-ID ${mails[0].messageId}`);
    } finally {
      // Every job is done by now: a grace lets the workers close without cutting Redis connections.
      await workers?.close(runtimeConfig.ROBOTS_AUDIT_SHUTDOWN_GRACE_MS);
      await rt?.close();
      await web.close();
      await receiver.close();
      await mailbox.close();
      await deletePrefixKeys(config.REDIS_URL, queuePrefix);
    }

    // Before it ships: the shop's staging file, tested as a CI job would have in April 2023.
    say();
    say("== before it ships: the shop's staging robots.txt (Disallow: /) against the one in force, as a merge request's check (docs/ci.md)");
    say('$ robots-audit test-draft shop.demo - < staging-robots.txt');
    const code = await runDemoCommand(['test-draft', 'shop.demo', '-', '--database-url', demoUrl], { ...io, stdin: Readable.from([Buffer.from(SHOP_STAGING)]), env });
    say(`   exit code ${code}: ${code === 1 ? 'the check fails, the staging file does not ship' : 'the check passes'}`);

    const pool = new pg.Pool({ connectionString: demoUrl, max: 2 });
    try {
      io.stdout.write(await demoReportsText(pool, terminalWidth(io) ?? DEMO_REPORT_WIDTH));
    } finally {
      await pool.end();
    }

    const url = `--database-url '${demoUrl}'`;
    say();
    say(`== done in ${((Date.now() - started) / 1000).toFixed(1)} s; everything is in ${database}. More (each with ${url}):`);
    for (const [command, what] of MORE_COMMANDS) say(`   ${command.padEnd(78)} ${what}`);
    say(`   psql '${demoUrl}'   the reporting views, with the queries of docs/sql-reporting.md`);
    say(`== see it in a browser: robots-audit serve --database-url '${demoUrl}'   then open http://127.0.0.1:8080/`);
  });
};
