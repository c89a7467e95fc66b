/**
 * `robots-audit fetch <url> [--json] [--store]`: fetch one site's robots.txt now, exactly as the
 * nightly run does (R-1, R-10..R-19), and show what a crawler would make of it: outcome class,
 * redirect hops, bytes kept, cache lifetime, effective policy and lint summary.
 *
 * Without `--store` nothing is written and the policy is that of this fetch alone (no history:
 * a 5xx is a full disallow, R-13). With `--store` the fetch is recorded as a manual run (the
 * site added if new): the site's night (body once per content, changes, verdicts, flips, alerts),
 * whose policy takes the site's history into account (D-3), computed and stored as a nightly run
 * stores it.
 */
import { terminalText } from '../../reports/terminal-text.js';
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { NetworkOptions } from '../network-options.js';
import { addNetworkOptions, networkSettings } from '../network-options.js';
import { pipelineConfig } from '../pipeline-config.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import { createRepos } from '../../db/index.js';
import type { FetchOptions, FetchResult } from '../../http/index.js';
import { fetchOptionsFromConfig, fetchRobotsTxt } from '../../http/index.js';
import type { PolicyKind, PolicyReason } from '../../policy/index.js';
import { effectivePolicy } from '../../policy/index.js';
import type { Diagnostic } from '../../robots/index.js';
import { InvalidUrlError, normalizeOrigin } from '../../robots/origin.js';
import { failedNightResult, storeSingleNight } from '../../services/night-runner.js';
import type { SnapshotSummary } from '../../night/body-summary.js';
import { summarizeAndParse } from '../../night/body-summary.js';
import { formatDiagnostic } from './lint.command.js';
import { POLICY_REASON_TEXT } from '../../reports/site-text.js';

interface FetchCommandOptions extends DatabaseOptions, NetworkOptions {
  json?: boolean;
  store?: boolean;
}

/** Diagnostics shown with the summary; `robots-audit lint` lists them all. */
export const LINT_PREVIEW_COUNT = 5;


export interface StoredFetch {
  runId: number;
  runKey: string;
  /** True when the site was not monitored before this fetch. */
  siteAdded: boolean;
}

export interface FetchReport {
  origin: string;
  result: FetchResult;
  policy: { kind: PolicyKind; reason: PolicyReason; fallback: boolean };
  summary: SnapshotSummary | null;
  /** The first `LINT_PREVIEW_COUNT` diagnostics. */
  diagnostics: Diagnostic[];
  stored: StoredFetch | null;
}

export const registerFetchCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const command = program
    .command('fetch')
    .description(COMMAND_DESCRIPTIONS.fetch)
    .argument('<url>', 'any URL of the site (a bare host such as example.com is read as https); its /robots.txt is fetched')
    .option('--json', 'write one JSON object')
    .option('--store', 'record the fetch in the database as a manual run (the site is added if new)')
    .addOption(databaseUrlOption());
  addNetworkOptions(command).addHelpText(
    'after',
    `
Without --store the policy is that of this fetch alone; with --store it takes the site's stored
history into account (the 30-day fallback, D-3). Exit code 0 whatever the site answered (a 404 or
a 5xx is an observation), 2 for a URL that cannot be parsed, a bad option or a database problem.`,
  );
  command.action(async (url: string, options: FetchCommandOptions) => {
    let origin: string;
    let fetchOptions: FetchOptions;
    try {
      origin = normalizeOrigin(url);
      const appConfig = pipelineConfig(io, {});
      fetchOptions = { ...fetchOptionsFromConfig(appConfig), ...networkSettings(options, appConfig) };
    } catch (err) {
      io.stderr.write(`robots-audit: ${err instanceof InvalidUrlError ? err.message : (err as Error).message}\n`);
      io.exitCode = 2;
      return;
    }
    const report = options.store ? await fetchAndStore(origin, fetchOptions, options) : await fetchOnly(origin, fetchOptions);
    io.stdout.write(options.json ? `${JSON.stringify(jsonReport(report))}\n` : terminalText(textReport(report)));
  });
};

function bodyReport(result: FetchResult): Pick<FetchReport, 'summary' | 'diagnostics'> {
  if (!result.body) return { summary: null, diagnostics: [] };
  // One scan gives the summary and the findings.
  const { summary, diagnostics } = summarizeAndParse(result.body);
  return { summary, diagnostics: diagnostics.slice(0, LINT_PREVIEW_COUNT) };
}

async function fetchOnly(origin: string, fetchOptions: FetchOptions): Promise<FetchReport> {
  const result = await fetchRobotsTxt(origin, fetchOptions);
  // No history: the policy of this fetch alone, on the current clock.
  const policy = effectivePolicy<number>({ outcome: result.outcome, now: new Date(), unreachableSince: null, lastReachable: null });
  return { origin, result, policy: { kind: policy.kind, reason: policy.reason, fallback: policy.fallback }, ...bodyReport(result), stored: null };
}

async function fetchAndStore(origin: string, fetchOptions: FetchOptions, options: DatabaseOptions): Promise<FetchReport> {
  return withDatabase(options, async (db, pool) => {
    const repos = createRepos(db);
    const { added } = await repos.sites.upsertSites([{ origin }]);
    const site = await repos.sites.findSiteByOrigin(origin);
    if (!site) throw new Error(`site ${origin} neither added nor found`);
    const now = new Date();
    const { run } = await repos.runs.createRun({
      runKey: `fetch-${origin}-${now.toISOString()}`,
      trigger: 'manual',
      runAt: now,
      startedAt: now,
      sitesTotal: 1,
      // Its one site, named: a run without a list would be read as every site by reconcile.
      siteIds: [site.id],
    });
    // One attempt, no retry: a manual fetch reports what the site answers now.
    const result = await fetchRobotsTxt(origin, fetchOptions);
    try {
      const { stored } = await storeSingleNight(pool, run.id, site.id, result);
      if (!stored) throw new Error(`run ${run.runKey} already has the night of ${origin}; try again`);
    } catch (err) {
      // The run ends, failed, with the site's night recorded as failed when that can be stored:
      // never `running` with nothing to finish it.
      const reason = err instanceof Error ? err.message : String(err);
      await storeSingleNight(pool, run.id, site.id, failedNightResult(origin, reason)).catch(() => undefined);
      await repos.runs.finishRun(run.id, { status: 'failed' }).catch(() => undefined);
      throw err;
    }
    const finished = await repos.runs.finishRun(run.id, { status: 'completed' });
    const snapshot = await repos.snapshots.snapshotFor(finished.id, site.id);
    if (!snapshot) throw new Error(`the fetch of ${origin} was not stored`);
    return {
      origin,
      result,
      policy: { kind: snapshot.policy, reason: snapshot.policyReason as PolicyReason, fallback: snapshot.policyReason === 'D-3' },
      ...bodyReport(result),
      stored: { runId: run.id, runKey: run.runKey, siteAdded: added.length > 0 },
    };
  });
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function textReport(r: FetchReport): string {
  const { result } = r;
  const lines: [string, string][] = [
    ['robots.txt', result.requestedUrl],
    ['outcome', result.outcome],
    ['status', result.status === null ? 'none (no response)' : String(result.status)],
  ];
  result.hops.forEach((hop, i) => lines.push([`redirect ${i + 1}`, `${hop.status} ${hop.url} -> ${hop.location ?? '(no Location)'}`]));
  if (result.finalUrl !== result.requestedUrl) lines.push(['final url', result.finalUrl]);
  if (result.errorCode) lines.push(['error', `${result.errorCode}${result.errorMessage ? `: ${result.errorMessage}` : ''}`]);
  const full = result.fullSize === null ? 'full size unknown' : `full size ${result.fullSize}`;
  lines.push(['body', `${plural(result.bodyBytes, 'byte')} kept, ${full}, ${result.truncated ? 'truncated' : 'not truncated'}`]);
  lines.push(['cache', result.cache ? `${result.cache.lifetimeSeconds} s (${result.cache.source})` : 'none (no response)']);
  lines.push(['policy', `${r.policy.kind} (${r.policy.reason}: ${POLICY_REASON_TEXT[r.policy.reason]})`]);
  if (r.summary) {
    const s = r.summary;
    lines.push(['parsed', `${plural(s.groups, 'group')}, ${plural(s.rules, 'rule')}, ${plural(s.sitemaps, 'sitemap')}`]);
    lines.push(['lint', `${plural(s.lintErrors, 'error')}, ${plural(s.lintWarnings, 'warning')}, ${s.lintInfos} info`]);
  }
  if (r.stored) {
    const site = r.stored.siteAdded ? '; site added' : '';
    lines.push(['stored', `run ${r.stored.runKey} (id ${r.stored.runId})${site}`]);
  }
  const width = Math.max(...lines.map(([k]) => k.length));
  let out = lines.map(([k, v]) => `${k.padEnd(width)}  ${v}\n`).join('');
  if (r.summary) {
    for (const d of r.diagnostics) out += `  ${formatDiagnostic(d)}\n`;
    const total = r.summary.lintErrors + r.summary.lintWarnings + r.summary.lintInfos;
    if (total > r.diagnostics.length) out += `  … ${total - r.diagnostics.length} more (robots-audit lint)\n`;
  }
  return out;
}

function jsonReport(r: FetchReport) {
  const { result } = r;
  return {
    origin: r.origin,
    url: result.requestedUrl,
    outcome: result.outcome,
    status: result.status,
    errorCode: result.errorCode,
    errorMessage: result.errorMessage,
    hops: result.hops,
    finalUrl: result.finalUrl,
    remoteAddress: result.remoteAddress,
    startedAt: result.startedAt.toISOString(),
    durationMs: result.durationMs,
    contentType: result.headers.contentType,
    bodyBytes: result.bodyBytes,
    fullSize: result.fullSize,
    truncated: result.truncated,
    cache: result.cache
      ? { lifetimeSeconds: result.cache.lifetimeSeconds, source: result.cache.source, expiresAt: result.cache.expiresAt.toISOString() }
      : null,
    policy: { ...r.policy, description: POLICY_REASON_TEXT[r.policy.reason] },
    summary: r.summary ? { groups: r.summary.groups, rules: r.summary.rules, sitemaps: r.summary.sitemaps } : null,
    lint: r.summary
      ? { errors: r.summary.lintErrors, warnings: r.summary.lintWarnings, infos: r.summary.lintInfos, diagnostics: r.diagnostics }
      : null,
    stored: r.stored,
  };
}
