/**
 * `robots-audit sites add|import|list|remove` against a real database, run in-process through
 * `main(argv, io)`. Each command gets `--database-url` for this file's database: `config()` reads
 * DATABASE_URL once per process, so the flag is how in-process callers pick a database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSitesRepo } from '../../../src/db/sites.repo.js';
import { runCli } from '../../helpers/cli.js';
import type { CliRun, RunCliOptions } from '../../helpers/cli.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';

let testDb: TestDatabase;
let tmp: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'robots-audit-sites-'));
});
afterAll(async () => {
  await testDb?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
beforeEach(async () => {
  await testDb.db.execute(sql`truncate sites, portfolios restart identity cascade`);
});

function sites(args: string[], options: RunCliOptions = {}): Promise<CliRun> {
  return runCli(['sites', ...args, '--database-url', testDb.url], options);
}

function csvFile(name: string, text: string): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return file;
}

async function listJson(extra: string[] = []) {
  const run = await sites(['list', '--json', ...extra]);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as { origin: string; enabled: boolean; portfolios: string[]; labels: Record<string, string> }[];
}

async function count(table: 'sites' | 'portfolios' | 'portfolio_sites' | 'tracked_urls'): Promise<number> {
  const rows = await testDb.db.execute<{ n: string }>(sql`select count(*) as n from ${sql.identifier(table)}`);
  return Number(rows.rows[0]!.n);
}

describe('sites add: every URL reduced to its origin (R-1..R-6)', () => {
  it.each([
    ['example.com', 'https://example.com'],
    ['https://Example.COM:443/some/page?q=1#x', 'https://example.com'],
    ['http://example.com:80/robots.txt', 'http://example.com'],
    ['http://example.com:8080/', 'http://example.com:8080'],
    ['https://www.müller.eu/', 'https://www.xn--mller-kva.eu'],
  ])('%s is stored as %s', async (input, origin) => {
    const run = await sites(['add', input]);
    expect(run).toEqual({ code: 0, stdout: `added ${origin}\n`, stderr: '' });
    expect((await listJson()).map((s) => s.origin)).toEqual([origin]);
  });

  it('a bad URL is reported with its reason and exit code 1; the good ones are added', async () => {
    const run = await sites(['add', 'a.example', 'http://exa mple.com', 'gopher://x.example', 'b.example']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'invalid URL "http://exa mple.com": not a URL\ninvalid URL "gopher://x.example": unsupported scheme gopher (R-6: http, https, ftp)\n',
    );
    expect(run.stdout).toBe('added https://a.example\nadded https://b.example\n');
    expect((await listJson()).map((s) => s.origin)).toEqual(['https://a.example', 'https://b.example']);
  });

  it('adding again merges labels (new value wins) and portfolio membership', async () => {
    await sites(['add', 'a.example', '--portfolio', 'shop', '--label', 'team=seo', '--label', 'tier=1']);
    const again = await sites(['add', 'https://a.example/x', '--portfolio', 'news', '--label', 'tier=2;owner=ana']);
    expect(again).toEqual({ code: 0, stdout: 'updated https://a.example\n', stderr: '' });
    expect(await listJson()).toEqual([
      { origin: 'https://a.example', enabled: true, portfolios: ['news', 'shop'], labels: { team: 'seo', tier: '2', owner: 'ana' }, createdAt: expect.any(String) },
    ]);
    expect(await count('sites')).toBe(1);
    expect(await count('tracked_urls')).toBe(1);
  });

  it('a bad --label is a usage error and adds nothing', async () => {
    const run = await sites(['add', 'a.example', '--label', 'tier']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('robots-audit: --label: bad label "tier" (expected key=value)\n');
    expect(await count('sites')).toBe(0);
  });

  it('creates the root tracked URL of each site once', async () => {
    await sites(['add', 'a.example']);
    await sites(['add', 'a.example']);
    const rows = await testDb.db.execute<{ url: string; path: string; is_root: boolean }>(sql`select url, path, is_root from tracked_urls`);
    expect(rows.rows).toEqual([{ url: 'https://a.example/', path: '/', is_root: true }]);
  });
});

describe('sites list', () => {
  beforeEach(async () => {
    await sites(['add', 'b.example', 'a.example', '--portfolio', 'shop', '--label', 'team=seo']);
    await sites(['add', 'c.example']);
  });

  it('prints a table by origin', async () => {
    const run = await sites(['list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'ORIGIN             PORTFOLIOS  LABELS',
        'https://a.example  shop        team=seo',
        'https://b.example  shop        team=seo',
        'https://c.example  -           -',
        '',
      ].join('\n'),
    );
  });

  it('--portfolio keeps that portfolio\'s sites', async () => {
    expect((await listJson(['--portfolio', 'shop'])).map((s) => s.origin)).toEqual(['https://a.example', 'https://b.example']);
  });

  it('an unknown portfolio is an error', async () => {
    const run = await sites(['list', '--portfolio', 'nope']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'robots-audit: unknown portfolio "nope"\n' });
  });
});

describe('sites remove', () => {
  it('removes sites by any of their URLs and reports those not monitored', async () => {
    await sites(['add', 'a.example', 'b.example', '--portfolio', 'shop']);
    const run = await sites(['remove', 'https://A.example/page', 'z.example']);
    expect(run).toEqual({ code: 0, stdout: 'removed https://a.example\n1 site removed\n', stderr: 'not monitored: https://z.example\n' });
    expect((await listJson()).map((s) => s.origin)).toEqual(['https://b.example']);
    expect(await count('portfolio_sites')).toBe(1);
    expect(await count('tracked_urls')).toBe(1);
  });

  it('a bad URL gives exit code 1; the others are removed', async () => {
    await sites(['add', 'a.example']);
    const run = await sites(['remove', 'a.example', 'http://exa mple.com']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('invalid URL "http://exa mple.com": not a URL\n');
    expect(await count('sites')).toBe(0);
  });
});

describe('sites import', () => {
  it('imports every row with portfolio and labels', async () => {
    const file = csvFile('good.csv', 'url,portfolio,labels\na.example,shop,team=seo;tier=1\nhttps://b.example/x,,\nc.example,news,\n');
    const run = await sites(['import', file]);
    expect(run).toEqual({ code: 0, stdout: 'imported 3 sites: 3 added, 0 updated\n', stderr: '' });
    expect(await listJson()).toEqual([
      { origin: 'https://a.example', enabled: true, portfolios: ['shop'], labels: { team: 'seo', tier: '1' }, createdAt: expect.any(String) },
      { origin: 'https://b.example', enabled: true, portfolios: [], labels: {}, createdAt: expect.any(String) },
      { origin: 'https://c.example', enabled: true, portfolios: ['news'], labels: {}, createdAt: expect.any(String) },
    ]);
  });

  it('reports bad rows by line of the file and imports the good ones', async () => {
    const text = [
      'url,portfolio,labels', // line 1
      'a.example,shop,team=seo', // 2
      'http://exa mple.com,shop,', // 3
      ',shop,team=x', // 4
      '', // 5: blank, skipped
      'b.example,shop,tier', // 6
      '"c.example","multi', // 7: a quoted field over two lines
      'line portfolio",', // 8
      'd.example,shop,a=1,extra', // 9
      'gopher://x.example,,', // 10
      'e.example,,=1', // 11
      '',
    ].join('\n');
    const run = await sites(['import', csvFile('mixed.csv', text)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      [
        'line 3: invalid URL "http://exa mple.com": not a URL',
        'line 4: empty url',
        'line 6: bad label "tier" (expected key=value)',
        'line 9: 4 fields, the header has 3',
        'line 10: invalid URL "gopher://x.example": unsupported scheme gopher (R-6: http, https, ftp)',
        'line 11: bad label "=1" (empty key)',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toBe('imported 2 sites: 2 added, 0 updated\n');
    expect(await listJson()).toEqual([
      { origin: 'https://a.example', enabled: true, portfolios: ['shop'], labels: { team: 'seo' }, createdAt: expect.any(String) },
      { origin: 'https://c.example', enabled: true, portfolios: ['multi\nline portfolio'], labels: {}, createdAt: expect.any(String) },
    ]);
  });

  it.each([
    ['an unknown column', 'url,portfolio,lables\na.example,,\n', 'line 1: unknown column "lables" (columns: url, portfolio, labels)\n'],
    ['no url column', 'portfolio\nshop\n', 'line 1: no "url" column\n'],
    ['a column twice', 'url,url\na.example,b.example\n', 'line 1: column "url" appears twice\n'],
    ['an empty file', '', 'line 1: no header row (expected url,portfolio,labels)\n'],
  ])('%s: the file is refused and nothing is imported', async (_case, text, problem) => {
    await sites(['add', 'z.example']);
    const run = await sites(['import', csvFile('header.csv', text)]);
    expect(run).toEqual({ code: 1, stdout: '', stderr: `${problem}nothing imported\n` });
    expect((await listJson()).map((s) => s.origin)).toEqual(['https://z.example']);
  });

  it('rows of the same site merge: labels in file order, portfolios united', async () => {
    const file = csvFile('dupes.csv', 'url,portfolio,labels\na.example,shop,tier=1;team=seo\nhttps://a.example/other,news,tier=2\n');
    const run = await sites(['import', file]);
    expect(run).toEqual({ code: 0, stdout: 'imported 1 site: 1 added, 0 updated\n', stderr: '' });
    expect(await listJson()).toEqual([
      { origin: 'https://a.example', enabled: true, portfolios: ['news', 'shop'], labels: { tier: '2', team: 'seo' }, createdAt: expect.any(String) },
    ]);
  });

  it('importing the same file twice changes nothing the second time', async () => {
    const file = csvFile('twice.csv', 'url,portfolio,labels\na.example,shop,team=seo\nb.example,shop,\n');
    await sites(['import', file]);
    const before = await listJson();
    const run = await sites(['import', file]);
    expect(run.stdout).toBe('imported 2 sites: 0 added, 2 updated\n');
    expect(await listJson()).toEqual(before);
  });

  it('"-" reads standard input', async () => {
    const run = await sites(['import', '-'], { stdin: 'url\na.example\nb.example\n' });
    expect(run).toEqual({ code: 0, stdout: 'imported 2 sites: 2 added, 0 updated\n', stderr: '' });
  });

  it('a failure in the middle of the import leaves nothing written', async () => {
    // A real database error after the sites are inserted, inside the import's transaction:
    // memberships of portfolio "boom" are refused by a trigger.
    await testDb.db.execute(sql`
      create or replace function refuse_boom() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from portfolios where id = new.portfolio_id and name = 'boom') then
          raise exception 'membership of boom refused';
        end if;
        return new;
      end $$`);
    await testDb.db.execute(sql`create trigger refuse_boom before insert on portfolio_sites for each row execute function refuse_boom()`);
    try {
      const file = csvFile('boom.csv', 'url,portfolio\na.example,shop\nb.example,shop\nc.example,boom\n');
      const run = await sites(['import', file]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('import failed, nothing was written: ');
      expect(run.stderr).toContain('membership of boom refused');
      expect(await count('sites')).toBe(0);
      expect(await count('portfolios')).toBe(0);
      expect(await count('tracked_urls')).toBe(0);
    } finally {
      await testDb.db.execute(sql`drop trigger refuse_boom on portfolio_sites`);
    }
  });

  it('imports a large file in batches within one transaction', async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => `site-${i}.example,bulk,n=${i}`);
    const run = await sites(['import', csvFile('bulk.csv', `url,portfolio,labels\n${rows.join('\n')}\n`)]);
    expect(run).toEqual({ code: 0, stdout: 'imported 2500 sites: 2500 added, 0 updated\n', stderr: '' });
    expect(await count('portfolio_sites')).toBe(2500);
    const repo = createSitesRepo(testDb.db);
    expect((await repo.listSites({ portfolio: 'bulk' })).length).toBe(2500);
  });
});

describe('issue 17, item 9: sites add and import refuse what cannot be audited, in one line each', () => {
  it('a 10,000-character host, ftp and an IP address are refused with exit code 1; the good URL is added', async () => {
    const huge = `${'a.'.repeat(5_000)}example`;
    const run = await sites(['add', huge, 'ftp://files.example', 'https://10.0.0.1', 'ok.example']);
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/host too long \(10007 characters; a DNS name has at most 253\)/);
    expect(lines[0]!.length).toBeLessThan(200);
    expect(lines[1]).toMatch(/unsupported scheme ftp/);
    expect(lines[2]).toMatch(/IP address/);
    expect((await listJson()).map((s) => s.origin)).toEqual(['https://ok.example']);
  });

  it('a host with a final dot is the same site as without', async () => {
    expect((await sites(['add', 'trailing-dot.example'])).code).toBe(0);
    const again = await sites(['add', 'trailing-dot.example.:443']);
    expect(again.stdout).toBe('updated https://trailing-dot.example\n');
    expect(await count('sites')).toBe(1);
  });

  it('--allow-ip accepts an IP address', async () => {
    const run = await sites(['add', '--allow-ip', 'http://127.0.0.1:8080']);
    expect(run.code, run.stderr).toBe(0);
    expect((await listJson()).map((s) => s.origin)).toEqual(['http://127.0.0.1:8080']);
  });

  it('import reports each refused row by line and imports the others', async () => {
    const run = await sites(['import', csvFile('refused.csv', 'url\nftp://files.example\nhttps://10.0.0.1\nshop.example.\n')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^line 2: .*unsupported scheme ftp.*\nline 3: .*IP address.*\n$/);
    expect((await listJson()).map((s) => s.origin)).toEqual(['https://shop.example']);
  });
});
