/**
 * The repos behind the tracking and alerting commands, against a real database: every write is
 * idempotent (habit 5), and `evaluationTargets` unites default, portfolio and URL agents.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRepos, deliveryDedupeKey, mergeAgentTokens, severitiesAtLeast } from '../../../src/db/index.js';
import type { AlertInput, Repos } from '../../../src/db/index.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';

let testDb: TestDatabase;
let repos: Repos;

const DEFAULT_TOKENS = ['Googlebot', 'Bingbot', 'GPTBot', 'ChatGPT-User', 'OAI-SearchBot', 'ClaudeBot', 'CCBot', 'Google-Extended', 'PerplexityBot', 'Applebot-Extended'];

beforeAll(async () => {
  testDb = await createTestDatabase();
  repos = createRepos(testDb.db);
});
afterAll(async () => {
  await testDb?.close();
});
beforeEach(async () => {
  await testDb.db.execute(sql`truncate sites, portfolios, audit_runs, alert_channels, alerts restart identity cascade`);
  await testDb.db.execute(sql`delete from user_agents where not is_default`);
});

async function count(table: string): Promise<number> {
  const rows = await testDb.db.execute<{ n: string }>(sql`select count(*) as n from ${sql.identifier(table)}`);
  return Number(rows.rows[0]!.n);
}

async function site(origin: string, portfolios: string[] = []): Promise<number> {
  await repos.sites.upsertSites([{ origin, portfolios }]);
  return (await repos.sites.findSiteByOrigin(origin))!.id;
}

describe('tracked URLs', () => {
  it('track is idempotent and stores the canonical URL with its path (D-5)', async () => {
    const id = await site('https://a.example');
    const first = await repos.trackedUrls.track(id, ['https://a.example/x?q#f', 'https://A.example/caf\u00e9']);
    expect(first).toEqual({ added: ['https://a.example/x?q', 'https://a.example/caf%C3%A9'], existing: [] });
    const second = await repos.trackedUrls.track(id, ['https://a.example/x?q']);
    expect(second).toEqual({ added: [], existing: ['https://a.example/x?q'] });
    const list = await repos.trackedUrls.listTracked(id);
    expect(list.map((t) => [t.url, t.path, t.isRoot])).toEqual([
      ['https://a.example/', '/', true],
      ['https://a.example/caf%C3%A9', '/caf%C3%A9', false],
      ['https://a.example/x?q', '/x?q', false],
    ]);
  });

  it('a URL outside the site throws and writes nothing', async () => {
    const id = await site('https://a.example');
    await expect(repos.trackedUrls.track(id, ['https://a.example/ok', 'https://b.example/x'])).rejects.toThrow('https://b.example/x is not in the scope of https://a.example');
    expect(await count('tracked_urls')).toBe(1);
  });

  it('extra agents merge case-insensitively, first spelling kept', async () => {
    const id = await site('https://a.example');
    await repos.trackedUrls.track(id, ['https://a.example/p'], ['GPTBot', 'gptbot']);
    await repos.trackedUrls.track(id, ['https://a.example/p'], ['GPTBOT', 'CCBot']);
    await repos.trackedUrls.track(id, ['https://a.example/p']);
    expect((await repos.trackedUrls.listTracked(id))[1]!.extraAgents).toEqual(['GPTBot', 'CCBot']);
  });

  it('untrack never removes the root and counts what it removed', async () => {
    const id = await site('https://a.example');
    await repos.trackedUrls.track(id, ['https://a.example/p']);
    expect(await repos.trackedUrls.untrack(id, ['https://a.example/', 'https://a.example/p', 'https://a.example/none'])).toBe(1);
    expect(await repos.trackedUrls.untrack(id, ['https://a.example/p'])).toBe(0);
    expect((await repos.trackedUrls.listTracked(id)).map((t) => t.url)).toEqual(['https://a.example/']);
  });
});

describe('evaluationTargets: defaults ∪ portfolio extras ∪ URL extras, each once', () => {
  it('unites the three lists without duplicates (any case), creating rows for new tokens', async () => {
    const id = await site('https://a.example', ['shop', 'news']);
    const ids = await repos.portfolios.ensurePortfolios(['shop', 'news', 'other']);
    await repos.portfolios.setExtraUserAgents(ids.get('shop')!, ['Bytespider', 'googlebot']);
    await repos.portfolios.setExtraUserAgents(ids.get('news')!, ['bytespider', 'AhrefsBot']);
    await repos.portfolios.setExtraUserAgents(ids.get('other')!, ['NotMyPortfolioBot']);
    await repos.trackedUrls.track(id, ['https://a.example/shop/'], ['ahrefsbot', 'MyCrawler', 'GPTBOT']);

    const targets = await repos.trackedUrls.evaluationTargets(id);
    expect(targets.map((t) => [t.url, t.path, t.isRoot])).toEqual([
      ['https://a.example/', '/', true],
      ['https://a.example/shop/', '/shop/', false],
    ]);
    // Portfolios in name order, news then shop; a new token is stored as first written.
    const siteAgents = [...DEFAULT_TOKENS, 'bytespider', 'AhrefsBot'];
    expect(targets[0]!.agents.map((a) => a.token)).toEqual(siteAgents);
    expect(targets[1]!.agents.map((a) => a.token)).toEqual([...siteAgents, 'MyCrawler']);

    const agentRows = await repos.userAgents.listAgents();
    const byToken = new Map(agentRows.map((a) => [a.token, a]));
    for (const agent of targets[1]!.agents) expect(agent).toEqual({ id: byToken.get(agent.token)!.id, token: agent.token, family: byToken.get(agent.token)!.family });
    expect(byToken.get('bytespider')).toMatchObject({ isDefault: false, family: 'ai' });
    expect(byToken.get('AhrefsBot')).toMatchObject({ isDefault: false, family: 'seo' });
    expect(byToken.get('MyCrawler')).toMatchObject({ isDefault: false, family: null });
    expect(byToken.has('NotMyPortfolioBot')).toBe(false);

    // Asking again creates nothing and gives the same ids.
    const before = await count('user_agents');
    expect(await repos.trackedUrls.evaluationTargets(id)).toEqual(targets);
    expect(await count('user_agents')).toBe(before);
  });

  it('a retired default is no longer evaluated unless an extra list names it', async () => {
    const id = await site('https://a.example');
    await repos.userAgents.removeDefaults(['CCBot']);
    await repos.trackedUrls.track(id, ['https://a.example/p'], ['ccbot']);
    const [root, page] = await repos.trackedUrls.evaluationTargets(id);
    expect(root!.agents.map((a) => a.token)).not.toContain('CCBot');
    expect(page!.agents.at(-1)?.token).toBe('CCBot');
    await repos.userAgents.addDefaults(['CCBot']);
  });

  it('mergeAgentTokens keeps the first spelling and drops blanks', () => {
    expect(mergeAgentTokens(['A', ' b '], ['a', '', 'B', 'c'])).toEqual(['A', 'b', 'c']);
  });
});

describe('user agents', () => {
  it('ensureAgents is idempotent and case-insensitive', async () => {
    const first = await repos.userAgents.ensureAgents(['NewBot', 'googlebot']);
    const second = await repos.userAgents.ensureAgents(['NEWBOT', 'Googlebot']);
    expect([...second]).toEqual([...first]);
    expect(first.get('googlebot')).toMatchObject({ token: 'Googlebot', family: 'search' });
    expect(first.get('newbot')).toMatchObject({ token: 'NewBot', family: null });
    expect((await repos.userAgents.listAgents()).filter((a) => a.token.toLowerCase() === 'newbot')).toEqual([expect.objectContaining({ isDefault: false })]);
  });

  it('addDefaults and removeDefaults report what changed, twice safely', async () => {
    expect(await repos.userAgents.addDefaults(['X-Bot', 'x-bot'])).toEqual({ agents: [{ token: 'X-Bot', status: 'added' }] });
    expect(await repos.userAgents.addDefaults(['x-bot'])).toEqual({ agents: [{ token: 'X-Bot', status: 'unchanged' }] });
    expect(await repos.userAgents.removeDefaults(['X-BOT'])).toEqual({ removed: ['X-Bot'], notDefault: [] });
    expect(await repos.userAgents.removeDefaults(['X-BOT'])).toEqual({ removed: [], notDefault: ['X-BOT'] });
    expect(await repos.userAgents.addDefaults(['x-bot'])).toEqual({ agents: [{ token: 'X-Bot', status: 'restored' }] });
    await repos.userAgents.removeDefaults(['X-Bot']);
  });
});

describe('channels', () => {
  it('addChannel is idempotent on (kind, url); undefined settings are kept', async () => {
    const a = await repos.channels.addChannel({ kind: 'webhook', url: 'https://h.example/a', secret: 's1', minSeverity: 'critical' });
    const b = await repos.channels.addChannel({ kind: 'webhook', url: 'https://h.example/a', digest: true });
    expect([a.created, b.created]).toEqual([true, false]);
    expect(b.channel).toMatchObject({ id: a.channel.id, secret: 's1', minSeverity: 'critical', digest: true });
    expect(await count('alert_channels')).toBe(1);
  });

  it('enabledChannels leaves disabled ones out; removeChannel by URL removes every kind', async () => {
    await repos.channels.addChannel({ kind: 'webhook', url: 'https://h.example/a' });
    const slack = await repos.channels.addChannel({ kind: 'slack', url: 'https://h.example/a' });
    await repos.channels.addChannel({ kind: 'webhook', url: 'https://h.example/b' });
    await repos.channels.setEnabled(slack.channel.id, false);
    expect((await repos.channels.enabledChannels()).map((c) => c.kind + ' ' + c.url)).toEqual(['webhook https://h.example/a', 'webhook https://h.example/b']);
    expect(await repos.channels.removeChannel('https://h.example/a')).toBe(2);
    expect(await repos.channels.removeChannel(999)).toBe(0);
    expect(await count('alert_channels')).toBe(1);
  });
});

describe('alerts and deliveries', () => {
  let runId: number;
  let siteA: number;
  let siteB: number;

  beforeEach(async () => {
    runId = (await repos.runs.createRun({ runKey: 'nightly-test', trigger: 'scheduled', runAt: new Date() })).run.id;
    siteA = await site('https://a.example');
    siteB = await site('https://b.example');
  });

  const drafts = (): AlertInput[] => [
    { dedupeKey: 'rules_changed-a', runId, siteId: siteA, severity: 'warning', kind: 'rules_changed', title: 'rules changed on a', details: { diffLines: ['+ x'] } },
    { dedupeKey: 'site_unreachable-b', runId, siteId: siteB, severity: 'critical', kind: 'site_unreachable', title: 'b unreachable', details: {} },
    { dedupeKey: 'sitemaps_changed-a', runId, siteId: siteA, severity: 'info', kind: 'sitemaps_changed', title: 'sitemaps of a', details: {} },
  ];

  it('insertAlerts twice: one row each; the second call returns them all as existing', async () => {
    const first = await repos.alerts.insertAlerts(drafts());
    expect(first.inserted.map((a) => a.dedupeKey)).toEqual(['rules_changed-a', 'site_unreachable-b', 'sitemaps_changed-a']);
    expect(first.existing).toEqual([]);
    const second = await repos.alerts.insertAlerts([...drafts(), drafts()[0]!]);
    expect(second.inserted).toEqual([]);
    expect(second.existing).toEqual(first.inserted);
    expect(await count('alerts')).toBe(3);
  });

  it('insertAlerts with some new and some known keys returns both, in input order', async () => {
    await repos.alerts.insertAlerts(drafts().slice(0, 1));
    const mixed = await repos.alerts.insertAlerts(drafts());
    expect(mixed.inserted.map((a) => a.dedupeKey)).toEqual(['site_unreachable-b', 'sitemaps_changed-a']);
    expect(mixed.existing.map((a) => a.dedupeKey)).toEqual(['rules_changed-a']);
  });

  it('alertsOfRun: at or above the minimum severity, most severe first, with origins', async () => {
    await repos.alerts.insertAlerts(drafts());
    expect((await repos.alerts.alertsOfRun(runId, 'warning')).map((a) => [a.severity, a.origin])).toEqual([
      ['critical', 'https://b.example'],
      ['warning', 'https://a.example'],
    ]);
    expect(await repos.alerts.alertsOfRun(runId)).toHaveLength(3);
    expect(severitiesAtLeast('critical')).toEqual(['critical']);
  });

  it('createDeliveries is idempotent for alerts and run digests', async () => {
    const channel = (await repos.channels.addChannel({ kind: 'webhook', url: 'https://h.example/a', minSeverity: 'warning' })).channel;
    const { inserted: alertRows } = await repos.alerts.insertAlerts(drafts());
    const targets = [...alertRows.map((a) => ({ channelId: channel.id, alertId: a.id })), { channelId: channel.id, digestRunId: runId }];
    const first = await repos.alerts.createDeliveries(targets);
    expect(first.inserted.map((d) => d.dedupeKey)).toEqual([
      `ch${channel.id}:alert${alertRows[0]!.id}`,
      `ch${channel.id}:alert${alertRows[1]!.id}`,
      `ch${channel.id}:alert${alertRows[2]!.id}`,
      `ch${channel.id}:run${runId}:digest`,
    ]);
    expect(first.inserted.every((d) => d.status === 'pending' && d.attempts === 0)).toBe(true);
    const second = await repos.alerts.createDeliveries(targets);
    expect(second).toEqual({ inserted: [], existing: first.inserted });
    expect(await count('alert_deliveries')).toBe(4);
    expect(deliveryDedupeKey({ channelId: 3, digestRunId: 9 })).toBe('ch3:run9:digest');
    expect(deliveryDedupeKey({ channelId: 3, digestRunId: 9, late: true })).toBe('ch3:run9:late-digest');
  });

  it('getDelivery: the channel with its alert, or for a digest the run alerts the channel wants', async () => {
    const channel = (await repos.channels.addChannel({ kind: 'slack', url: 'https://h.example/s', minSeverity: 'warning', digest: true })).channel;
    const { inserted } = await repos.alerts.insertAlerts(drafts());
    const { inserted: deliveries } = await repos.alerts.createDeliveries([
      { channelId: channel.id, alertId: inserted[0]!.id },
      { channelId: channel.id, digestRunId: runId },
    ]);
    const single = await repos.alerts.getDelivery(deliveries[0]!.id);
    expect(single).toMatchObject({ channel: { id: channel.id, kind: 'slack' }, digestRunId: null, alerts: [{ dedupeKey: 'rules_changed-a', origin: 'https://a.example' }] });
    const digest = await repos.alerts.getDelivery(deliveries[1]!.id);
    expect(digest?.digestRunId).toBe(runId);
    expect(digest?.alerts.map((a) => a.dedupeKey)).toEqual(['site_unreachable-b', 'rules_changed-a']);
    expect(await repos.alerts.getDelivery(987_654)).toBeNull();
  });

  it('delivery status: failed attempts counted, delivered once, failed only from pending', async () => {
    const channel = (await repos.channels.addChannel({ kind: 'webhook', url: 'https://h.example/a' })).channel;
    const { inserted } = await repos.alerts.insertAlerts(drafts());
    const { inserted: [one, two] } = await repos.alerts.createDeliveries(inserted.slice(0, 2).map((a) => ({ channelId: channel.id, alertId: a.id })));

    expect(await repos.alerts.markAttemptFailed(one!.id, 'http_503', 503)).toMatchObject({ status: 'pending', attempts: 1, lastError: 'http_503', lastStatus: 503 });
    expect(await repos.alerts.markAttemptFailed(one!.id, 'ECONNREFUSED', null)).toMatchObject({ attempts: 2, lastError: 'ECONNREFUSED', lastStatus: null });
    const at = new Date('2026-11-22T03:00:00Z');
    expect(await repos.alerts.markDelivered(one!.id, 200, at)).toMatchObject({ status: 'delivered', attempts: 3, lastError: null, lastStatus: 200, deliveredAt: at });
    // A retried job that delivers again, or a late failure, changes nothing.
    expect(await repos.alerts.markDelivered(one!.id, 200)).toBeNull();
    expect(await repos.alerts.markAttemptFailed(one!.id, 'late', 500)).toBeNull();
    expect(await repos.alerts.markFailed(one!.id, 'late')).toBeNull();

    await repos.alerts.markAttemptFailed(two!.id, 'http_400', 400);
    expect(await repos.alerts.markFailed(two!.id)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'http_400', lastStatus: 400 });
    expect(await repos.alerts.markFailed(two!.id, 'again')).toBeNull();
    const rows = await testDb.db.execute<{ status: string; attempts: number }>(sql`select status, attempts from alert_deliveries order by id`);
    expect(rows.rows).toEqual([
      { status: 'delivered', attempts: 3 },
      { status: 'failed', attempts: 1 },
    ]);
  });
});
