/**
 * Who is it (issue 29): the crawler a User-Agent claims (agent-match.ts), the ways its operator
 * publishes to check the claim (crawler-identity.json), the range files (ip-ranges.ts), and the
 * verdict (identity.ts). Pure: DNS is src/http/reverse-dns.ts, the answer's shape is here.
 */
export { compileAgentMatcher } from './agent-match.js';
export type { AgentMatcher } from './agent-match.js';
export { parseIpAddress, canonicalIp } from './ip-address.js';
export type { IpAddress } from './ip-address.js';
export { parseRangeFile, parseCidr, IpRangeSet } from './ip-ranges.js';
export type { RangeFile } from './ip-ranges.js';
export { RANGE_SOURCES, CRAWLER_IDENTITIES, CRAWLER_IDENTITY_READ, findCrawlerIdentity, identityMethodsOf } from './crawler-identity.js';
export type { RangeSource, RangeSourceRef, CrawlerIdentityEntry, IdentityMethods } from './crawler-identity.js';
export { IDENTITIES, IDENTITY_METHODS, judgeIdentity, needsReverseDns, hostnameInDomain } from './identity.js';
export type { Identity, IdentityMethod, IdentityVerdict, IdentityInput } from './identity.js';
export type { ReverseDnsAnswer } from './reverse-dns-answer.js';
