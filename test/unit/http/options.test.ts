import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { defaultFetchOptions, fetchOptionsFromConfig, resolveFetchOptions } from '../../../src/http/options.js';

describe('fetch options: defaults come from src/config/env.ts', () => {
  it('R-11, R-17, R-18: the documented defaults', () => {
    expect(defaultFetchOptions()).toMatchObject({
      maxRedirects: 5,
      maxBodyBytes: 500 * 1024,
      defaultCacheSeconds: 24 * 3600,
      allowNetworks: [],
      resolvePins: [],
    });
  });

  it('maps every ROBOTS_AUDIT_* fetch setting', () => {
    const config = loadConfig({
      ROBOTS_AUDIT_USER_AGENT: 'ua/1',
      ROBOTS_AUDIT_MAX_REDIRECTS: '7',
      ROBOTS_AUDIT_MAX_BODY_BYTES: '1000',
      ROBOTS_AUDIT_MAX_DECODED_BYTES: '2000',
      ROBOTS_AUDIT_SMALL_BODY_BYTES: '300',
      ROBOTS_AUDIT_CONNECT_TIMEOUT_MS: '11',
      ROBOTS_AUDIT_HEADERS_TIMEOUT_MS: '12',
      ROBOTS_AUDIT_BODY_TIMEOUT_MS: '13',
      ROBOTS_AUDIT_TOTAL_TIMEOUT_MS: '14',
      ROBOTS_AUDIT_DEFAULT_CACHE_SECONDS: '15',
      ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8, ::1/128',
      ROBOTS_AUDIT_RESOLVE: '*.test=127.0.0.1,a.example=10.0.0.1',
    });
    const clock = () => new Date(0);
    const { now, ...rest } = fetchOptionsFromConfig(config, clock);
    expect(now).toBe(clock);
    expect(rest).toEqual({
      userAgent: 'ua/1',
      maxRedirects: 7,
      maxBodyBytes: 1000,
      maxDecodedBytes: 2000,
      smallBodyBytes: 300,
      connectTimeoutMs: 11,
      headersTimeoutMs: 12,
      bodyTimeoutMs: 13,
      totalTimeoutMs: 14,
      defaultCacheSeconds: 15,
      allowNetworks: ['127.0.0.0/8', '::1/128'],
      resolvePins: ['*.test=127.0.0.1', 'a.example=10.0.0.1'],
    });
  });

  it('resolveFetchOptions fills only what is left out or undefined', () => {
    const resolved = resolveFetchOptions({ maxRedirects: 2, userAgent: undefined });
    expect(resolved.maxRedirects).toBe(2);
    expect(resolved.userAgent).toBe(defaultFetchOptions().userAgent);
  });

  it.each([{ maxBodyBytes: 0 }, { smallBodyBytes: 0 }, { totalTimeoutMs: -1 }, { maxRedirects: 1.5 }, { connectTimeoutMs: Number.NaN }])('refuses %j', (bad) => {
    expect(() => resolveFetchOptions(bad)).toThrow(RangeError);
  });
});
