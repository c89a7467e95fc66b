/**
 * `robots-audit logs import <file|->`: a server's access log (gzip read as such) imported and
 * judged (src/services/logs/log-import.service.ts, docs/compliance.md): its crawler requests kept,
 * each checked against its operator's published ranges or reverse DNS and judged by the robots.txt
 * in force when it was made. A progress line on a terminal, a summary at the end; the first lines
 * that could not be read shown escaped. Importing the same lines again adds nothing; an
 * interrupted import run again resumes.
 */
import dns from 'node:dns';
import type { Command } from 'commander';
import { Option } from 'commander';
import type { CliIo } from '../io.js';
import { commandConfig } from '../command-config.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import { LOG_FORMATS } from '../../logs/log-formats.js';
import type { LogFormat } from '../../logs/log-formats.js';
import { CLOUDFLARE_LOGPUSH_HTTP, parseFieldMapping } from '../../logs/json-lines.js';
import { importLog } from '../../services/logs/log-import.service.js';
import { queueDeliveries } from '../../services/logs/queue-deliveries.js';
import type { LogImportSummary } from '../../services/logs/log-import.service.js';
import { createReverseDnsChecker, REVERSE_DNS_DEFAULTS } from '../../http/reverse-dns.js';
import { ROBOTS_TXT_CACHE_HOURS } from '../../compliance/vocabulary.js';
import { terminalText } from '../../reports/terminal-text.js';

interface ImportOptions extends DatabaseOptions {
  format: LogFormat | 'auto';
  fields?: string;
  site?: string;
  dns: boolean;
  dnsServer?: string[];
  cacheHours: string;
  json?: boolean;
}

/** A progress line at most this often on a terminal. */
const PROGRESS_EVERY_MS = 500;

export const registerLogsCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const logs = program.command('logs').description(COMMAND_DESCRIPTIONS.logs);
  logs
    .command('import')
    .description('Import a server access log (a path, or - for standard input; gzip read as such): keep its crawler requests, check who sent them, judge each by the robots.txt in force then.')
    .argument('<file>', 'the log: a path, or - for standard input')
    .addOption(new Option('--format <format>', 'the log format').choices(['auto', ...LOG_FORMATS]).default('auto'))
    .option('--fields <mapping>', 'jsonl: the fields, e.g. at=ts,clientIp=ip,host=host,target=uri,status=status,userAgent=ua,method=method')
    .option('--site <origin>', 'file every request under this monitored site (a log without a host field needs it)')
    .option('--no-dns', 'no reverse DNS: crawlers whose operators publish no IP ranges stay unverifiable')
    .option('--dns-server <host:port...>', 'the DNS servers to check identities with (default: ROBOTS_AUDIT_VERIFY_DNS_SERVERS, else the system\'s)')
    .option('--cache-hours <n>', 'the robots.txt cache window (RFC 9309 section 2.4)', String(ROBOTS_TXT_CACHE_HOURS))
    .option('--json', 'print the summary as JSON')
    .addOption(databaseUrlOption())
    .action(async (file: string, options: ImportOptions) => {
      const cacheHours = Number(options.cacheHours);
      if (!/^\d+(\.\d+)?$/.test(options.cacheHours) || !Number.isFinite(cacheHours)) {
        io.stderr.write(`robots-audit: --cache-hours: not a number of hours: "${options.cacheHours}"\n`);
        io.exitCode = 2;
        return;
      }
      let fields;
      try {
        fields = options.fields !== undefined ? parseFieldMapping(options.fields) : options.format === 'cloudflare' ? CLOUDFLARE_LOGPUSH_HTTP : undefined;
      } catch (err) {
        io.stderr.write(`robots-audit: --fields: ${(err as Error).message}\n`);
        io.exitCode = 2;
        return;
      }
      if (options.format === 'jsonl' && fields === undefined) {
        io.stderr.write('robots-audit: --format jsonl needs --fields (or --format cloudflare for Logpush)\n');
        io.exitCode = 2;
        return;
      }
      const cfg = commandConfig(io);
      const servers = options.dnsServer ?? (cfg.ROBOTS_AUDIT_VERIFY_DNS_SERVERS.length > 0 ? cfg.ROBOTS_AUDIT_VERIFY_DNS_SERVERS : dns.getServers());
      const reverseDns = options.dns
        ? createReverseDnsChecker({ ...REVERSE_DNS_DEFAULTS, servers, timeoutMs: cfg.ROBOTS_AUDIT_VERIFY_DNS_TIMEOUT_MS, cacheEntries: cfg.ROBOTS_AUDIT_VERIFY_DNS_CACHE_ENTRIES })
        : null;
      const progressOut = io.stderr as NodeJS.WriteStream;
      const tty = Boolean(progressOut.isTTY);
      let shownAt = 0;
      try {
        const summary = await withDatabase(options, (_db, pool) =>
          importLog(pool, {
            input: file === '-' ? { stream: io.stdin, name: '-' } : file,
            format: options.format,
            ...(fields === undefined ? {} : { fields }),
            ...(options.site === undefined ? {} : { siteOrigin: options.site }),
            reverseDns,
            cacheHours,
            onProgress: (p) => {
              if (!tty || Date.now() - shownAt < PROGRESS_EVERY_MS) return;
              shownAt = Date.now();
              progressOut.write(`\r${p.lines.toLocaleString('en-US')} lines, ${p.crawlerRequests.toLocaleString('en-US')} crawler requests, ${p.stored.toLocaleString('en-US')} stored`);
            },
          }),
        );
        if (tty && shownAt > 0) progressOut.write('\r\x1b[K');
        io.stdout.write(options.json ? `${JSON.stringify(summaryJson(summary))}\n` : summaryText(summary));
        const notQueued = await queueDeliveries(cfg, summary.deliveryIds);
        if (notQueued !== null) {
          io.stderr.write(`robots-audit: logs import: ${summary.deliveryIds.length} alert deliveries stay pending (Redis: ${notQueued}); the scheduler queues them when it next reconciles\n`);
        }
      } catch (err) {
        if (tty && shownAt > 0) progressOut.write('\n');
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'EISDIR' || /^--site|not a log format|names no host|differs from the import/.test(e.message) || e.message.startsWith(`${file}:`)) {
          io.stderr.write(`robots-audit: logs import: ${terminalText(e.message)}\n`);
          io.exitCode = 1;
          return;
        }
        throw err;
      } finally {
        reverseDns?.close?.();
      }
    });
};

function summaryJson(s: LogImportSummary) {
  const { deliveryIds: _ids, ...rest } = s;
  return { ...rest, unmatchedHosts: Object.fromEntries(s.unmatchedHosts) };
}

/** The summary: counts, then the hosts no site has (the most frequent), then the lines that could not be read, escaped. */
export function summaryText(s: LogImportSummary): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const out = [
    `import #${s.importId} (${s.format}): ${n(s.lines)} lines read${s.resumedAfter > 0 ? ` (resumed after line ${n(s.resumedAfter)})` : ''}, ${n(s.crawlerRequests)} crawler requests, ` +
      `${n(s.stored)} stored${s.alreadyStored > 0 ? `, ${n(s.alreadyStored)} already stored` : ''}, ${n(s.unmatched)} for hosts no site has, ${n(s.unreadable)} lines could not be read`,
  ];
  if (s.dnsStopped !== null) out.push(`reverse DNS stopped: ${s.dnsStopped}; the requests it would have checked after that are unverifiable`);
  if (s.alerts > 0) out.push(`${n(s.alerts)} alerts (crawler_ignored_robots, crawler_spoofed): robots-audit report alerts`);
  const hosts = [...s.unmatchedHosts].sort((a, b) => b[1] - a[1]).slice(0, 5);
  if (hosts.length > 0) out.push(`hosts without a site: ${hosts.map(([h, c]) => `${terminalText(h === '' ? '(none)' : h)} (${n(c)})`).join(', ')}`);
  for (const e of s.errors) out.push(`line ${n(e.line)}: ${terminalText(e.reason)}: ${terminalText(e.text)}`);
  if (s.unreadable > s.errors.length) out.push(`… and ${n(s.unreadable - s.errors.length)} more lines that could not be read`);
  if (s.crawlerRequests > 0) out.push('see: robots-audit report compliance');
  return `${out.join('\n')}\n`;
}
