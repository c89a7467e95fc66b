import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { createGuardedLookup, type Resolver } from '../../../src/http/guarded-lookup.js';
import { parseResolvePins } from '../../../src/http/resolve-pins.js';
import { createSsrfGuard } from '../../../src/http/ssrf-guard.js';

interface Answer {
  err: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
}

/** A resolver that answers from a table and records what it was asked; no DNS traffic. */
function tableResolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolver: Resolver = (hostname, _options, callback) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = 'ENOTFOUND';
      return callback(err, []);
    }
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { resolver, asked };
}

function lookupOnce(lookup: ReturnType<typeof createGuardedLookup>, host: string, all = false): Promise<Answer> {
  return new Promise((resolve) => lookup(host, { all }, (err, address, family) => resolve({ err, address, family })));
}

const table = {
  'public.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example': ['10.1.2.3'],
  'mixed.example': ['93.184.215.14', '127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'empty.example': [],
};

describe('guarded lookup: every resolved address passes the SSRF guard before a connection', () => {
  const { resolver } = tableResolver(table);
  const lookup = createGuardedLookup({ guard: createSsrfGuard(), pins: [], resolver });

  it('answers public addresses as net.connect expects (all: true)', async () => {
    const { err, address } = await lookupOnce(lookup, 'public.example', true);
    expect(err).toBeNull();
    expect(address).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
  });

  it('answers the first address when all is false', async () => {
    expect(await lookupOnce(lookup, 'public.example')).toEqual({ err: null, address: '93.184.215.14', family: 4 });
  });

  it.each<[string, string]>([
    ['internal.example', '10.1.2.3'],
    ['metadata.example', '169.254.169.254'],
    ['mixed.example', '127.0.0.1'], // one bad address fails the whole name
  ])('%s is refused with SSRF_BLOCKED naming %s', async (host, blocked) => {
    const { err } = await lookupOnce(lookup, host, true);
    expect(err?.code).toBe('SSRF_BLOCKED');
    expect(err?.message).toContain(blocked);
    expect(err?.message).toContain(host);
  });

  it('passes DNS failures through with their code', async () => {
    expect((await lookupOnce(lookup, 'nowhere.example', true)).err?.code).toBe('ENOTFOUND');
    expect((await lookupOnce(lookup, 'empty.example', true)).err?.code).toBe('ENOTFOUND');
  });
});

describe('guarded lookup: pins and special-use names skip DNS, not the guard', () => {
  it('a pin answers without asking the resolver, and the pinned address is still judged', async () => {
    const { resolver, asked } = tableResolver(table);
    const pins = parseResolvePins(['*.test=127.0.0.1', 'blocked.test=10.0.0.1']);
    const lookup = createGuardedLookup({ guard: createSsrfGuard(['127.0.0.0/8']), pins, resolver });
    expect(await lookupOnce(lookup, 'a.test', true)).toEqual({ err: null, address: [{ address: '127.0.0.1', family: 4 }], family: undefined });
    const blocked = await lookupOnce(lookup, 'blocked.test', true);
    expect(blocked.err?.code).toBe('SSRF_BLOCKED');
    expect(blocked.err?.message).toContain('10.0.0.1');
    expect(asked).toEqual([]);
  });

  it('RFC 6761: .invalid never resolves and never reaches DNS', async () => {
    const { resolver, asked } = tableResolver(table);
    const lookup = createGuardedLookup({ guard: createSsrfGuard(), pins: [], resolver });
    const { err } = await lookupOnce(lookup, 'nonexistent.invalid', true);
    expect(err?.code).toBe('ENOTFOUND');
    expect(asked).toEqual([]);
  });

  it('RFC 6761: localhost is loopback without DNS, and so refused unless allowed', async () => {
    const { resolver, asked } = tableResolver(table);
    const refused = await lookupOnce(createGuardedLookup({ guard: createSsrfGuard(), pins: [], resolver }), 'api.localhost', true);
    expect(refused.err?.code).toBe('SSRF_BLOCKED');
    const allowed = await lookupOnce(createGuardedLookup({ guard: createSsrfGuard(['127.0.0.0/8', '::1/128']), pins: [], resolver }), 'localhost', true);
    expect(allowed.err).toBeNull();
    expect(asked).toEqual([]);
  });
});
