/**
 * Reads the `robots.json` of the public ai.robots.txt list (github.com/ai-robots-txt/ai.robots.txt,
 * MIT) into catalogue entries, for `robots-audit agents import <robots.json>`. The file maps each
 * crawler's name to facts written by people: `operator`, `function`, `frequency`, `respect`,
 * `description` (all strings). How each becomes a field of ours is in README.md beside this file
 * ("Importing robots.json"). Pure: the caller reads the file.
 */
import { agentToken, callerAgentKey, isValidUserAgentToObey } from '../robots/user-agent.js';
import type { CrawlerCategory } from './categories.js';
import type { CatalogueEntry } from './entry.js';
import { UNKNOWN_OPERATOR } from './entry.js';

export interface SkippedName {
  name: string;
  reason: string;
}

export interface AiRobotsImport {
  /** One entry per importable name, in file order. */
  entries: CatalogueEntry[];
  /** The names that cannot be imported, in file order, each with the reason. */
  skipped: SkippedName[];
}

/** The fields this import reads; when present, each must be a string. Other fields are ignored. */
const STRING_FIELDS = ['operator', 'function', 'frequency', 'respect', 'description'] as const;
/** The facts of one entry that this import reads. */
export type AiRobotsFacts = Partial<Record<(typeof STRING_FIELDS)[number], string>>;

/**
 * Parses a robots.json text. The whole file is checked before anything is mapped: text that is
 * not JSON, a top level that is not an object, an entry that is not an object, or a known field
 * that is not a string throws one Error naming the problem, and nothing is returned. Then each
 * name is imported, or skipped with a reason when a robots.txt `User-agent:` line cannot name it
 * (T14) or when an earlier name is the same token in another case (R-41, T15).
 */
export function parseAiRobotsJson(text: string): AiRobotsImport {
  const file = readFile(text);
  const entries: CatalogueEntry[] = [];
  const skipped: SkippedName[] = [];
  // The first valid name of each token, so that a skipped name can say the list has its token.
  const validNames = new Map<string, string>();
  for (const [name] of file) {
    if (isValidUserAgentToObey(name) && !validNames.has(callerAgentKey(name))) validNames.set(callerAgentKey(name), name);
  }
  const seen = new Map<string, string>();
  for (const [name, facts] of file) {
    const problem = tokenProblem(name, validNames);
    if (problem !== null) {
      skipped.push({ name, reason: problem });
      continue;
    }
    const key = callerAgentKey(name);
    const first = seen.get(key);
    if (first !== undefined) {
      skipped.push({ name, reason: `the same token as "${first}" above: user-agent names compare case-insensitively (R-41, T15)` });
      continue;
    }
    seen.set(key, name);
    entries.push(entryOf(name, facts));
  }
  return { entries, skipped };
}

/** The file as [name, facts] pairs in file order, or an Error naming the first problem. */
function readFile(text: string): [string, AiRobotsFacts][] {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new Error(`robots.json is not JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(root)) {
    throw new Error(`robots.json must be a JSON object that maps each crawler name to an object of facts; its top level is ${describe(root)}`);
  }
  const pairs: [string, AiRobotsFacts][] = [];
  for (const [name, value] of Object.entries(root)) {
    if (!isPlainObject(value)) {
      throw new Error(`robots.json: the entry "${name}" is ${describe(value)}; every entry must be an object of facts`);
    }
    const facts: AiRobotsFacts = {};
    for (const field of STRING_FIELDS) {
      const v = value[field];
      if (v === undefined) continue;
      if (typeof v !== 'string') throw new Error(`robots.json: the entry "${name}" has "${field}" as ${describe(v)}; it must be a string`);
      facts[field] = v;
    }
    pairs.push([name, facts]);
  }
  return pairs;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Why `name` cannot be a catalogue token, or null when it can: it must be what Google's
 * `IsValidUserAgentToObey` accepts, letters, `-` and `_` only (T14; RFC 9309's product token).
 * A `User-agent:` line with anything else is cut at the first other character (T16, C10), so no
 * line names the crawler whole.
 */
function tokenProblem(name: string, validNames: ReadonlyMap<string, string>): string | null {
  if (isValidUserAgentToObey(name)) return null;
  if (name === '') return 'an empty name is not a product token (T14)';
  const read = agentToken(name.trim());
  const as = read === '' ? 'an empty name' : `"${read}"`;
  const named = validNames.get(read);
  const also = named === undefined ? '' : `, a token the list names as "${named}"`;
  return `not a product token: only letters, "-" and "_" may name a crawler (T14), and Google reads "User-agent: ${name}" as ${as} (T16, C10)${also}`;
}

function entryOf(token: string, facts: AiRobotsFacts): CatalogueEntry {
  const { operator, url } = operatorOfAiRobotsEntry(facts.operator);
  const description = facts.description?.trim() ?? '';
  return {
    token,
    operator,
    category: categoryOfAiRobotsEntry(facts),
    ...(description === '' ? {} : { description }),
    ...(url === undefined ? {} : { url }),
  };
}

/** The list's own labels (the entries it takes from knownagents.com), lower-cased, final dot dropped. */
const CATEGORY_OF_LABEL: Readonly<Record<string, CrawlerCategory>> = {
  'ai assistants': 'ai-assistant',
  'ai agents': 'ai-assistant',
  'ai coding agents': 'ai-assistant',
  'ai search crawlers': 'ai-search',
  'ai data scrapers': 'ai-training',
  'ai data providers': 'ai-training',
  'undocumented ai agents': 'ai-training',
};

/** A fetch made because a person asked: "user-initiated prompts", "only when prompted by a user", ... */
const USER_TRIGGERED = /\buser[- ]initiated\b|\bprompted by (?:a |the )?users?\b|\buser prompts?\b|\buser quer(?:y|ies)\b|\bon behalf of\b/i;
const SEARCH = /\bsearch\b/i;

/**
 * The category of an entry, first rule that applies: the list's own label in `function`; a
 * user-triggered fetch in `function` or `frequency` (ai-assistant); "search" in `function`
 * (ai-search); else ai-training, since every entry of the list is an AI crawler and one whose
 * purpose is unclear is treated as a bulk collector.
 */
export function categoryOfAiRobotsEntry(facts: Pick<AiRobotsFacts, 'function' | 'frequency'>): CrawlerCategory {
  const fn = facts.function?.trim() ?? '';
  const label = CATEGORY_OF_LABEL[fn.toLowerCase().replace(/\.$/, '')];
  if (label !== undefined) return label;
  if (USER_TRIGGERED.test(fn) || USER_TRIGGERED.test(facts.frequency ?? '')) return 'ai-assistant';
  if (SEARCH.test(fn)) return 'ai-search';
  return 'ai-training';
}

/** "Unclear at this time.", "Unknown", "No information provided.": the list does not know. */
const NOT_KNOWN = /^(?:unclear|unknown|no information)\b/i;
/** `[Name](https://...)`, the whole value. */
const MARKDOWN_LINK = /^\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)$/;
const BARE_URL = /^https?:\/\/\S+$/;
/** Where a name stops and the words about it start: "Cohere to download ...", "Ai2, a non-profit ...". */
const NAME_END = /,\s|\s(?:that|to)\s|\s\(|\.\s/;

/**
 * The operator's name and page: a Markdown link gives both; a bare URL gives the page and an
 * unknown name (a host name is not a name); a sentence ("Kagi that fetches web content ...")
 * gives the words before its first clause.
 */
export function operatorOfAiRobotsEntry(value: string | undefined): { operator: string; url?: string } {
  const text = value?.trim() ?? '';
  if (text === '' || NOT_KNOWN.test(text)) return { operator: UNKNOWN_OPERATOR };
  const link = MARKDOWN_LINK.exec(text);
  if (link !== null) return { operator: (link[1] as string).trim(), url: link[2] as string };
  if (BARE_URL.test(text)) return { operator: UNKNOWN_OPERATOR, url: text };
  const end = NAME_END.exec(text);
  return { operator: end === null ? text : text.slice(0, end.index) };
}
