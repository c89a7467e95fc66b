/**
 * `robots-audit portfolios list|schedule`: schedules stored in Postgres (the scheduler process
 * takes them up), checked before they are stored, listed with their next run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSites, rows } from '../../helpers/nightly.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

let p: Pipeline;

beforeAll(async () => {
  p = await startPipeline({ workers: false });
});
afterAll(async () => p?.close());

const scheduleRow = async (name: string) =>
  (await rows<{ schedule_cron: string | null; schedule_timezone: string | null }>(p, 'select schedule_cron, schedule_timezone from portfolios where name = $1', [name]))[0];

describe('portfolios list', () => {
  it('with none: says how one is made', async () => {
    const run = await p.cli(['portfolios', 'list']);
    expect(run).toMatchObject({ code: 0, stdout: 'no portfolios (sites add --portfolio <name> makes one)\n' });
  });

  it('every portfolio with its sites and schedule, as a table and as JSON', async () => {
    await addSites(p, ['pl-a', 'pl-b'], 'clients');
    await addSites(p, ['pl-c'], 'brands');
    expect((await p.cli(['portfolios', 'schedule', 'clients', '--cron', '*/15 * * * *', '--tz', 'Europe/Paris'])).code).toBe(0);
    const table = await p.cli(['portfolios', 'list']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PORTFOLIO\s+SITES\s+SCHEDULE\s+NEXT RUN$/);
    expect(lines[1]).toMatch(/^brands\s+1\s+-\s+-$/);
    expect(lines[2]).toMatch(/^clients\s+2\s+\*\/15 \* \* \* \* \(Europe\/Paris\)\s+\d{4}-\d\d-\d\dT\d\d:(00|15|30|45):00\.000Z$/);

    const json = await p.cli(['portfolios', 'list', '--json']);
    const list = JSON.parse(json.stdout) as { name: string; sites: number; schedule: { cron: string; timeZone: string; next: string } | null }[];
    expect(list.map((x) => [x.name, x.sites, x.schedule?.cron ?? null, x.schedule?.timeZone ?? null])).toEqual([
      ['brands', 1, null, null],
      ['clients', 2, '*/15 * * * *', 'Europe/Paris'],
    ]);
    const next = new Date(list[1]!.schedule!.next).getTime();
    expect(next).toBeGreaterThan(Date.now());
    expect(next - Date.now()).toBeLessThanOrEqual(15 * 60_000);
  });
});

describe('portfolios schedule', () => {
  it('stores the pattern and zone (UTC unless --tz), and --off removes them', async () => {
    await addSites(p, ['ps-a'], 'weekly');
    const on = await p.cli(['portfolios', 'schedule', 'weekly', '--cron', '0  6 * *  1']);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toMatch(/^portfolio weekly: runs on '0 6 \* \* 1' \(UTC\), next at \d{4}-\d\d-\d\dT06:00:00\.000Z; the scheduler takes it up within 60 s\n$/);
    expect(await scheduleRow('weekly')).toEqual({ schedule_cron: '0 6 * * 1', schedule_timezone: 'UTC' });

    const off = await p.cli(['portfolios', 'schedule', 'weekly', '--off']);
    expect(off).toMatchObject({ code: 0, stdout: 'portfolio weekly: schedule removed; the scheduler drops it within 60 s\n' });
    expect(await scheduleRow('weekly')).toEqual({ schedule_cron: null, schedule_timezone: null });
    expect(await p.cli(['portfolios', 'schedule', 'weekly', '--off'])).toMatchObject({ code: 0, stdout: 'portfolio weekly: had no schedule\n' });
  });

  it.each([
    ['an unknown portfolio', ['nope', '--cron', '* * * * *'], 1, 'robots-audit: unknown portfolio "nope"\n'],
    ['a bad pattern', ['weekly', '--cron', '61 * * * *'], 2, 'robots-audit: cron "61 * * * *": Constraint error, got value 61 expected range 0-59\n'],
    ['an unknown zone', ['weekly', '--cron', '0 3 * * *', '--tz', 'Europe/Atlantis'], 2, 'robots-audit: unknown time zone "Europe/Atlantis" (an IANA name such as Europe/Paris, or UTC)\n'],
    ['neither --cron nor --off', ['weekly'], 2, 'robots-audit: give either --cron <pattern> or --off\n'],
    ['both', ['weekly', '--cron', '* * * * *', '--off'], 2, 'robots-audit: give either --cron <pattern> or --off\n'],
    ['--tz with --off', ['weekly', '--off', '--tz', 'UTC'], 2, 'robots-audit: --tz goes with --cron\n'],
  ])('refuses %s, storing nothing', async (_name, args, code, stderr) => {
    const before = await rows(p, 'select name, schedule_cron, schedule_timezone from portfolios order by name');
    const run = await p.cli(['portfolios', 'schedule', ...args]);
    expect(run).toMatchObject({ code, stderr, stdout: '' });
    expect(await rows(p, 'select name, schedule_cron, schedule_timezone from portfolios order by name')).toEqual(before);
  });

  it('the database refuses half a schedule', async () => {
    await expect(p.db.pool.query("update portfolios set schedule_cron = '* * * * *' where name = 'weekly'")).rejects.toThrow(/portfolios_schedule_complete/);
  });
});
