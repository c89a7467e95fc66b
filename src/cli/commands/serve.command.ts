/**
 * `robots-audit serve [--host 127.0.0.1] [--port 8080]`: the read-only web dashboard
 * (src/web) on the database of DATABASE_URL or --database-url. On loopback it needs nothing
 * more; on any other address it refuses to start without ROBOTS_AUDIT_DASHBOARD_TOKEN, which
 * every request must then carry. Runs until SIGINT or SIGTERM.
 */
import type { Command } from 'commander';
import { assertReadOnlySession, createDb } from '../../db/client.js';
import { assertMigrated } from '../../db/migrate.js';
import { drizzle } from 'drizzle-orm/node-postgres';
import { isLoopbackHost } from '../../web/auth.js';
import { createDashboard } from '../../web/server.js';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { cliLogger, pipelineConfig } from '../pipeline-config.js';
import { databaseErrorMessage, databaseUrlOption } from '../with-database.js';
import { untilStopped } from '../../../workers/shutdown.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
/** Connections the pages use (a page runs a few queries at once); each CSV download running has one more. */
const POOL_SIZE = 8;

interface ServeOptions {
  host: string;
  port: string;
  databaseUrl?: string;
}

const fail = (io: CliIo, message: string) => {
  io.stderr.write(`robots-audit: serve: ${message}\n`);
  io.exitCode = 1;
};

/** The database's name as the footer shows it (never the URL: it may hold a password). */
function databaseName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || '(default)';
  } catch {
    return '(unknown)';
  }
}

export const registerServeCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('serve')
    .description(COMMAND_DESCRIPTIONS.serve)
    .option('--host <address>', 'address to listen on', DEFAULT_HOST)
    .option('--port <port>', 'port to listen on (0: any free port)', String(DEFAULT_PORT))
    .addOption(databaseUrlOption())
    .action(async (options: ServeOptions) => {
      const config = pipelineConfig(io, options.databaseUrl ? { databaseUrl: options.databaseUrl } : {});
      const port = Number(options.port);
      if (!/^\d{1,5}$/.test(options.port) || port > 65_535) return fail(io, `--port "${options.port}": give a port number, 0 to 65535`);
      const token = config.ROBOTS_AUDIT_DASHBOARD_TOKEN;
      if (!isLoopbackHost(options.host) && token === null) {
        return fail(
          io,
          `refusing to listen on ${options.host} without ROBOTS_AUDIT_DASHBOARD_TOKEN: anyone who reaches that address would read the portfolio (set a token of 16 characters or more, or listen on 127.0.0.1)`,
        );
      }
      const log = cliLogger(config, io);
      const handle = createDb(config.DATABASE_URL, { max: POOL_SIZE + config.ROBOTS_AUDIT_DASHBOARD_DOWNLOADS, applicationName: 'robots-audit dashboard', readOnly: true, jit: false });
      try {
        await assertMigrated(drizzle(handle.pool));
        await assertReadOnlySession(handle.pool);
      } catch (err) {
        await handle.close();
        return fail(io, databaseErrorMessage(err));
      }
      const name = databaseName(config.DATABASE_URL);
      const app = await createDashboard({
        pool: handle.pool,
        token,
        databaseName: name,
        log,
        trustProxy: config.ROBOTS_AUDIT_DASHBOARD_TRUST_PROXY,
        sessionSeconds: config.ROBOTS_AUDIT_DASHBOARD_SESSION_SECONDS,
        loginFailuresPerMinute: config.ROBOTS_AUDIT_DASHBOARD_LOGIN_FAILURES,
        downloads: config.ROBOTS_AUDIT_DASHBOARD_DOWNLOADS,
        compute: { timeoutMs: config.ROBOTS_AUDIT_DASHBOARD_COMPUTE_MS, threads: config.ROBOTS_AUDIT_DASHBOARD_COMPUTE_THREADS },
      });
      try {
        await app.listen({ host: options.host, port });
      } catch (err) {
        await handle.close();
        return fail(io, `cannot listen on ${options.host}:${options.port}: ${err instanceof Error ? err.message : String(err)}`);
      }
      const address = app.server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
      io.stdout.write(`robots-audit dashboard: http://${shown}:${bound}/ (database ${name}, read-only${token === null ? '' : ', token required'})\n`);
      // Until SIGINT or SIGTERM, or the caller's abort signal (in-process callers, tests).
      await untilStopped(io.signal);
      await app.close();
      await handle.close();
    });
};
