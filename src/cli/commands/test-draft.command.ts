/**
 * `robots-audit test-draft <site> <draft>`: a draft robots.txt against the one in force, before
 * it ships, as the nightly run would see it the night after the deploy (src/services/draft-check.ts):
 * the verdicts that would flip with their deciding lines, the alerts and their severity, the
 * rules each crawler gains and loses, the `*` paths newly left open, the draft's lint and size.
 *
 * The file in force and what is evaluated come from the database (the site's latest night, its
 * tracked URLs and agents, the catalogue), or, for CI jobs that cannot reach it, from
 * `--current <file|url>`, `--urls <file>` and `--ua <token>...`. Exit codes are the CI contract:
 * 1 when an access alert at or above `--fail-on` would be raised, 0 when none would, 2 for bad
 * input (one line on standard error), whatever part of it is bad.
 */
import { CommanderError, Option } from 'commander';
import type { Command } from 'commander';
import type pg from 'pg';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { NetworkOptions } from '../network-options.js';
import { addNetworkOptions, networkSettings } from '../network-options.js';
import { commandConfig } from '../command-config.js';
import { InputError, readInput } from '../read-input.js';
import type { DatabaseOptions } from '../with-pool.js';
import { databaseUrlOption, withPool } from '../with-pool.js';
import type { DraftSources } from '../draft-output.js';
import { catalogue } from '../../crawlers/catalogue.js';
import { DEFAULT_AGENT_TOKENS } from '../../crawlers/default-agents.js';
import type { AppConfig } from '../../config/env.js';
import { effectivePolicy } from '../../policy/effective-policy.js';
import type { FetchOutcome, PolicyKind, PolicyReason } from '../../policy/index.js';
import { baselineAgent, siteDraftBaseline } from '../../reports/site-draft-baseline.js';
import { SiteReportError } from '../../reports/site-errors.js';
import { findSite } from '../../reports/site-lookup.js';
import { InvalidUrlError, normalizeOrigin, resolveSiteUrl } from '../../robots/origin.js';
import type { AlertSeverity } from '../../night/vocabulary.js';
import { SEVERITIES } from '../../night/vocabulary.js';
import type { CurrentRobots, DraftAgent, DraftTarget } from '../../services/draft-check.js';

export const DRAFT_FORMATS = ['table', 'json', 'github'] as const;
export type DraftFormat = (typeof DRAFT_FORMATS)[number];

/**
 * The engine, the comparison and the output: loaded while the database is asked (a connection's
 * set-up and four queries are mostly waiting), not before, which hides most of either behind the
 * other.
 */
const loadComputation = () => Promise.all([import('../../services/draft-check.js'), import('../draft-output.js')]);

interface TestDraftOptions extends DatabaseOptions, NetworkOptions {
  format: DraftFormat;
  failOn: AlertSeverity;
  current?: string;
  urls?: string;
  ua?: string[];
}

/** Bad input: the command says why in one line and exits 2. */
class DraftInputError extends Error {}

const isUrl = (source: string) => /^https?:\/\//i.test(source.trim());

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Fetches a robots.txt as the nightly run does (redirects, caps, SSRF guard), with the command's network options. */
async function fetchRobots(source: string, options: NetworkOptions, config: AppConfig, what: string) {
  let url: URL;
  try {
    url = new URL(source.trim());
  } catch {
    throw new DraftInputError(`${what} "${source}": not a URL`);
  }
  if (url.pathname !== '/' && url.pathname !== '/robots.txt') {
    throw new DraftInputError(`${what} "${source}": crawlers read <origin>/robots.txt only (R-1); save another file locally and give its path`);
  }
  // Loaded only for a URL: the HTTP stack is most of the start-up of the commands that use it.
  const { fetchOptionsFromConfig, fetchRobotsTxt } = await import('../../http/index.js');
  return fetchRobotsTxt(normalizeOrigin(url.href), { ...fetchOptionsFromConfig(config), ...networkSettings(options, config) });
}

async function readDraft(source: string, io: CliIo, options: NetworkOptions, config: AppConfig): Promise<Uint8Array> {
  if (!isUrl(source)) return readInput(source, io.stdin);
  const result = await fetchRobots(source, options, config, 'draft');
  if (result.outcome !== 'ok' || result.body === null) {
    const answer = result.status !== null ? `HTTP ${result.status}` : (result.errorCode ?? 'no answer');
    throw new DraftInputError(`draft ${source}: ${answer} (${result.outcome}): there is no draft there to test`);
  }
  return result.body;
}

/** `--current`: a file (its rules apply, R-10) or a URL fetched now (its outcome decides the policy, R-10..R-15). */
async function readCurrent(source: string, io: CliIo, options: NetworkOptions, config: AppConfig): Promise<CurrentRobots> {
  if (!isUrl(source)) {
    const body = await readInput(source, io.stdin);
    return { outcome: 'ok', policy: 'rules', policyReason: 'R-10', rulesBody: body, lastGoodBody: body };
  }
  const result = await fetchRobots(source, options, config, '--current');
  // No history: the policy of this fetch alone (a 5xx is a full disallow, R-13).
  const policy = effectivePolicy<number>({ outcome: result.outcome, now: new Date(), unreachableSince: null, lastReachable: null });
  const body = result.outcome === 'ok' ? result.body : null;
  return { outcome: result.outcome as FetchOutcome, policy: policy.kind as PolicyKind, policyReason: policy.reason as PolicyReason, rulesBody: body, lastGoodBody: body };
}

/** `--urls`: one URL or path a line; blank lines and `#` comments skipped; the root is always there. */
async function readUrls(origin: string, source: string | undefined, io: CliIo): Promise<string[]> {
  const urls = [`${origin}/`];
  if (source === undefined) return urls;
  const text = Buffer.from(await readInput(source, io.stdin)).toString('utf8');
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    try {
      urls.push(resolveSiteUrl(origin, line));
    } catch (err) {
      if (!(err instanceof InvalidUrlError)) throw err;
      throw new DraftInputError(`${source} line ${i + 1}: ${err.message}`);
    }
  });
  return [...new Set(urls)];
}

interface Baseline {
  origin: string;
  current: CurrentRobots;
  targets: DraftTarget[];
  rootCrawlers: DraftAgent[];
  diffCrawlers: string[];
  sources: DraftSources['current'];
}

async function databaseBaseline(siteInput: string, options: TestDraftOptions): Promise<Baseline> {
  // Plain SQL on a read-only pool: no ORM to load, nothing can be written.
  const read = async (pool: pg.Pool): Promise<Baseline> => {
    const base = await siteDraftBaseline(pool, await findSite(pool, siteInput));
    return {
      origin: base.site.origin,
      current: base.current,
      targets: base.targets,
      rootCrawlers: base.catalogue,
      diffCrawlers: base.defaultAgents,
      sources: { kind: 'database', night: base.current.night, runKey: base.current.runKey },
    };
  };
  return withPool(options, read, { readOnly: true });
}

async function fileBaseline(siteInput: string, current: string, options: TestDraftOptions, io: CliIo, config: AppConfig): Promise<Baseline> {
  let origin: string;
  try {
    origin = normalizeOrigin(siteInput);
  } catch (err) {
    if (!(err instanceof InvalidUrlError)) throw err;
    throw new DraftInputError(`<site>: ${err.message} (with --current, name the site by its origin, e.g. https://www.example.com)`);
  }
  const tokens = options.ua ?? [...DEFAULT_AGENT_TOKENS];
  const { assertProductToken } = await import('../../reports/site-explain.js');
  for (const token of tokens) assertProductToken(token);
  const agents = tokens.map((t) => baselineAgent(t));
  const urls = await readUrls(origin, options.urls, io);
  return {
    origin,
    current: await readCurrent(current, io, options, config),
    targets: urls.map((url, i) => ({ url, isRoot: i === 0, agents })),
    rootCrawlers: catalogue().map((e) => baselineAgent(e.token)),
    diffCrawlers: [...DEFAULT_AGENT_TOKENS],
    sources: { kind: isUrl(current) ? 'url' : 'file', source: current },
  };
}

/** The draft's path as a pull request names it: forward slashes, no leading `./`; null for stdin and URLs. */
function annotatedFile(draft: string): string | null {
  if (draft === '-' || isUrl(draft)) return null;
  return draft.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

export const registerTestDraftCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const command = program
    .command('test-draft')
    .description(COMMAND_DESCRIPTIONS['test-draft'])
    .argument('<site>', 'a monitored site: an origin (https://example.com) or a host; with --current, its origin')
    .argument('<draft>', 'the draft: a file, "-" for standard input, or the URL of a robots.txt (e.g. a staging site\'s)')
    .addOption(new Option('--format <format>', 'output: a table, one JSON object, or GitHub Actions annotations').choices(DRAFT_FORMATS).default('table'))
    .addOption(new Option('--fail-on <severity>', 'exit 1 when an access alert at least this severe would be raised').choices(SEVERITIES).default('critical'))
    .option('--current <file|url>', 'compare with this robots.txt instead of the site\'s in the database (no database needed)')
    .option('--urls <file>', 'with --current: the URLs or paths to evaluate, one a line (the root always is)')
    .option('--ua <token>', 'with --current: a user-agent token to evaluate (repeatable; default: the default agents)', collect)
    .addOption(databaseUrlOption());
  addNetworkOptions(command)
    .addHelpText(
      'after',
      `
The draft is read as the nightly run would fetch it the night after the deploy: its first
ROBOTS_AUDIT_MAX_BODY_BYTES (500 KiB, R-18), compared with the robots.txt in force: the site's
latest night (its policy, the rules body in force, the last body fetched OK), for every tracked
URL x its agents (the defaults, its portfolios' extras, its own) and the root for every crawler
of the catalogue. Severities are the nightly alert rules': critical when a search crawler loses
a tracked URL or the root, or Googlebot, Bingbot or * gets Disallow: /; warning when an AI
crawler's access changes or a * path opens to a named crawler; info when a search crawler gains.

Without the database (CI jobs): --current <file|url> is the robots.txt in force (a URL is fetched
now; its answer decides the policy: 4xx allows all, 5xx disallows all), --urls the tracked URLs,
--ua the agents; <site> is then the site's origin.

--format github writes workflow commands (::error file=<draft>,line=N::...) so that a pull
request shows the findings on the draft's lines; errors are what fails the check.

Exit codes: 1 when an access alert (a flip, a new Disallow: /, a * path opened) at or above
--fail-on would be raised; 0 when none would; 2 for bad input (unreadable file, unknown site,
bad option, unreachable database), with one line on standard error.`,
    )
    // 1 means "the draft would break something": a bad option must not look like one, and is one line.
    .showHelpAfterError(false)
    .exitOverride((err) => {
      throw err.exitCode === 0 ? err : new CommanderError(2, err.code, err.message);
    })
    .action(async (siteInput: string, draftSource: string, options: TestDraftOptions) => {
      try {
        if (options.current === undefined && (options.urls !== undefined || options.ua !== undefined)) {
          throw new DraftInputError('--urls and --ua go with --current; with the database, the site\'s tracked URLs and agents are evaluated');
        }
        if (draftSource === '-' && (options.current === '-' || options.urls === '-')) throw new DraftInputError('standard input can be read once: give the other files by path');
        const config = commandConfig(io);
        const draft = await readDraft(draftSource, io, options, config);
        const computation = loadComputation();
        // The computation's modules may fail to load only if the package is broken: no unhandled rejection meanwhile.
        computation.catch(() => {});
        const base = options.current === undefined ? await databaseBaseline(siteInput, options) : await fileBaseline(siteInput, options.current, options, io, config);
        const [{ checkDraft }, { draftJson, formatDraftTable, githubAnnotations }] = await computation;
        const report = checkDraft({
          origin: base.origin,
          current: base.current,
          draft,
          maxBodyBytes: config.ROBOTS_AUDIT_MAX_BODY_BYTES,
          targets: base.targets,
          rootCrawlers: base.rootCrawlers,
          diffCrawlers: base.diffCrawlers,
          failOn: options.failOn,
        });
        const sources: DraftSources = { draft: draftSource, current: base.sources };
        if (options.format === 'json') io.stdout.write(`${JSON.stringify(draftJson(report, sources), null, 2)}\n`);
        else if (options.format === 'github') io.stdout.write(githubAnnotations(report, annotatedFile(draftSource)));
        else io.stdout.write(formatDraftTable(report, sources));
        io.exitCode = report.failing ? 1 : 0;
      } catch (err) {
        if (!(err instanceof DraftInputError || err instanceof InputError || err instanceof SiteReportError)) throw err;
        io.stderr.write(`robots-audit: ${err.message}\n`);
        io.exitCode = 2;
      }
    });
};
