/** The fetcher's public surface (src/http). */
export { fetchRobotsTxt } from './fetch-robots-txt.js';
export type { FetchResult, FetchHop, FetchedHeaders } from './fetch-result.js';
export { fetchOptionsFromConfig, defaultFetchOptions, resolveFetchOptions, type FetchOptions } from './options.js';
export { createFetchDispatcher, type FetchDispatcher, type FetchDispatcherOptions } from './fetch-dispatcher.js';
export { outcomeForStatus, errorCodeOf, FetchErrorCode, FOLLOWED_REDIRECT_STATUSES, type FetchOutcome } from './outcome.js';
export { cacheLifetime, parseCacheControl, type CacheLifetime, type CacheLifetimeSource, type CacheHeaders } from './cache-lifetime.js';
export { parseRetryAfter } from './retry-after.js';
export { parseHttpDate } from './http-date.js';
export { createSsrfGuard, classifyAddress, SsrfBlockedError, type SsrfGuard, type AddressVerdict } from './ssrf-guard.js';
export { parseResolvePins, findPin, type ResolvePin } from './resolve-pins.js';
export { HostGate, GateAbortedError, type Release } from './host-gate.js';
