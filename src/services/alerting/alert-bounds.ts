/**
 * How an alert's lists and texts are cut to the limits of size-limits.ts (pure): a list of
 * strings ends with `… and N more <what>`, a list of objects keeps its first entries beside
 * `<list>Total`, a long string ends with `… (N more characters)`, a title names a few and counts
 * the rest. `boundAlertDetails` is the last line of defence: whatever a kind put in its details,
 * the JSON that is stored (and sent) stays under a number of bytes.
 */
import { MAX_ALERT_DETAILS_BYTES, MAX_ALERT_TITLE_CHARS, MAX_DETAIL_TEXT_CHARS, MAX_TITLE_NAMES } from './size-limits.js';

/** The entry that ends a cut list of strings. */
export function moreEntry(count: number, what: string): string {
  return `… and ${count} more ${what}`;
}

/** Reads back an entry of `moreEntry` (the last of a list): its count and what it counts. */
const MORE_ENTRY = /^… and (\d+) more (.+)$/;

/** At most `max` entries, the rest counted in a last one (`… and 14900 more user-agents`). */
export function listedAtMost(values: readonly string[], max: number, what: string): string[] {
  if (values.length <= max) return [...values];
  return [...values.slice(0, max), moreEntry(values.length - max, what)];
}

/** Where to cut `text` to keep `max` UTF-16 units without splitting a surrogate pair. */
function cutAt(text: string, max: number): number {
  const code = text.charCodeAt(max - 1);
  return max > 0 && code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/**
 * At most `max` characters in all: the start of `text`, then how many more characters it had
 * (`… (1234 more characters)`). A text cut once is within `max`, so cutting it again changes nothing.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Room for the note with as many digits as the whole length has: never fewer than it needs.
  const note = (n: number) => `… (${n} more characters)`;
  const at = cutAt(text, Math.max(0, max - note(text.length).length));
  return `${text.slice(0, at)}${note(text.length - at)}`;
}

/** Names for a title: the first `max`, then how many more (`Googlebot, Bingbot and 3 more`). */
export function namesAtMost(names: readonly string[], max = MAX_TITLE_NAMES): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

/** A title of at most MAX_ALERT_TITLE_CHARS characters, the cut marked with `…`. */
export function boundTitle(title: string): string {
  if (title.length <= MAX_ALERT_TITLE_CHARS) return title;
  return `${title.slice(0, cutAt(title, MAX_ALERT_TITLE_CHARS - 1))}…`;
}

/**
 * Bytes of `value` as Postgres prints a jsonb (`details::text`): JSON with `", "` between entries
 * and `": "` after keys, strings escaped as JSON escapes them, in UTF-8. What the limit is of.
 */
export function jsonbTextBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(JSON.stringify(value));
  if (value === null || typeof value !== 'object') return value === undefined ? 0 : String(JSON.stringify(value) ?? '').length;
  if (Array.isArray(value)) {
    let n = 2 + Math.max(0, value.length - 1) * 2;
    for (const item of value) n += item === undefined ? 4 : jsonbTextBytes(item);
    return n;
  }
  let n = 2;
  let entries = 0;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    n += Buffer.byteLength(JSON.stringify(key)) + 2 + jsonbTextBytes(v);
    entries++;
  }
  return n + Math.max(0, entries - 1) * 2;
}

/** Every string of `value` cut to MAX_DETAIL_TEXT_CHARS, in a copy (what JSON would drop is dropped). */
function clipStrings(value: unknown): unknown {
  if (typeof value === 'string') return clipText(value, MAX_DETAIL_TEXT_CHARS);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clipStrings);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined && typeof v !== 'function') out[key] = clipStrings(v);
  return out;
}

/** An array of the details, where it hangs (always under an object's key), and what it weighs. */
interface ListSite {
  owner: Record<string, unknown>;
  key: string;
  list: unknown[];
  bytes: number;
}

function listSites(value: unknown, out: ListSite[] = []): ListSite[] {
  if (value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    for (const item of value) listSites(item, out);
    return out;
  }
  const owner = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(owner)) {
    if (Array.isArray(v)) out.push({ owner, key, list: v, bytes: jsonbTextBytes(v) });
    listSites(v, out);
  }
  return out;
}

/** A list of strings whose last entry counts what was left out, read apart (`more` is 0 when none does). */
export function readCountedList(list: readonly string[]): { listed: string[]; more: number; what: string | null } {
  const last = list.at(-1);
  const m = last === undefined ? null : MORE_ENTRY.exec(last);
  if (m === null) return { listed: [...list], more: 0, what: null };
  return { listed: list.slice(0, -1), more: Number(m[1]), what: m[2]! };
}

/** What the entries of a list of strings are, for its `… and N more` entry, by the details' key. */
const ENTRY_NAMES: Readonly<Record<string, string>> = {
  agents: 'user-agents',
  agentsAdded: 'user-agents',
  agentsRemoved: 'user-agents',
  crawlers: 'user-agents',
  diffLines: 'lines',
  sitemapsAdded: 'sitemaps',
  sitemapsRemoved: 'sitemaps',
};

/** The bytes a cut list loses: its last entries, from the end, until `need` bytes are gone. */
function entriesToDrop(list: readonly unknown[], need: number): number {
  let freed = 0;
  let drop = 0;
  while (drop < list.length && freed < need) {
    freed += jsonbTextBytes(list[list.length - 1 - drop]) + 2;
    drop++;
  }
  return drop;
}

/** Room left for the entry or field that counts what a cut drops (`… and 123456 more user-agents`). */
const COUNT_ENTRY_BYTES = 64;

/**
 * Cuts the list at `site` so that the details lose at least `need` bytes: a list of strings keeps
 * its first entries and one that counts the others; a list of objects keeps its first entries and
 * `<key>Total` says how many there were.
 */
function cutList(site: ListSite, need: number): void {
  const { owner, key, list } = site;
  if (list.every((item) => typeof item === 'string')) {
    const { listed, more, what } = readCountedList(list as string[]);
    const drop = entriesToDrop(listed, need + COUNT_ENTRY_BYTES);
    owner[key] = [...listed.slice(0, listed.length - drop), moreEntry(more + drop, what ?? ENTRY_NAMES[key] ?? 'entries')];
    return;
  }
  const totalKey = `${key}Total`;
  const total = typeof owner[totalKey] === 'number' ? (owner[totalKey] as number) : list.length;
  owner[key] = list.slice(0, list.length - entriesToDrop(list, need));
  owner[totalKey] = total;
}

/**
 * The details as they may be stored and sent: every string cut to MAX_DETAIL_TEXT_CHARS, and, if
 * they still weigh more than `maxBytes` (as `jsonbTextBytes` counts), their heaviest lists cut
 * from the end, one at a time, until they fit, with `truncated: true`. Lists of strings keep the
 * `… and N more` entry (its count grows by what was cut), lists of objects their `<list>Total`.
 * Details already within the limit come back equal. Should nothing be left to cut, only
 * `{ truncated: true }` is kept. A string that a site wrote like a count entry, last in a list
 * not cut before, is read as one: its count is then shown as part of the cut (the JSON stays whole).
 */
export function boundAlertDetails<T extends object>(details: T, maxBytes = MAX_ALERT_DETAILS_BYTES): T & { truncated?: boolean } {
  const out = clipStrings(details) as Record<string, unknown>;
  let size = jsonbTextBytes(out);
  if (size <= maxBytes) return out as T;
  out.truncated = true;
  size = jsonbTextBytes(out);
  while (size > maxBytes) {
    const heaviest = listSites(out)
      .filter((s) => s.list.length > 0 && !(s.list.length === 1 && typeof s.list[0] === 'string' && MORE_ENTRY.test(s.list[0])))
      .sort((a, b) => b.bytes - a.bytes)[0];
    if (heaviest === undefined) return { truncated: true } as T;
    cutList(heaviest, size - maxBytes);
    size = jsonbTextBytes(out);
  }
  return out as T;
}
