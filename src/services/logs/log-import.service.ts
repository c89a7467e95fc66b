/**
 * `robots-audit logs import`: a server's access log, streamed once (docs/compliance.md):
 * 1. each line's user-agent is read first, cheaply, and matched to the crawler catalogue and the
 *    configured agents; a line that names no crawler is dropped there (the rest of the traffic is
 *    never parsed, kept or logged);
 * 2. a crawler line is parsed, filed under its monitored site (by host, or `--site`), and checked
 *    against its operator's published IP ranges of its day or forward-confirmed reverse DNS;
 * 3. it is judged by the site's robots.txt in force when it was made (src/compliance), and stored
 *    with the import's checkpoint, a batch a transaction; lines stored before add nothing;
 * 4. at the end, the import's verified violations and spoofed claims raise their alerts.
 * Memory is bounded by two batches (one stored while the next is read), the sites held
 * (`MAX_JUDGED_SITES`) and the caches, never by the log's size. An interrupted import run again
 * resumes after its last committed line.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { inTransaction } from '../../db/transaction.js';
import { advanceImport, finishImport, openImport, rangeFiles, restartImport, siteByOrigin, sitesByHost, storeCrawlerRequests } from '../../db/compliance.repo.js';
import type { CrawlerRequestRow, ImportProgress, SiteByHost } from '../../db/compliance.repo.js';
import { detectLogFormat, logLineReader } from '../../logs/log-formats.js';
import type { LogFormat } from '../../logs/log-formats.js';
import type { JsonFieldMapping } from '../../logs/json-lines.js';
import { isLogLineError } from '../../logs/log-request.js';
import type { LogRequest } from '../../logs/log-request.js';
import { compileAgentMatcher } from '../../crawlers/identity/agent-match.js';
import type { AgentMatcher } from '../../crawlers/identity/agent-match.js';
import { judgeIdentity, needsReverseDns } from '../../crawlers/identity/index.js';
import type { ReverseDnsAnswer } from '../../crawlers/identity/index.js';
import { catalogue, isBoundByRobotsTxt } from '../../crawlers/index.js';
import { RangeBook } from '../../compliance/range-book.js';
import { ROBOTS_TXT_CACHE_HOURS } from '../../compliance/vocabulary.js';
import { normalizeOrigin } from '../../robots/origin.js';
import { isValidUserAgentToObey } from '../../robots/index.js';
import { ruleLine } from '../../robots/diff.js';
import { readLogLineBatches, LOG_MAX_LINE_BYTES } from './line-source.js';
import type { LogLine } from './line-source.js';
import { SiteJudges } from './site-judges.js';
import { raiseComplianceAlerts } from './compliance-alerts.js';

/** Checks an address by forward-confirmed reverse DNS (src/http/reverse-dns.ts). */
export interface ReverseDnsCheck {
  check(ip: string): Promise<ReverseDnsAnswer>;
}

export interface LogImportOptions {
  /** A path, or a stream (standard input) with the name to record for it (`-`). */
  input: string | { stream: Readable; name: string };
  format: LogFormat | 'auto';
  /** JSON Lines: the fields (the `cloudflare` format brings its own). */
  fields?: JsonFieldMapping;
  /** File every request under this site (an origin already monitored), whatever its host. */
  siteOrigin?: string;
  /** Reverse DNS for the crawlers whose operators document it; null: no DNS (those are unverifiable). */
  reverseDns: ReverseDnsCheck | null;
  /** RFC 9309 section 2.4's cache window, hours. */
  cacheHours?: number;
  /** Crawler requests per transaction. */
  batchRequests?: number;
  /** Lines read between checkpoints when few are crawlers' (the checkpoint still moves on). */
  checkpointLines?: number;
  /** Reverse DNS lookups in flight at once. */
  dnsConcurrency?: number;
  /** Distinct addresses looked up at most; past it, requests DNS would check are unverifiable. */
  maxDnsAddresses?: number;
  onProgress?: (progress: LogImportProgress) => void;
}

export interface LogImportProgress {
  lines: number;
  crawlerRequests: number;
  stored: number;
}

export interface LogImportSummary {
  importId: number;
  format: LogFormat;
  /** Lines read by this run (a resumed one starts after the lines done before). */
  lines: number;
  /** Lines skipped because an earlier run of the same import committed them. */
  resumedAfter: number;
  crawlerRequests: number;
  /** Crawler requests stored now; the rest were stored by an earlier import of the same lines. */
  stored: number;
  alreadyStored: number;
  /** Crawler requests for hosts no monitored site has. */
  unmatched: number;
  unmatchedHosts: Map<string, number>;
  unreadable: number;
  /** The first lines that could not be read (the text as read: show it escaped). */
  errors: { line: number; reason: string; text: string }[];
  alerts: number;
  /** Why reverse DNS stopped being asked during the import (its later requests unverifiable); null when it never did. */
  dnsStopped: string | null;
  /** The alert deliveries this import created: queued by the caller (or by the scheduler's reconcile loop). */
  deliveryIds: number[];
}

export const LOG_IMPORT_DEFAULTS = {
  batchRequests: 2_000,
  checkpointLines: 200_000,
  dnsConcurrency: 16,
  /**
   * Distinct addresses an import looks up at most: the crawlers of a real log come from a few
   * thousand; a log whose every line claims Googlebot from another address would otherwise cost
   * a lookup each (seconds each on a slow resolver).
   */
  maxDnsAddresses: 20_000,
  /** Failed lookups in a row after which an import asks DNS no more (a resolver that is down). */
  dnsFailuresToStop: 32,
  /** Unreadable lines shown in the summary and kept with the import. */
  maxErrorsShown: 5,
  /** The bytes of the log's start hashed into the import's key. */
  keyBytes: 64 * 1024,
  /** Distinct hosts without a site counted for the summary (the rest are counted together). */
  maxUnmatchedHosts: 1_000,
  /** User-agent strings whose stored id is remembered across batches (all forgotten past it). */
  agentIdsRemembered: 10_000,
  /** User-agents whose claim is remembered (all forgotten when full), and the longest remembered: 10 MB at most. */
  claimsRemembered: 10_000,
  claimRememberedChars: 512,
} as const;

interface PendingRequest {
  request: LogRequest;
  token: string;
  site: SiteByHost;
  lineKey: Buffer;
}

/** A log line shown in the summary: at most this long. */
const ERROR_TEXT_CHARS = 200;

export async function importLog(pool: pg.Pool, options: LogImportOptions): Promise<LogImportSummary> {
  const batchRequests = options.batchRequests ?? LOG_IMPORT_DEFAULTS.batchRequests;
  const checkpointLines = options.checkpointLines ?? LOG_IMPORT_DEFAULTS.checkpointLines;
  const cacheHours = options.cacheHours ?? ROBOTS_TXT_CACHE_HOURS;
  const name = typeof options.input === 'string' ? options.input : options.input.name;

  const hosts = await sitesByHost(pool);
  const fixedSite = options.siteOrigin === undefined ? null : await siteOf(pool, hosts, options.siteOrigin);
  const { rows: agentRows } = await pool.query<{ token: string }>('select token from user_agents');
  // A configured agent that is no product token (accepted with a warning by `agents add`) can
  // stand whole in no header: it claims nothing, as it matches no named group.
  const tokens = [...new Set([...catalogue().map((c) => c.token), ...agentRows.map((r) => r.token)])].filter((t) => t !== '*' && isValidUserAgentToObey(t));
  const claimedToken = rememberedClaims(compileAgentMatcher(tokens));
  const ranges = new RangeBook(await rangeFiles(pool));
  const judges = new SiteJudges(pool);
  const agentIds = new Map<string, number>();

  const open = () => readLogLineBatches(typeof options.input === 'string' ? options.input : options.input.stream, { maxLineBytes: LOG_MAX_LINE_BYTES });
  let batches = open()[Symbol.asyncIterator]();
  // The log's start: the format (when not given) and the import's key. The batches read for it
  // are read again below.
  const head: LogLine[][] = [];
  const keyLines: { lineNo: number; text: string }[] = [];
  let headBytes = 0;
  while (headBytes < LOG_IMPORT_DEFAULTS.keyBytes) {
    const next = await batches.next();
    if (next.done) break;
    head.push(next.value);
    for (const line of next.value) {
      if (headBytes >= LOG_IMPORT_DEFAULTS.keyBytes) break;
      const text = 'tooLong' in line ? line.prefix : line.text;
      keyLines.push({ lineNo: line.lineNo, text });
      headBytes += text.length + 1;
    }
  }
  const format = options.format === 'auto' ? detectLogFormat(keyLines.slice(0, 20).map((l) => l.text).filter((t) => t.trim() !== '')) : options.format;
  if (format === null) throw new Error(`${name}: not a log format this reads (combined, vhost-combined, jsonl, cloudflare); give --format`);
  const reader = logLineReader(format, options.fields);
  if (fixedSite === null && (format === 'combined' || (format === 'jsonl' && options.fields?.host === undefined))) {
    throw new Error(`${name}: the ${format} format names no host; give --site <origin> to file its requests under a site`);
  }
  const key = createHash('sha256')
    .update(JSON.stringify([format, options.fields ?? null, fixedSite?.id ?? null]))
    .update(keyLines.map((l) => l.text).join('\n'))
    .digest();
  const row = await openImport(pool, { key, name, format, siteId: fixedSite?.id ?? null });

  let resumeAfter = row.linesDone;
  const summary: LogImportSummary = {
    importId: row.id,
    format,
    lines: 0,
    resumedAfter: 0,
    crawlerRequests: 0,
    stored: 0,
    alreadyStored: 0,
    unmatched: 0,
    unmatchedHosts: new Map(),
    unreadable: 0,
    errors: [],
    alerts: 0,
    dnsStopped: null,
    deliveryIds: [],
  };

  // Counts since the last checkpoint, committed with it.
  let pending: PendingRequest[] = [];
  const noCounts = () => ({ crawlerLines: 0, unreadable: 0, unmatched: 0, errors: [] as ImportProgress['errors'], lines: 0 });
  let sinceCheckpoint = noCounts();
  // Identical lines of the same second are distinct requests: their ordinal is part of the key.
  let ordinalSecond = Number.NaN;
  const ordinals = new Map<string, number>();

  // A batch is judged and stored while the next one is read (Postgres works on another core, and
  // the reading goes on while it does); a flush first waits for the batch before it, so batches
  // commit in order and a checkpoint never passes a line not stored. Two batches are held at most.
  let storing: Promise<void> = Promise.resolve();
  const flush = async (lineNo: number, lineText: string) => {
    await storing;
    const batch = pending;
    pending = [];
    const counts = sinceCheckpoint;
    sinceCheckpoint = noCounts();
    storing = store(batch, counts, lineNo, lineText);
    // Its failure is thrown where it is awaited: by the next flush, or at the end.
    storing.catch(() => {});
  };

  const store = async (batch: readonly PendingRequest[], counts: Omit<ImportProgress, 'linesDone' | 'checkpoint'>, lineNo: number, lineText: string) => {
    const rows = await judgeBatch(batch);
    const checkpoint = createHash('sha256').update(lineText).digest();
    const stored = await inTransaction(pool, async (client) => {
      const n = await storeCrawlerRequests(client, row.id, rows, agentIds);
      await advanceImport(client, row.id, { linesDone: lineNo, checkpoint, ...counts }, n, LOG_IMPORT_DEFAULTS.maxErrorsShown);
      return n;
    });
    if (agentIds.size > LOG_IMPORT_DEFAULTS.agentIdsRemembered) agentIds.clear();
    summary.stored += stored;
    summary.alreadyStored += rows.length - stored;
    options.onProgress?.({ lines: summary.lines, crawlerRequests: summary.crawlerRequests, stored: summary.stored });
  };

  const judgeBatch = async (batch: readonly PendingRequest[]): Promise<CrawlerRequestRow[]> => {
    await judges.load(new Map(batch.map((p) => [p.site.id, p.site.origin])));
    // By the range files of each request's day first; by reverse DNS again only where it answered.
    const identityInput = (p: PendingRequest) => ({ token: p.token, ip: p.request.clientIp, rangesOf: (source: string) => ranges.setFor(source, p.request.at) });
    const byRanges = batch.map((p) => judgeIdentity(identityInput(p)));
    const dns = await reverseDnsOf(batch.filter((p, i) => needsReverseDns(p.token, byRanges[i]!.identity === 'verified')));
    return batch.map((p, i): CrawlerRequestRow => {
      const { request, token } = p;
      const answer = dns.get(request.clientIp);
      const identity = answer === undefined ? byRanges[i]! : judgeIdentity({ ...identityInput(p), reverseDns: answer });
      const { judgement, storedPath } = judges.judge(p.site.id, {
        at: request.at,
        target: request.target,
        crawler: { token, boundByRobotsTxt: isBoundByRobotsTxt(token) },
        cacheHours,
      });
      const finding = judgement.judgement === 'violation' || identity.identity === 'spoofed';
      const rule = judgement.rule;
      return {
        siteId: p.site.id,
        lineKey: p.lineKey,
        at: request.at,
        crawler: token,
        identity: identity.identity,
        identityMethod: identity.method,
        judgement: judgement.judgement,
        runId: judgement.inForce?.runId ?? null,
        allowedByRunId: judgement.allowedBy?.runId ?? null,
        method: request.method,
        path: storedPath,
        status: request.status,
        userAgent: request.userAgent,
        clientIp: finding ? request.clientIp : null,
        ruleLine: rule?.line ?? null,
        rule: rule === null ? null : ruleLine(rule),
      };
    });
  };

  const dnsAsked = new Set<string>();
  let dnsFailuresInARow = 0;
  /** The reverse DNS answers for the addresses of `asking` (the requests whose verdict DNS can change). */
  const reverseDnsOf = async (asking: readonly PendingRequest[]): Promise<Map<string, ReverseDnsAnswer>> => {
    const answers = new Map<string, ReverseDnsAnswer>();
    const dns = options.reverseDns;
    if (dns === null) return answers;
    const wanted = [...new Set(asking.map((p) => p.request.clientIp))];
    let next = 0;
    const worker = async () => {
      while (next < wanted.length && summary.dnsStopped === null) {
        const ip = wanted[next++] as string;
        // A log built to cost DNS time (every line another address) or a dead resolver: each is
        // bounded, and what is left is unverifiable, with the reason in the summary.
        if (!dnsAsked.has(ip)) {
          if (dnsAsked.size >= (options.maxDnsAddresses ?? LOG_IMPORT_DEFAULTS.maxDnsAddresses)) {
            summary.dnsStopped = `${dnsAsked.size} addresses looked up, the most an import asks (maxDnsAddresses)`;
            return;
          }
          dnsAsked.add(ip);
        }
        const answer = await dns.check(ip);
        answers.set(ip, answer);
        dnsFailuresInARow = answer.kind === 'failed' ? dnsFailuresInARow + 1 : 0;
        if (dnsFailuresInARow >= LOG_IMPORT_DEFAULTS.dnsFailuresToStop) summary.dnsStopped = `${dnsFailuresInARow} lookups in a row failed (the last: ${answer.kind === 'failed' ? answer.reason : ''})`;
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.dnsConcurrency ?? LOG_IMPORT_DEFAULTS.dnsConcurrency, wanted.length) }, worker));
    return answers;
  };

  const unreadable = (lineNo: number, reason: string, text: string) => {
    summary.unreadable++;
    sinceCheckpoint.unreadable++;
    if (summary.errors.length < LOG_IMPORT_DEFAULTS.maxErrorsShown) {
      const error = { line: lineNo, reason, text: text.slice(0, ERROR_TEXT_CHARS) };
      summary.errors.push(error);
      sinceCheckpoint.errors.push(error);
    }
  };

  const replay = async function* () {
    yield* head;
    for (;;) {
      const next = await batches.next();
      if (next.done) return;
      yield next.value;
    }
  };

  // The last line read: where the final checkpoint goes (two variables: nothing allocated a line).
  let lastLineNo = 0;
  let lastText = '';
  let source: AsyncGenerator<LogLine[]> = replay();
  // A batch's lines are taken in a plain loop: the only awaits are the flushes and a restart.
  try {
    read: for (;;) {
      const next = await source.next();
      if (next.done) break;
      for (const line of next.value) {
        const text = 'tooLong' in line ? line.prefix : line.text;
        if (line.lineNo <= resumeAfter) {
          if (line.lineNo === resumeAfter && row.checkpoint !== null && !createHash('sha256').update(text).digest().equals(row.checkpoint)) {
            // Not the file this import stopped in (the same first bytes, then others): start it over.
            if (typeof options.input !== 'string') throw new Error(`${name}: differs from the import it resumes after line ${resumeAfter}; import it as a file, or under another --site`);
            await restartImport(pool, row.id);
            resumeAfter = 0;
            batches = open()[Symbol.asyncIterator]();
            head.length = 0;
            source = replay();
            continue read;
          }
          summary.resumedAfter = line.lineNo;
          lastLineNo = line.lineNo;
          lastText = text;
          continue;
        }
        summary.lines++;
        sinceCheckpoint.lines++;
        lastLineNo = line.lineNo;
        lastText = text;
        if ('tooLong' in line) {
          unreadable(line.lineNo, `longer than ${LOG_MAX_LINE_BYTES} bytes`, text);
        } else if (text.trim() !== '') {
          let userAgent = reader.userAgentOf(text);
          let parsed = userAgent === null ? reader.parse(text) : null;
          if (parsed !== null && isLogLineError(parsed)) unreadable(line.lineNo, parsed.error, text);
          else {
            userAgent ??= (parsed as LogRequest).userAgent;
            // A JSON line's pre-filter is the whole line: the parsed user-agent decides.
            let token = claimedToken(userAgent);
            if (token !== null) {
              parsed ??= reader.parse(text);
              if (isLogLineError(parsed)) unreadable(line.lineNo, parsed.error, text);
              else if ((token = claimedToken(parsed.userAgent)) !== null) {
                summary.crawlerRequests++;
                sinceCheckpoint.crawlerLines++;
                const site = fixedSite ?? (parsed.host === null ? undefined : hosts.get(parsed.host));
                if (site === undefined) {
                  summary.unmatched++;
                  sinceCheckpoint.unmatched++;
                  const host = parsed.host ?? '';
                  if (summary.unmatchedHosts.has(host) || summary.unmatchedHosts.size < LOG_IMPORT_DEFAULTS.maxUnmatchedHosts) summary.unmatchedHosts.set(host, (summary.unmatchedHosts.get(host) ?? 0) + 1);
                } else {
                  const second = Math.floor(parsed.at.getTime() / 1000);
                  if (second !== ordinalSecond) {
                    ordinalSecond = second;
                    ordinals.clear();
                  }
                  const hash = createHash('sha256').update(text).digest();
                  const hex = hash.toString('hex');
                  const ordinal = ordinals.get(hex) ?? 0;
                  ordinals.set(hex, ordinal + 1);
                  const lineKey = Buffer.alloc(16);
                  hash.copy(lineKey, 0, 0, 12);
                  lineKey.writeUInt32BE(ordinal, 12);
                  pending.push({ request: parsed, token, site, lineKey });
                }
              }
            }
          }
        }
        if (pending.length >= batchRequests || sinceCheckpoint.lines >= checkpointLines) await flush(line.lineNo, text);
      }
    }
    if (pending.length > 0 || sinceCheckpoint.lines > 0) await flush(lastLineNo, lastText);
    await storing;
  } catch (err) {
    // A failed read leaves no batch being stored behind it: what is committed is settled when this throws.
    await storing.catch(() => {});
    throw err;
  }
  await finishImport(pool, row.id);
  ({ alerts: summary.alerts, deliveryIds: summary.deliveryIds } = await raiseComplianceAlerts(pool, row.id));
  return summary;
}

/**
 * The matcher, with the claims of the user-agents seen last remembered: a log's browser traffic
 * repeats a few thousand headers, and looking one up costs a fraction of reading it through the
 * matcher, which was the largest cost of a line that names no crawler (docs/benchmarks.md, logs).
 */
function rememberedClaims(claimedBy: AgentMatcher): AgentMatcher {
  const known = new Map<string, string | null>();
  return (userAgent) => {
    const remembered = known.get(userAgent);
    if (remembered !== undefined) return remembered;
    const token = claimedBy(userAgent);
    if (userAgent.length <= LOG_IMPORT_DEFAULTS.claimRememberedChars) {
      if (known.size >= LOG_IMPORT_DEFAULTS.claimsRemembered) known.clear();
      known.set(userAgent, token);
    }
    return token;
  };
}

/**
 * The monitored site of `--site`: the one at its origin as given (two servers of one host on two
 * ports, or http beside https, are two sites), else the one a log's request for its host is filed
 * under (`--site example.com` for `https://example.com`).
 */
async function siteOf(db: pg.Pool, hosts: ReadonlyMap<string, SiteByHost>, given: string): Promise<SiteByHost> {
  let origin: string;
  try {
    origin = normalizeOrigin(given);
  } catch {
    throw new Error(`--site: not an origin: "${given}"`);
  }
  const site = (await siteByOrigin(db, origin)) ?? hosts.get(new URL(origin).hostname.toLowerCase());
  if (site === undefined) throw new Error(`--site: ${given} is not a monitored site (robots-audit sites add ${given})`);
  return site;
}
