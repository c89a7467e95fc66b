/**
 * Crawler rules as data: what each crawler's operator documents about how it reads a robots.txt
 * (the product tokens it answers to, whether it reads the `*` group, whether it honours
 * robots.txt for the fetches it makes, the parser it uses), each fact with its source and the
 * date it was read. The facts are crawler-rules.json beside this module (docs/crawlers.md says
 * where each comes from), imported as a module as catalogue.ts imports catalogue.json. A crawler
 * the file does not list, or a fact it leaves out, is "unknown": nobody documents it. Pure.
 */
import shipped from './crawler-rules.json' with { type: 'json' };
import { callerAgentKey } from '../robots/user-agent.js';
import type { ParserProfileName } from '../robots/profiles/index.js';

/** `known`: the operator (or the library's maker) says so; `assumed`: inferred, and the note says from what. */
export type FactBasis = 'known' | 'assumed' | 'unknown';

/** One documented fact: its value, the page it comes from, the day it was read, and the page's words when they matter. */
export interface SourcedFact<T> {
  readonly value: T;
  readonly source: string;
  /** YYYY-MM-DD. */
  readonly read: string;
  readonly says?: string;
}

/** Whether a crawler reads the `*` group when no group names it (Google's special-case crawlers do not). */
export type StarGroupUse = 'reads' | 'ignores';

/** Whether a crawler applies robots.txt to the fetches it makes, in its operator's words. */
export type RobotsTxtUse = 'honours' | 'ignores' | 'may-ignore';

export interface CrawlerParser {
  /** One of the parser profiles (src/robots/profiles), or `unknown`: nobody documents it. */
  readonly profile: ParserProfileName | 'unknown';
  readonly basis: FactBasis;
  readonly source: string | null;
  /** YYYY-MM-DD: when the source was read, or when the file was compiled for an unknown parser. */
  readonly read: string;
  readonly says?: string;
}

/** One crawler's entry as crawler-rules.json stores it. */
export interface CrawlerRuleEntry {
  /** The product token, spelt as the catalogue spells it. */
  readonly token: string;
  /** Tokens whose group it follows when no group names it, most specific first. */
  readonly furtherTokens?: SourcedFact<readonly string[]>;
  /** Absent: undocumented (it is taken to read `*`, as RFC 9309 says a crawler does). */
  readonly starGroup?: SourcedFact<StarGroupUse>;
  /** Absent: undocumented. */
  readonly robotsTxt?: SourcedFact<RobotsTxtUse>;
  readonly parser: CrawlerParser;
}

interface CrawlerRulesFile {
  /** YYYY-MM-DD: when the file was compiled. */
  readonly read: string;
  readonly crawlers: readonly CrawlerRuleEntry[];
}

const FILE = shipped as CrawlerRulesFile;

/** The shipped entries, in file order. */
export const CRAWLER_RULES: readonly CrawlerRuleEntry[] = Object.freeze(FILE.crawlers.map((e) => Object.freeze({ ...e })));

/** When the shipped file was compiled (the date of an `unknown` parser). */
export const CRAWLER_RULES_READ: string = FILE.read;

const BY_TOKEN: ReadonlyMap<string, CrawlerRuleEntry> = new Map(CRAWLER_RULES.map((e) => [callerAgentKey(e.token), e]));

/** The entry of a product token (compared as Google compares a caller's name: whole, ASCII case-insensitively), or null. */
export function findCrawlerRules(token: string): CrawlerRuleEntry | null {
  return BY_TOKEN.get(callerAgentKey(token)) ?? null;
}

/** The parser of a crawler nobody documents. */
export const UNKNOWN_PARSER: CrawlerParser = Object.freeze({ profile: 'unknown', basis: 'unknown', source: null, read: FILE.read });

/** The parser a crawler is known or assumed to use; `unknown` when nobody documents it. */
export function parserOf(token: string): CrawlerParser {
  return findCrawlerRules(token)?.parser ?? UNKNOWN_PARSER;
}

/**
 * What a crawler's operator says of its use of robots.txt, in words with the source, when it does
 * not simply honour it (user-triggered fetchers); null otherwise.
 */
export function robotsTxtUseText(token: string): string | null {
  const entry = findCrawlerRules(token);
  const use = entry?.robotsTxt;
  if (!entry || !use || use.value === 'honours') return null;
  const what = use.value === 'ignores' ? 'its operator says it generally ignores robots.txt for the fetches it makes' : 'its operator says robots.txt rules may not apply to the fetches it makes';
  return `${entry.token}: ${what} (${use.source})`;
}

/**
 * Whether robots.txt binds a crawler's fetches, for judging what a log shows it did: false only
 * when its operator says the crawler ignores robots.txt or that its rules may not apply
 * (user-triggered fetchers); a crawler the rules say nothing of is bound, as RFC 9309 expects.
 */
export function isBoundByRobotsTxt(token: string): boolean {
  const use = findCrawlerRules(token)?.robotsTxt?.value;
  return use !== 'ignores' && use !== 'may-ignore';
}
