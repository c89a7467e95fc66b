/**
 * `robots-audit track|untrack|tracked` against a real database, in-process. Paths are read
 * against the site's origin, full URLs must be in its scope (R-2..R-5), everything is stored in
 * canonical form (D-5), and the site root is always tracked.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import type { CliRun } from '../../helpers/cli.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';

let testDb: TestDatabase;

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb?.close();
});
beforeEach(async () => {
  await testDb.db.execute(sql`truncate sites, portfolios restart identity cascade`);
  await cli(['sites', 'add', 'a.example', 'http://b.example:8080']);
});

function cli(args: string[]): Promise<CliRun> {
  return runCli([...args, '--database-url', testDb.url]);
}

interface TrackedJson {
  origin: string;
  url: string;
  path: string;
  isRoot: boolean;
  extraAgents: string[];
}

async function trackedJson(site?: string): Promise<TrackedJson[]> {
  const run = await cli(['tracked', ...(site ? [site] : []), '--json']);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as TrackedJson[];
}

describe('track: paths and URLs of the site, in canonical form (D-5)', () => {
  it.each([
    ['/products/', 'https://a.example/products/', '/products/'],
    ['/a/../b?q=1#section', 'https://a.example/b?q=1', '/b?q=1'],
    ['/café', 'https://a.example/caf%C3%A9', '/caf%C3%A9'],
    ['https://A.EXAMPLE:443/x?y#z', 'https://a.example/x?y', '/x?y'],
    ['a.example/bare', 'https://a.example/bare', '/bare'],
  ])('%s is tracked as %s', async (input, url, path) => {
    const run = await cli(['track', 'a.example', input]);
    expect(run).toEqual({ code: 0, stdout: `tracked ${url}\n`, stderr: '' });
    expect(await trackedJson('a.example')).toEqual([
      { origin: 'https://a.example', url: 'https://a.example/', path: '/', isRoot: true, extraAgents: [] },
      { origin: 'https://a.example', url, path, isRoot: false, extraAgents: [] },
    ]);
  });

  it('a path is read against a non-default origin', async () => {
    const run = await cli(['track', 'http://b.example:8080/anything', '/p']);
    expect(run.stdout).toBe('tracked http://b.example:8080/p\n');
  });

  it('R-2..R-5: a URL of another host, scheme or port is refused; the others are tracked; exit code 1', async () => {
    const run = await cli(['track', 'a.example', 'https://b.example/x', 'http://a.example/x', 'https://a.example:8443/x', '//evil.example/x', '/ok']);
    expect(run.code).toBe(1);
    const reason = 'not on https://a.example (R-2..R-5: a robots.txt governs its own scheme, host and port)';
    expect(run.stderr).toBe(
      ['https://b.example/x', 'http://a.example/x', 'https://a.example:8443/x', '//evil.example/x'].map((u) => `invalid URL "${u}": ${reason}\n`).join(''),
    );
    expect(run.stdout).toBe('tracked https://a.example/ok\n');
    expect((await trackedJson('a.example')).map((t) => t.url)).toEqual(['https://a.example/', 'https://a.example/ok']);
  });

  it('a URL that cannot be parsed is reported with its reason', async () => {
    const run = await cli(['track', 'a.example', 'http://exa mple.com/x']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'invalid URL "http://exa mple.com/x": not a URL\n' });
  });

  it('issue 17: a site named with a final dot is the site without it', async () => {
    const run = await cli(['track', 'a.example.:443', '/dotted']);
    expect(run).toEqual({ code: 0, stdout: 'tracked https://a.example/dotted\n', stderr: '' });
  });

  it.each([
    ['ftp://a.example', /unsupported scheme ftp: sites are audited over http and https only/],
    [`${'a.'.repeat(200)}example`, /host too long \(407 characters; a DNS name has at most 253\)/],
  ])('issue 17: %s is refused in one line', async (site, reason) => {
    const run = await cli(['track', site, '/x']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(reason);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a site that is not monitored is an error', async () => {
    const run = await cli(['track', 'z.example', '/x']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'robots-audit: not monitored: https://z.example (add it with: robots-audit sites add https://z.example)\n' });
  });

  it('tracking again is idempotent; --ua agents merge case-insensitively, first spelling kept', async () => {
    await cli(['track', 'a.example', '/p', '--ua', 'GPTBot']);
    const again = await cli(['track', 'a.example', '/p', 'https://a.example/p#frag', '--ua', 'gptbot', '--ua', 'Bytespider']);
    expect(again).toEqual({ code: 0, stdout: 'already tracked https://a.example/p\nextra agents: gptbot, Bytespider\n', stderr: '' });
    expect(await trackedJson('a.example')).toEqual([
      expect.objectContaining({ isRoot: true }),
      { origin: 'https://a.example', url: 'https://a.example/p', path: '/p', isRoot: false, extraAgents: ['GPTBot', 'Bytespider'] },
    ]);
    const rows = await testDb.db.execute<{ n: string }>(sql`select count(*) as n from tracked_urls`);
    expect(Number(rows.rows[0]!.n)).toBe(3); // two roots and /p
  });

  it('the root can get extra agents too; it stays the root', async () => {
    await cli(['track', 'a.example', '/', '--ua', 'CCBot']);
    expect(await trackedJson('a.example')).toEqual([{ origin: 'https://a.example', url: 'https://a.example/', path: '/', isRoot: true, extraAgents: ['CCBot'] }]);
  });

  it('T14: a token that is not a product token is kept with a warning', async () => {
    const run = await cli(['track', 'a.example', '/w', '--ua', 'Foo/2.1']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('warning: "Foo/2.1" is not a user-agent token (T14: letters, "-" and "_" only); it can match no named group\n');
    expect((await trackedJson('a.example'))[1]!.extraAgents).toEqual(['Foo/2.1']);
  });
});

describe('untrack', () => {
  beforeEach(async () => {
    await cli(['track', 'a.example', '/one', '/two', '/three']);
  });

  it('removes URLs given as paths or URLs and counts them', async () => {
    const run = await cli(['untrack', 'a.example', '/one', 'https://a.example/two#x']);
    expect(run).toEqual({ code: 0, stdout: 'untracked https://a.example/one\nuntracked https://a.example/two\n2 URLs untracked\n', stderr: '' });
    expect((await trackedJson('a.example')).map((t) => t.url)).toEqual(['https://a.example/', 'https://a.example/three']);
  });

  it('never removes the site root: exit code 1, the other URLs still go', async () => {
    const run = await cli(['untrack', 'a.example', '/', '/three']);
    expect(run).toEqual({
      code: 1,
      stdout: 'untracked https://a.example/three\n1 URL untracked\n',
      stderr: 'robots-audit: the site root is always tracked: https://a.example/\n',
    });
    expect((await trackedJson('a.example')).map((t) => t.url)).toEqual(['https://a.example/', 'https://a.example/one', 'https://a.example/two']);
  });

  it('a URL that is not tracked is reported, not an error', async () => {
    const run = await cli(['untrack', 'a.example', '/never']);
    expect(run).toEqual({ code: 0, stdout: '0 URLs untracked\n', stderr: 'not tracked: https://a.example/never\n' });
  });
});

describe('tracked', () => {
  it('lists every site with its root first, extra agents beside', async () => {
    await cli(['track', 'a.example', '/shop/', '--ua', 'GPTBot', '--ua', 'CCBot']);
    const run = await cli(['tracked']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'URL                            EXTRA AGENTS',
        'http://b.example:8080/ (root)  -',
        'https://a.example/ (root)      -',
        'https://a.example/shop/        GPTBot,CCBot',
        '',
      ].join('\n'),
    });
  });

  it('one site only with <site>', async () => {
    expect((await trackedJson('http://b.example:8080')).map((t) => t.url)).toEqual(['http://b.example:8080/']);
  });

  it('an unknown site is an error', async () => {
    const run = await cli(['tracked', 'z.example']);
    expect(run.code).toBe(1);
  });
});
