import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/demo/histories.js';
import type { CorpusVersion } from '../../demo-data/demo-history-sources.js';
import { historiesByHost, shippableVersions } from '../../demo-data/demo-history-sources.js';

const PLAIN = Buffer.from('User-agent: *\nDisallow: /search\n');
const BLOCKED = Buffer.from('User-agent: *\nDisallow: /search\n\nUser-agent: GPTBot\nDisallow: /\n');

const line = (host: string, source: string, date: string, body: Buffer): CorpusVersion => ({ host, source, date: new Date(date), sha256: sha256Hex(body), body });

describe('shippableVersions: only series from a repository that states a licence', () => {
  it.each<[string, string[], string[]]>([
    ['keeps the ISC series, drops the ones with no licence', ['avuim/RobotsTXTCrawler', 'bharath06/robotstxt', 'guardian/robots.txt'], ['avuim/RobotsTXTCrawler']],
    ['nothing shippable', ['bharath06/robotstxt', 'guardian/robots.txt'], []],
  ])('%s', (_, sources, kept) => {
    expect(shippableVersions(sources.map((source) => ({ source }))).map((x) => x.source)).toEqual(kept);
  });

  it('refuses a source whose licence is not on record', () => {
    expect(() => shippableVersions([{ source: 'someone/else' }])).toThrow(/no licence on record for someone\/else/);
  });
});

describe('historiesByHost: one history per host, in a stable order', () => {
  it('sorts hosts by name and versions by date', () => {
    const histories = historiesByHost([
      line('b.example', 'avuim/RobotsTXTCrawler', '2025-08-01T06:55:00Z', BLOCKED),
      line('a.example', 'avuim/RobotsTXTCrawler', '2025-07-29T13:16:45Z', PLAIN),
      line('b.example', 'avuim/RobotsTXTCrawler', '2025-07-29T13:16:45Z', PLAIN),
    ]);
    expect(histories.map((h) => [h.host, h.source, h.versions.map((v) => v.date.toISOString().slice(0, 10))])).toEqual([
      ['a.example', 'avuim/RobotsTXTCrawler', ['2025-07-29']],
      ['b.example', 'avuim/RobotsTXTCrawler', ['2025-07-29', '2025-08-01']],
    ]);
  });

  it('refuses a host whose series mixes collecting repositories', () => {
    expect(() => historiesByHost([line('a.example', 'x/one', '2025-07-29T00:00:00Z', PLAIN), line('a.example', 'x/two', '2025-07-30T00:00:00Z', BLOCKED)])).toThrow(
      /a\.example: versions from several sources \(x\/one, x\/two\)/,
    );
  });

  it('refuses a version that repeats the one before (the loader would reject the file)', () => {
    expect(() => historiesByHost([line('a.example', 'x/one', '2025-07-29T00:00:00Z', PLAIN), line('a.example', 'x/one', '2025-07-30T00:00:00Z', PLAIN)])).toThrow(
      /a\.example: the version of 2025-07-30T00:00:00.000Z repeats the one before/,
    );
  });
});
