/**
 * `robots-audit report ai-use` (issue 28) against two nights replayed through the real pipeline
 * (loopback sites, Postgres, Redis). Each site gives one part of the report a known answer:
 * - signals: `ai-train=no` for `*`, which every AI-training crawler follows: the contradiction.
 * - owngroup: GPTBot has a group of its own without preferences (D-7): two answers, split by crawler.
 * - paths: Content-Usage by path (D-10, D-11): allowed at the root, refused under /private/.
 * - strict: ai-train=no with every AI-training crawler of the catalogue refused the root: no contradiction.
 * - silent: no preference at all: left out unless `--preference unknown`.
 * - withdrawn: `search=yes` on night 1, nothing on night 2: a change `--since` finds.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/crawlers/index.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, defaultAgentTokens, replayNight, track } from '../../helpers/nightly.js';

const NIGHTS = ['2026-04-01T03:00:00.000Z', '2026-04-02T03:00:00.000Z'];
const TRAINING = catalogue()
  .filter((c) => c.category === 'ai-training')
  .map((c) => c.token);
const SIGNALS = 'User-agent: *\nAllow: /\nContent-Signal: search=yes, ai-train=no\n';
const OWN_GROUP = 'User-agent: GPTBot\nAllow: /\n\nUser-agent: *\nAllow: /\nContent-Signal: ai-train=no\n';
const PATHS = 'User-agent: *\nAllow: /\nContent-Usage: train-ai=y\nContent-Usage: /private/ train-ai=n\n';
const STRICT = `${TRAINING.map((t) => `User-agent: ${t}`).join('\n')}\nDisallow: /\n\nUser-agent: *\nAllow: /\nContent-Signal: ai-train=no\n`;
const SILENT = 'User-agent: *\nAllow: /\n';

let p: Pipeline;
let agents: string[];

beforeAll(async () => {
  p = await startPipeline();
  await addSites(p, ['signals', 'owngroup', 'paths'], 'publishers');
  await addSites(p, ['strict', 'silent', 'withdrawn'], 'others');
  await track(p, 'paths', ['/private/x']);
  const night1 = { signals: SIGNALS, owngroup: OWN_GROUP, paths: PATHS, strict: STRICT, silent: SILENT, withdrawn: `${SILENT}Content-Signal: search=yes\n` };
  await replayNight(p, NIGHTS[0]!, night1);
  await replayNight(p, NIGHTS[1]!, { withdrawn: SILENT });
  agents = await defaultAgentTokens(p);
}, 120_000);

afterAll(async () => {
  await p?.close();
});

async function json(args: string[]): Promise<Record<string, unknown>[]> {
  const run = await p.cli(['report', 'ai-use', ...args, '--format', 'json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>[];
}


/** `<site> <purpose> <preference> <urls> <crawlers>`: a row in a few words. */
const brief = (r: Record<string, unknown>) => `${/^http:\/\/([a-z]+)\.test/.exec(String(r.origin))![1]} ${r.purpose} ${r.preference} ${r.urls} ${r.crawlers}`;

describe('report ai-use: what each purpose is told, since when, by which line', () => {
  it('one row per site, purpose and answer, split where the URLs or crawlers are told differently', async () => {
    const all = `all ${agents.length}`;
    expect((await json(['--portfolio', 'publishers'])).map(brief)).toEqual([
      `owngroup search unknown / ${all}`,
      `owngroup ai-train refused / ${all} but GPTBot`,
      'owngroup ai-train unknown / GPTBot',
      `owngroup ai-input unknown / ${all}`,
      `paths search unknown all 2 ${all}`,
      `paths ai-train allowed / ${all}`,
      `paths ai-train refused /private/x ${all}`,
      `paths ai-input unknown all 2 ${all}`,
      `signals search allowed / ${all}`,
      `signals ai-train refused / ${all}`,
      `signals ai-input unknown / ${all}`,
    ]);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['signals', 'ai-train', { preference: 'refused', since: NIGHTS[0], line: 3, mechanism: 'Content-Signal', value: 'search=yes, ai-train=no' }],
    ['owngroup', 'ai-train', { preference: 'refused', line: 6, mechanism: 'Content-Signal', value: 'ai-train=no' }],
    ['paths', 'ai-train', { preference: 'allowed', line: 3, mechanism: 'Content-Usage', value: 'train-ai=y', urls: '/' }],
    ['signals', 'ai-input', { preference: 'unknown', since: null, line: null, mechanism: null, value: null }],
  ])('%s, %s: the deciding line as written', async (site, purpose, expected) => {
    const [row] = (await json([])).filter((r) => r.origin === p.origin(site) && r.purpose === purpose);
    expect(row).toMatchObject(expected);
  });

  it('a site that states nothing (for the purpose asked) is left out, unless --preference unknown asks for it', async () => {
    const sites = async (args: string[]) => [...new Set((await json(args)).map((r) => r.origin))];
    expect(await sites(['--portfolio', 'others'])).toEqual([p.origin('strict')]);
    expect(await sites(['--purpose', 'ai-input'])).toEqual([]);
    expect(await sites(['--portfolio', 'others', '--preference', 'unknown'])).toEqual(['silent', 'strict', 'withdrawn'].map((s) => p.origin(s)));
  });

  it.each<[string, string[], string[]]>([
    ['--purpose', ['--purpose', 'search'], ['signals search allowed']],
    ['--preference', ['--preference', 'allowed'], ['paths ai-train allowed', 'signals search allowed']],
    ['--purpose and --preference', ['--purpose', 'ai-train', '--preference', 'refused'], ['owngroup ai-train refused', 'paths ai-train refused', 'signals ai-train refused', 'strict ai-train refused']],
  ])('%s narrows the rows', async (_name, args, expected) => {
    const found = (await json(args)).filter((r) => r.preference !== 'unknown' && r.preference !== 'not-crawlable');
    expect(found.map((r) => brief(r).split(' ').slice(0, 3).join(' '))).toEqual(expected);
  });

  it('--since: the preferences changed since the night, with the one before (a preference withdrawn included)', async () => {
    expect(await json(['--since', '2026-04-02'])).toEqual([
      { origin: p.origin('withdrawn'), purpose: 'search', preference: 'unknown', before: 'allowed', since: null, line: null, mechanism: null, value: null, urls: '/', crawlers: `all ${agents.length}` },
    ]);
    // First stated on night 1: a preference stated since then, nothing before it.
    expect((await json(['--since', '2026-04-01', '--purpose', 'search', '--preference', 'allowed'])).map((r) => [brief(r), r.before])).toEqual([
      [`signals search allowed / all ${agents.length}`, null],
    ]);
  });

  it('--contradictions: AI training refused while AI-training crawlers of the catalogue may crawl the root, named', async () => {
    const rows = await json(['--contradictions']);
    expect(rows.map((r) => [brief(r), r.mayCrawl])).toEqual([
      [`owngroup ai-train refused / all ${agents.length} but GPTBot`, `all ${TRAINING.length}`],
      [`paths ai-train refused /private/x all ${agents.length}`, `all ${TRAINING.length}`],
      [`signals ai-train refused / all ${agents.length}`, `all ${TRAINING.length}`],
    ]);
    // strict refuses every AI-training crawler the root: its ai-train=no contradicts nothing.
    expect(rows.map((r) => r.origin)).not.toContain(p.origin('strict'));
  });

  it('the table and the CSV have the same headings; --since adds BEFORE, --contradictions the crawlers', async () => {
    const headings = async (args: string[]) => Object.keys((parseCsv((await p.cli(['report', 'ai-use', ...args, '--format', 'csv'])).stdout, { columns: true }) as Record<string, string>[])[0]!);
    const base = ['SITE', 'PURPOSE', 'PREFERENCE', 'SINCE', 'LINE', 'MECHANISM', 'VALUE', 'URLS', 'CRAWLERS'];
    expect(await headings([])).toEqual(base);
    expect(await headings(['--since', '2026-04-01'])).toEqual([...base.slice(0, 3), 'BEFORE', ...base.slice(3)]);
    expect(await headings(['--contradictions'])).toEqual([...base, 'TRAINING CRAWLERS MAY CRAWL']);
    const table = await p.cli(['report', 'ai-use', '--portfolio', 'publishers']);
    expect(table.stdout.split('\n')[0]).toMatch(/^SITE +PURPOSE +PREFERENCE +SINCE +LINE +MECHANISM +VALUE +URLS +CRAWLERS$/);
  });
});

describe('report ai-use: mistakes get one line', () => {
  it.each([
    [['status', '--purpose', 'ai-train'], 2, /^robots-audit: --purpose applies to report ai-use only\n$/],
    [['flips', '--contradictions'], 2, /^robots-audit: --contradictions applies to report ai-use only\n$/],
    [['ai-use', '--contradictions', '--purpose', 'search'], 2, /^robots-audit: --contradictions is about ai-train: leave out --purpose search\n$/],
    [['ai-use', '--contradictions', '--preference', 'allowed'], 2, /^robots-audit: --contradictions is about ai-train refused: leave out --preference allowed\n$/],
    [['ai-use', '--purpose', 'training'], 1, /argument 'training' is invalid\. Allowed choices are search, ai-train, ai-input/],
    [['ai-use', '--preference', 'no'], 1, /argument 'no' is invalid\. Allowed choices are allowed, refused, unknown, not-crawlable/],
  ] as const)('report %j', async (args, code, message) => {
    const run = await p.cli(['report', ...args]);
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});
