/**
 * The fetcher's DNS resolver (src/http/dns-resolver.ts): answers cached for their TTL (capped),
 * failures for a short while, one query per name at a time, a bounded cache, and names DNS does
 * not answer asked of the system (an /etc/hosts entry).
 */
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { createCachingResolver } from '../../../src/http/dns-resolver.js';
import type { DnsQueries } from '../../../src/http/dns-resolver.js';

type Records = Record<string, { v4?: string[]; v6?: string[]; ttl?: number }>;

function fakeDns(records: Records, options: { delayMs?: number } = {}) {
  const asked: string[] = [];
  const answer = (family: 'v4' | 'v6') => async (host: string) => {
    asked.push(`${family}:${host}`);
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const r = records[host];
    const addresses = r?.[family];
    if (!addresses) throw Object.assign(new Error(`no ${family} for ${host}`), { code: r ? 'ENODATA' : 'ENOTFOUND' });
    return addresses.map((address) => ({ address, ttl: r.ttl ?? 60 }));
  };
  const queries: DnsQueries = { resolve4: answer('v4'), resolve6: answer('v6') };
  return { queries, asked };
}

function resolverWith(records: Records, hosts: Record<string, string> = {}, extra: { delayMs?: number; maxEntries?: number } = {}) {
  let clock = 1_000_000;
  const dns = fakeDns(records, extra);
  const system: string[] = [];
  const resolve = createCachingResolver({
    cacheSeconds: 300,
    negativeCacheSeconds: 10,
    maxEntries: extra.maxEntries ?? 100,
    queries: dns.queries,
    systemLookup: async (host): Promise<LookupAddress[]> => {
      system.push(host);
      if (!hosts[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return [{ address: hosts[host]!, family: 4 }];
    },
    now: () => clock,
  });
  const lookup = (host: string) =>
    new Promise<LookupAddress[]>((resolvePromise, reject) => resolve(host, { all: true }, (err, addresses) => (err ? reject(err) : resolvePromise(addresses))));
  return { lookup, asked: dns.asked, system, advance: (ms: number) => (clock += ms) };
}

describe('answers', () => {
  it('both families, IPv4 first', async () => {
    const r = resolverWith({ 'a.example': { v4: ['192.0.2.1'], v6: ['2001:db8::1'] } });
    expect(await r.lookup('a.example')).toEqual([
      { address: '192.0.2.1', family: 4 },
      { address: '2001:db8::1', family: 6 },
    ]);
  });

  it('a name DNS does not know is asked of the system (/etc/hosts); unknown to both: ENOTFOUND', async () => {
    const r = resolverWith({}, { intranet: '10.1.2.3' });
    expect(await r.lookup('intranet')).toEqual([{ address: '10.1.2.3', family: 4 }]);
    await expect(r.lookup('nowhere.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(r.system).toEqual(['intranet', 'nowhere.example']);
  });
});

describe('the cache', () => {
  it.each<[string, number | undefined, number, boolean]>([
    // [case, record TTL s, time later ms, asked again]
    ['within the TTL: not asked again', 60, 59_000, false],
    ['past the TTL: asked again', 60, 61_000, true],
    ['a long TTL is capped at cacheSeconds (300 s)', 86_400, 301_000, true],
    ['a 0 s TTL is still shared for a second', 0, 500, false],
  ])('%s', async (_name, ttl, laterMs, again) => {
    const r = resolverWith({ 'a.example': { v4: ['192.0.2.1'], ttl } });
    await r.lookup('a.example');
    r.advance(laterMs);
    await r.lookup('a.example');
    expect(r.asked.filter((q) => q === 'v4:a.example')).toHaveLength(again ? 2 : 1);
  });

  it('a failure is remembered for negativeCacheSeconds (10 s), then asked again', async () => {
    const r = resolverWith({});
    await expect(r.lookup('gone.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    r.advance(9_000);
    await expect(r.lookup('gone.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(r.system).toEqual(['gone.example']);
    r.advance(2_000);
    await expect(r.lookup('gone.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(r.system).toEqual(['gone.example', 'gone.example']);
  });

  it('fetches asking at the same time share one query', async () => {
    const r = resolverWith({ 'a.example': { v4: ['192.0.2.1'] } }, {}, { delayMs: 20 });
    await Promise.all(Array.from({ length: 10 }, () => r.lookup('A.example')));
    expect(r.asked).toEqual(['v4:a.example', 'v6:a.example']);
  });

  it('holds at most maxEntries names, the oldest forgotten first', async () => {
    const r = resolverWith({ 'a.example': { v4: ['192.0.2.1'] }, 'b.example': { v4: ['192.0.2.2'] }, 'c.example': { v4: ['192.0.2.3'] } }, {}, { maxEntries: 2 });
    for (const h of ['a.example', 'b.example', 'c.example', 'c.example', 'b.example', 'a.example']) await r.lookup(h);
    expect(r.asked.filter((q) => q.startsWith('v4:'))).toEqual(['v4:a.example', 'v4:b.example', 'v4:c.example', 'v4:a.example']);
  });
});
