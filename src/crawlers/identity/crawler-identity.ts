/**
 * How each crawler's operator says a request from it can be verified (issue 29): the IP range
 * files it publishes and the reverse-DNS domains its hosts resolve to, each fact with its source
 * and the date it was read. The facts are crawler-identity.json beside this module (README.md says
 * which operators publish nothing), imported as crawler-rules.ts imports its file. A crawler the
 * file does not list has no published way to be verified. Pure.
 */
import shipped from './crawler-identity.json' with { type: 'json' };
import { callerAgentKey } from '../../robots/user-agent.js';
import type { SourcedFact } from '../crawler-rules.js';

/** A range file an operator publishes, by the name the import and the judge know it by. */
export interface RangeSource {
  /** Kebab-case, unique: `googlebot`, `gptbot`, `applebot`, ... */
  readonly name: string;
  readonly operator: string;
  /** Where the operator publishes the file. */
  readonly url: string;
  /** The page that names the file, and the day it was read. */
  readonly source: string;
  readonly read: string;
  readonly says?: string;
}

/** What a caller needs of a range source to check an address against it. */
export type RangeSourceRef = Pick<RangeSource, 'name' | 'url' | 'operator'>;

/** One crawler's entry as crawler-identity.json stores it. */
export interface CrawlerIdentityEntry {
  /** The product token, spelt as the catalogue spells it. */
  readonly token: string;
  /** Names of the range sources whose addresses are the crawler's. */
  readonly ranges?: SourcedFact<readonly string[]>;
  /** Domains a forward-confirmed PTR name of the crawler's address ends in. */
  readonly reverseDns?: SourcedFact<readonly string[]>;
}

export interface IdentityMethods {
  readonly ranges: readonly RangeSourceRef[];
  /** Lower-case domain suffixes, matched on a label boundary. */
  readonly reverseDns: readonly string[];
}

interface CrawlerIdentityFile {
  readonly read: string;
  readonly rangeSources: readonly RangeSource[];
  readonly crawlers: readonly CrawlerIdentityEntry[];
}

const FILE = shipped as CrawlerIdentityFile;

/** When the shipped file was compiled. */
export const CRAWLER_IDENTITY_READ: string = FILE.read;

/** Every range source by name. */
export const RANGE_SOURCES: ReadonlyMap<string, RangeSource> = new Map(FILE.rangeSources.map((s) => [s.name, Object.freeze({ ...s })]));

/** The shipped entries, in file order. */
export const CRAWLER_IDENTITIES: readonly CrawlerIdentityEntry[] = Object.freeze(FILE.crawlers.map((e) => Object.freeze({ ...e })));

function methodsOf(entry: CrawlerIdentityEntry): IdentityMethods {
  const ranges = (entry.ranges?.value ?? []).map((name) => {
    const source = RANGE_SOURCES.get(name);
    // The unit tests hold the file to this; a typo must not pass for "nothing published".
    if (source === undefined) throw new Error(`crawler-identity.json: ${entry.token} names an unknown range source ${name}`);
    return Object.freeze({ name: source.name, url: source.url, operator: source.operator });
  });
  return Object.freeze({ ranges: Object.freeze(ranges), reverseDns: Object.freeze((entry.reverseDns?.value ?? []).map((s) => s.toLowerCase())) });
}

const BY_TOKEN: ReadonlyMap<string, IdentityMethods> = new Map(CRAWLER_IDENTITIES.map((e) => [callerAgentKey(e.token), methodsOf(e)]));

/** The entry of a product token (compared whole, ASCII case-insensitively), or null. */
export function findCrawlerIdentity(token: string): CrawlerIdentityEntry | null {
  return CRAWLER_IDENTITIES.find((e) => callerAgentKey(e.token) === callerAgentKey(token)) ?? null;
}

/** How a crawler can be verified, or null when its operator publishes no way. */
export function identityMethodsOf(token: string): IdentityMethods | null {
  return BY_TOKEN.get(callerAgentKey(token)) ?? null;
}
