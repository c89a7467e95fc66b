/**
 * `npm run bench:night`: the CPU of a site's night itself (hashing, parsing, lint, diff, verdicts,
 * alerts and rows; no fetch, no database), on the corpus sample, for three kinds of night: a
 * first night (every site new), a night that changes nothing, and a night whose rules changed.
 * With `--before <ref>`, that ref's build is measured in the same process, in turns with this
 * one's, on the same inputs. Not a test: it measures, prints a table and rewrites its section of
 * docs/benchmarks.md.
 *
 *   npm run bench:night -- [--before <git ref>] [--runs 7] [--no-write]
 *
 * Method: each side's `computeSiteNight` is imported from its build (dist/); a run computes the
 * night of every robots file of the sample once, with the body hashed once beforehand as the
 * night runner does (before issue 27 the night hashed it again itself), the catalogue's tokens
 * and ten tracked agents on two URLs; loaders answer from memory. The figure is the median over
 * runs of the CPU per night (process.cpuUsage; a run passes over the sample until MIN_RUN_CPU_MS
 * are spent), after two runs not recorded.
 */
import { hash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FetchResult } from '../../src/http/fetch-result.js';
import type { PreviousNight, SiteNightInput, NightLoaders } from '../../src/night/input.js';
import type { SiteNight } from '../../src/night/rows.js';
import { catalogue } from '../../src/crawlers/catalogue.js';
import { DEFAULT_AGENT_TOKENS } from '../../src/crawlers/default-agents.js';
import { targetsHash } from '../../src/night/keys.js';
import { loadRobotsSample } from '../helpers/corpus.js';
import { fetchResult } from '../helpers/fetch-results.js';
import { sectionMarkers, writeBenchSection } from './bench-doc.js';
import { beforeSide, currentSide } from './bench-sides.js';
import type { Side } from './bench-sides.js';
import { median } from './median.js';

const WARMUP_RUNS = 2;
const NIGHT_1 = new Date('2026-03-01T03:00:00Z');
const NIGHT_2 = new Date('2026-03-02T03:00:00Z');

interface Args {
  before: string | null;
  runs: number;
  write: boolean;
}

function args(): Args {
  const argv = process.argv.slice(2);
  const at = (name: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? null : (argv[i + 1] ?? null);
  };
  const runs = Number(at('--runs') ?? 7);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a whole number ≥ 1');
  return { before: at('--before'), runs, write: !argv.includes('--no-write') };
}

type ComputeSiteNight = (input: SiteNightInput, load: NightLoaders) => Promise<SiteNight>;

/** A side's night function, from its build. */
async function nightOf(side: Side): Promise<ComputeSiteNight> {
  const module = (await import(pathToFileURL(path.join(side.root, 'dist/src/services/site-night.js')).href)) as { computeSiteNight: ComputeSiteNight };
  return module.computeSiteNight;
}

/**
 * Builds before issue 27 read the previous night with the field names of the time
 * (`rulesBodyId`, `lastGood.bodyId`, `responseId`): both spellings are given, once per site,
 * outside what is timed.
 */
function withOldNames(p: PreviousNight): PreviousNight {
  return Object.assign(p, { rulesBodyId: p.rulesBody, responseId: p.response, lastGood: p.lastGood && Object.assign(p.lastGood, { bodyId: p.lastGood.body }) });
}

const sha256Of = (bytes: Uint8Array) => hash('sha256', bytes, 'buffer');

/** One site of the sample: its body, a changed version, its targets. */
interface Site {
  origin: string;
  body: Buffer;
  changed: Buffer;
}

const TOKENS = catalogue().map((c) => c.token);
const AGENTS = DEFAULT_AGENT_TOKENS.slice(0, 10).map((token, i) => ({ id: i + 1, token, family: null }));

function targetsOf(origin: string): SiteNightInput['targets'] {
  return [
    { trackedUrlId: 1, url: `${origin}/`, isRoot: true, agents: AGENTS },
    { trackedUrlId: 2, url: `${origin}/search?q=bench`, isRoot: false, agents: AGENTS },
  ];
}

const okResult = (origin: string, body: Buffer, at: Date): FetchResult => fetchResult({ origin, outcome: 'ok', body, startedAt: at });

/** The previous night a first night of `body` leaves, as the night store would read it back. */
function previousOf(night: SiteNight, sha256: Buffer): PreviousNight {
  const state = night.state!;
  return withOldNames({
    ...state,
    rulesBody: 1,
    lastGood: { runId: 1, runAt: NIGHT_1, body: 1, sha256 },
    response: state.response ? 1 : null,
    evalKey: state.evalKey,
  });
}

function input(site: Site, body: Buffer, at: Date, previous: PreviousNight | null): SiteNightInput {
  const targets = targetsOf(site.origin);
  return {
    siteId: 1,
    origin: site.origin,
    runId: previous ? 2 : 1,
    runAt: at,
    result: okResult(site.origin, body, at),
    resultSha256: sha256Of(body),
    attempt: 1,
    previous,
    targets,
    targetsHash: targetsHash(targets),
    catalogueTokens: TOKENS,
    nextNight: null,
  };
}

const loadersOf = (stored: Buffer): NightLoaders => ({
  body: async () => stored,
  bodyBySha: async () => null,
  spansInForce: async () => [],
});

type Kind = 'first' | 'unchanged' | 'rules changed';
const KINDS: readonly Kind[] = ['first', 'unchanged', 'rules changed'];

/** Shortest run: an unchanged night costs tens of microseconds, so a run passes over the sample until this much CPU is spent. */
const MIN_RUN_CPU_MS = 300;

/** The CPU of one night of each site, in ms per night, over as many passes as a run takes. */
async function runOnce(compute: ComputeSiteNight, sites: readonly Site[], previous: Map<Site, PreviousNight>, kind: Kind): Promise<number> {
  const before = process.cpuUsage();
  let nights = 0;
  let spentMs = 0;
  while (spentMs < MIN_RUN_CPU_MS) {
    for (const site of sites) {
      const load = loadersOf(site.body);
      // input() hashes the answer as the night runner does: part of the night's cost.
      if (kind === 'first') await compute(input(site, site.body, NIGHT_1, null), load);
      else if (kind === 'unchanged') await compute(input(site, site.body, NIGHT_2, previous.get(site)!), load);
      else await compute(input(site, site.changed, NIGHT_2, previous.get(site)!), load);
    }
    nights += sites.length;
    const used = process.cpuUsage(before);
    spentMs = (used.user + used.system) / 1000;
  }
  return spentMs / nights;
}


async function main(): Promise<void> {
  const a = args();
  const sides: Side[] = a.before ? [beforeSide(a.before), currentSide()] : [currentSide()];
  const computes = new Map(await Promise.all(sides.map(async (side) => [side, await nightOf(side)] as const)));
  const sites: Site[] = loadRobotsSample()
    .filter((f) => f.kind === 'robots')
    .map((f) => ({ origin: `https://${f.host}`, body: f.body, changed: Buffer.concat([f.body, Buffer.from('\nUser-agent: *\nDisallow: /bench-changed/\n')]) }));
  // Each side's previous nights come from its own first nights (the evaluation key is its own).
  const previous = new Map<Side, Map<Site, PreviousNight>>();
  for (const side of sides) {
    const bySite = new Map<Site, PreviousNight>();
    for (const site of sites) bySite.set(site, previousOf(await computes.get(side)!(input(site, site.body, NIGHT_1, null), loadersOf(site.body)), sha256Of(site.body)));
    previous.set(side, bySite);
  }
  const figures = new Map<string, number[]>();
  for (let r = 0; r < WARMUP_RUNS + a.runs; r++) {
    for (const kind of KINDS) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const ms = await runOnce(computes.get(side)!, sites, previous.get(side)!, kind);
        if (r >= WARMUP_RUNS) figures.set(`${side.name} ${kind}`, [...(figures.get(`${side.name} ${kind}`) ?? []), ms]);
      }
    }
  }
  const cpus = os.cpus();
  const key = 'night';
  const { start, end } = sectionMarkers(key);
  const cell = (side: Side, kind: Kind) => {
    const xs = figures.get(`${side.name} ${kind}`)!;
    return `${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)})`;
  };
  const second = sides[1];
  const rows = KINDS.map((kind) => {
    const ratio = second ? ` | ${(median(figures.get(`after ${kind}`)!) / median(figures.get(`before ${kind}`)!)).toFixed(2)}` : '';
    return `| ${kind} | ${sides.map((side) => cell(side, kind)).join(' | ')}${ratio} |`;
  });
  const section = [
    start,
    '### A site\'s night, its own CPU',
    '',
    `\`npm run bench:night --${a.before ? ` --before ${a.before}` : ''} --runs ${a.runs}\` on ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (shared), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}: the ${sites.length} robots files of the corpus sample, ten agents on two URLs; CPU ms per night, median of ${a.runs} runs (range)${second ? ', the two builds in turns in one process' : ''}.`,
    '',
    `| night | ${sides.map((s) => `${s.name} (${s.label})`).join(' | ')}${second ? ' | after / before' : ''} |`,
    `|---|${sides.map(() => '---:').join('|')}|${second ? '---:|' : ''}`,
    ...rows,
    end,
  ].join('\n');
  console.log(section);
  if (a.write) {
    writeBenchSection(key, section);
    console.log('\nwrote docs/benchmarks.md (section night)');
  }
}

await main();
