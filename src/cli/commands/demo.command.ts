/**
 * `robots-audit demo`: the main job end to end on this machine, with nothing from the internet.
 * A demo web on 127.0.0.1 serves four sites whose robots.txt changes over three nights; the demo
 * creates its own database (`robots_audit_demo` on the DATABASE_URL server), adds the sites,
 * tracks URLs, registers a signed webhook, and replays the nights with `audit --wait --work
 * --at`, so every stage runs for real: fetch rules, snapshots, diffs, verdict flips, alerts and
 * their delivery.
 */
import { randomBytes } from 'node:crypto';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import pg from 'pg';
import { migrateDatabase } from '../../db/migrate.js';
import { DEMO_NIGHTS, DEMO_SITES } from '../../demo/demo-sites.js';
import { startDemoWeb } from '../../demo/demo-web.js';
import { deletePrefixKeys } from '../../queues/prefix-keys.js';
import type { CliIo } from '../io.js';
import type { CommandRegistrar } from '../main.js';
import type { ConnectionOptions } from '../pipeline-config.js';
import { addConnectionOptions, pipelineConfig } from '../pipeline-config.js';

export const DEMO_DATABASE = 'robots_audit_demo';
/** A database name the demo may drop and create: plain identifier characters only. */
const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

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

export const registerDemoCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  addConnectionOptions(
    program
      .command('demo')
      .description(`Run the whole pipeline on a local demo web over three nights (recreates the database ${DEMO_DATABASE}).`)
      .option('--database-name <name>', 'the database the demo drops and creates on the DATABASE_URL server', databaseName, DEMO_DATABASE),
  ).action(async (options: ConnectionOptions & { databaseName: string }) => {
    // Imported here: main.ts imports this module, so a top-level import would be circular.
    const { main } = await import('../main.js');
    const config = pipelineConfig(io, options);
    const database = options.databaseName;
    const demoUrl = withDatabaseName(config.DATABASE_URL, database);
    const say = (line = '') => io.stdout.write(`${line}\n`);

    say(`== database ${database}: recreated and migrated`);
    await recreateDatabase(config.DATABASE_URL, database);
    await migrateDatabase(demoUrl);

    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const web = await startDemoWeb(DEMO_SITES, secret, (line) => say(`   ${line}`));
    const origin = (host: string) => `http://${host}:${web.port}`;
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
      ROBOTS_AUDIT_RETRY_DELAYS: '0.2,0.2',
      ROBOTS_AUDIT_RETRY_AFTER_CAP: '0.5',
    };
    const run = async (argv: string[]) => {
      say(`$ robots-audit ${argv.join(' ').replace(secret, 'whsec_…')}`);
      const code = await main(argv, { ...io, env });
      if (code !== 0) throw new Error(`robots-audit ${argv[0]} exited with ${code}`);
    };

    try {
      for (const portfolio of new Set(DEMO_SITES.map((s) => s.portfolio))) {
        await run(['sites', 'add', ...DEMO_SITES.filter((s) => s.portfolio === portfolio).map((s) => origin(s.host)), '--portfolio', portfolio, '--database-url', demoUrl]);
      }
      for (const site of DEMO_SITES) {
        await run(['track', origin(site.host), ...site.tracked, '--database-url', demoUrl]);
      }
      await run(['alerts', 'add', `http://hooks.demo:${web.port}/webhook`, '--secret', secret, '--min-severity', 'warning', '--database-url', demoUrl]);
      for (const [i, night] of DEMO_NIGHTS.entries()) {
        web.setNight(i);
        say();
        say(`== night ${i + 1}: ${night}`);
        await run(['audit', '--wait', '--work', '--at', night, '--database-url', demoUrl]);
      }
      say();
      say(`== ${web.received.length} alerts delivered to the signed webhook; everything is in ${database}:`);
      say(`   psql '${demoUrl}' -c 'select * from verdict_flips'`);
      say(`   psql '${demoUrl}' -c 'select origin, outcome, policy, policy_reason from site_latest'`);
      say(`   psql '${demoUrl}' -c "select origin, url, token from verdict_latest where not allowed"`);
    } finally {
      await web.close();
      await deletePrefixKeys(config.REDIS_URL, queuePrefix);
    }
  });
};
