/**
 * Which series of the corpus's history.jsonl.gz the demo may ship, and how they are grouped
 * (pure; write-demo-histories.ts does the reading and writing). The data file is in the npm
 * package, which is redistribution: only series collected by a repository that states a
 * licence may go into it (test/fixtures/corpus/README.md, "Not copied: version histories").
 */
import type { DemoHistory, DemoVersion } from '../../src/demo/histories.js';

/**
 * The collecting repositories of history.jsonl.gz and their licences, as the corpus README
 * gives them; null where the repository states none.
 */
export const SOURCE_LICENCES: Readonly<Record<string, string | null>> = {
  'avuim/RobotsTXTCrawler': 'ISC (stated in its package.json; the repository has no LICENSE file)',
  'bharath06/robotstxt': null,
  'guardian/robots.txt': null,
};

/** The versions that may be shipped; a source not listed above is an error, not a guess. */
export function shippableVersions<V extends { source: string }>(versions: readonly V[]): V[] {
  const unknown = [...new Set(versions.map((v) => v.source))].filter((source) => !(source in SOURCE_LICENCES));
  if (unknown.length > 0) throw new Error(`no licence on record for ${unknown.join(', ')}: add it to SOURCE_LICENCES from the corpus README`);
  return versions.filter((v) => SOURCE_LICENCES[v.source] !== null);
}

/** One line of history.jsonl.gz, its body decoded to bytes. */
export interface CorpusVersion extends DemoVersion {
  host: string;
  source: string;
}

/**
 * The versions grouped into one history per host, hosts in alphabetical order and versions by
 * date (so that a regenerated file diffs cleanly). A host whose series mixes collecting
 * repositories, or repeats a body twice in a row, is refused: the corpus promises neither, and
 * the loader would reject the file.
 */
export function historiesByHost(versions: readonly CorpusVersion[]): DemoHistory[] {
  const hosts = new Map<string, CorpusVersion[]>();
  for (const v of versions) hosts.set(v.host, [...(hosts.get(v.host) ?? []), v]);
  return [...hosts.keys()].sort().map((host) => {
    const series = [...(hosts.get(host) ?? [])].sort((a, b) => a.date.getTime() - b.date.getTime());
    const sources = [...new Set(series.map((v) => v.source))];
    if (sources.length > 1) throw new Error(`${host}: versions from several sources (${sources.join(', ')})`);
    series.forEach((v, i) => {
      if (i > 0 && series[i - 1]?.sha256 === v.sha256) throw new Error(`${host}: the version of ${v.date.toISOString()} repeats the one before`);
    });
    return { host, source: sources[0] ?? '', versions: series.map(({ date, sha256, body }) => ({ date, sha256, body })) };
  });
}
