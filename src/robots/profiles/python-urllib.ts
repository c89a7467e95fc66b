/**
 * Profile `python-urllib`: CPython 3.11's `urllib.robotparser.RobotFileParser`, as Debian 12
 * ships it (Python 3.11.2, /usr/lib/python3.11/urllib/robotparser.py; upstream
 * https://github.com/python/cpython/blob/v3.11.2/Lib/urllib/robotparser.py).
 *
 * Contract: the fetched bytes are decoded as UTF-8 with invalid bytes replaced by U+FFFD (a BOM
 * is kept as a character), split with `str.splitlines()`, handed to `parse(lines)`; the verdict
 * is `can_fetch(productToken, url)`. What the library does, reproduced here (no code copied):
 * - records: a blank line ends a record that has a user-agent; rules before any user-agent line
 *   are dropped; a user-agent line after rules starts a new record;
 * - the first record naming `*` is the default and is consulted last; other records in file order,
 *   the first whose agent (lower-cased) is a substring of the token's part before `/` wins;
 * - within a record, the first rule (file order) whose path is a prefix of the URL decides; no
 *   wildcards and no `$`; an empty Disallow allows everything;
 * - rule values and the URL are percent-decoded, re-parsed as URLs and re-quoted before the prefix test.
 * The library keeps no line numbers, so the verdict carries none.
 */
import { PythonLibraryError, decodeUtf8Replace, pyLower, pyQuote, pySplitlines, pyStrip, pyUnquote, pyUrlparse, pyUrlunparse } from './python-str.js';
import type { ProfileParsed } from './types.js';

interface RuleLine {
  path: string;
  allowance: boolean;
}

interface Entry {
  useragents: string[];
  rulelines: RuleLine[];
}

/**
 * Characters urlparse leaves in the path and quote (safe `/`) leaves as they are: such a value
 * (not starting `//`, a netloc) is its own normal form, as most rules are.
 */
const URLLIB_UNCHANGED = /^[A-Za-z0-9_.~/-]*$/;

function ruleLine(value: string, allow: boolean): RuleLine {
  // An empty Disallow means allow all; the path is normalised through urlparse and quote.
  const allowance = value === '' && !allow ? true : allow;
  const path = URLLIB_UNCHANGED.test(value) && !value.startsWith('//') ? value : pyQuote(pyUrlunparse(pyUrlparse(value)));
  return { path, allowance };
}

/** `RobotFileParser.parse(lines)`: the records, default record apart. */
export function parsePythonUrllib(lines: readonly string[]): { entries: Entry[]; defaultEntry?: Entry } {
  const entries: Entry[] = [];
  let defaultEntry: Entry | undefined;
  const add = (entry: Entry) => {
    if (entry.useragents.includes('*')) {
      // The first record naming * is the default; later ones are dropped.
      defaultEntry ??= entry;
    } else {
      entries.push(entry);
    }
  };
  // 0: start, 1: saw a user-agent line, 2: saw a rule line.
  let state = 0;
  let entry: Entry = { useragents: [], rulelines: [] };
  for (const raw of lines) {
    let line = raw;
    if (!line) {
      if (state === 1) {
        entry = { useragents: [], rulelines: [] };
        state = 0;
      } else if (state === 2) {
        add(entry);
        entry = { useragents: [], rulelines: [] };
        state = 0;
      }
    }
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    line = pyStrip(line);
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = pyLower(pyStrip(line.slice(0, colon)));
    const value = pyUnquote(pyStrip(line.slice(colon + 1)));
    if (key === 'user-agent') {
      if (state === 2) {
        add(entry);
        entry = { useragents: [], rulelines: [] };
      }
      entry.useragents.push(value);
      state = 1;
    } else if (key === 'disallow' || key === 'allow') {
      if (state !== 0) {
        entry.rulelines.push(ruleLine(value, key === 'allow'));
        state = 2;
      }
    } else if (key === 'crawl-delay') {
      // Read for its own getter; it still ends the user-agent lines of a record.
      if (state !== 0) {
        const delay = pyStrip(value);
        if (pyIsDigit(delay)) pyInt(delay);
        state = 2;
      }
    } else if (key === 'request-rate') {
      if (state !== 0) {
        const numbers = value.split('/');
        if (numbers.length === 2 && pyIsDigit(pyStrip(numbers[0]!)) && pyIsDigit(pyStrip(numbers[1]!))) {
          pyInt(pyStrip(numbers[0]!));
          pyInt(pyStrip(numbers[1]!));
        }
        state = 2;
      }
    }
  }
  if (state === 2) add(entry);
  return defaultEntry ? { entries, defaultEntry } : { entries };
}

/**
 * The library calls `int()` on a value that passes `str.isdigit()`; a digit that is not a decimal
 * digit (superscript two, circled one) passes the test and makes `int()` raise, so the parse fails.
 */
function pyIsDigit(value: string): boolean {
  const chars = [...value];
  return chars.length > 0 && chars.every((ch) => /\p{Nd}/u.test(ch) || PY_NON_DECIMAL_DIGITS.test(ch));
}

function pyInt(value: string): void {
  if ([...value].some((ch) => !/\p{Nd}/u.test(ch))) throw new PythonLibraryError(`invalid literal for int() with base 10: '${value}'`);
}

/** Characters with Numeric_Type=Digit (isdigit but not decimal) in the ranges sites may hold. */
const PY_NON_DECIMAL_DIGITS = /[\u00b2\u00b3\u00b9\u1369-\u1371\u19da\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490\u24ea\u24f5-\u24fd\u24ff\u2776-\u277e\u2780-\u2788\u278a-\u2792]/u;

function appliesTo(entry: Entry, useragent: string): boolean {
  const name = pyLower(useragent.split('/')[0]!);
  for (const agent of entry.useragents) {
    if (agent === '*') return true;
    // Substring, not token match: `User-agent: bot` applies to "examplebot"; an empty
    // user-agent value applies to every crawler.
    if (name.includes(pyLower(agent))) return true;
  }
  return false;
}

function allowance(entry: Entry, path: string): boolean {
  for (const rule of entry.rulelines) {
    if (path.startsWith(rule.path)) return rule.allowance;
  }
  return true;
}

/** `can_fetch(useragent, url)` after a parse. */
export function canFetchPythonUrllib(parsed: { entries: Entry[]; defaultEntry?: Entry }, useragent: string, url: string): boolean {
  const parts = pyUrlparse(pyUnquote(url));
  let path = pyQuote(pyUrlunparse({ scheme: '', netloc: '', path: parts.path, params: parts.params, query: parts.query, fragment: parts.fragment }));
  if (!path) path = '/';
  for (const entry of parsed.entries) {
    if (appliesTo(entry, useragent)) return allowance(entry, path);
  }
  if (parsed.defaultEntry) return allowance(parsed.defaultEntry, path);
  return true;
}

export function parsePythonUrllibBody(body: Uint8Array): ProfileParsed {
  const parsed = parsePythonUrllib(pySplitlines(decodeUtf8Replace(body)));
  return { check: (url, productToken) => ({ allowed: canFetchPythonUrllib(parsed, productToken, url) }) };
}
