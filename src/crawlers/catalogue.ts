/**
 * The crawler catalogue: every crawler the product knows by its robots.txt product token, with
 * its operator and category. The entries are data (catalogue.json; where each fact comes from
 * is in README.md beside it), imported as a module so that the same path works from the
 * sources and from a compiled build. Pure: no I/O beyond that import.
 */
import shipped from './catalogue.json' with { type: 'json' };
import { callerAgentKey } from '../robots/user-agent.js';
import type { CrawlerCategory } from './categories.js';
import type { CatalogueEntry } from './entry.js';

const ENTRIES: readonly CatalogueEntry[] = Object.freeze((shipped as CatalogueEntry[]).map((e) => Object.freeze({ ...e })));

/** Lower-cased token -> entry: tokens compare case-insensitively, ASCII only (R-41, T15, C12). */
const BY_TOKEN: ReadonlyMap<string, CatalogueEntry> = new Map(ENTRIES.map((e) => [callerAgentKey(e.token), e]));

/** The shipped entries, most relevant first (README.md, "How the entries were made"). */
export function catalogue(): readonly CatalogueEntry[] {
  return ENTRIES;
}

/**
 * The entry of a product token, or null. Tokens compare case-insensitively, ASCII only (R-41,
 * T15, C12), and whole, as Google compares a caller's name (T17, C30): `GPTBot/1.1` or ` GPTBot`
 * finds nothing; cutting a User-Agent header down to its token is the caller's choice.
 */
export function findCrawler(token: string): CatalogueEntry | null {
  return BY_TOKEN.get(callerAgentKey(token)) ?? null;
}

/** The shipped entries of the given categories, in catalogue order. */
export function crawlersIn(categories: readonly CrawlerCategory[]): CatalogueEntry[] {
  return ENTRIES.filter((e) => categories.includes(e.category));
}
