/**
 * Parser profiles: the verdict a crawler gets from the robots.txt library it is built on, from
 * the same fetched bytes. `google` is the engine of this project (Google-exact, src/robots);
 * the others reproduce one library each, exactly where the library can be run as an oracle
 * (test/integration/robots/profiles/*.oracle.int.test.ts) and from its documentation and source where it
 * cannot (`basis: 'assumed'`). Pure: no I/O. Contracts and figures: docs/crawlers.md.
 */
import { parseRobotsTxt } from '../parse.js';
import { parsePythonUrllibBody } from './python-urllib.js';
import { parsePythonUrllibRfc9309Body } from './python-urllib-rfc9309.js';
import { parseRobotsParserBody } from './node-robots-parser.js';
import { parseScrapyProtegoBody } from './scrapy-protego.js';
import { parseScrapyProtego07Body } from './scrapy-protego-0.7.js';
import { parseCrawlerCommonsBody } from './crawler-commons.js';
import type { ProfileParsed, ProfileVerdict } from './types.js';

export type { ProfileParsed, ProfileVerdict } from './types.js';
export { PythonLibraryError } from './python-str.js';
export { RobotsParserUrlError, robotsTxtUrlFor } from './node-robots-parser.js';

export const PARSER_PROFILES = ['google', 'python-urllib', 'python-urllib-rfc9309', 'scrapy-protego', 'scrapy-protego-0.7', 'node-robots-parser', 'crawler-commons'] as const;
export type ParserProfileName = (typeof PARSER_PROFILES)[number];
export const DEFAULT_PARSER_PROFILE: ParserProfileName = 'google';

export interface ParserProfileInfo {
  name: ParserProfileName;
  library: string;
  /** The library's version in a few words, where a verdict names it ("Protego 0.7.0"). */
  release: string;
  version: string;
  /** `exact`: held to the real library by oracle tests; `assumed`: read from documentation and source. */
  basis: 'exact' | 'assumed';
  /** How the fetched bytes and the question become the library's input, in words. */
  contract: string;
  source: string;
}

export const PARSER_PROFILE_INFO: Readonly<Record<ParserProfileName, ParserProfileInfo>> = {
  google: {
    name: 'google',
    library: "Google's robots.txt parser (google/robotstxt), this project's engine",
    release: 'google/robotstxt',
    version: 'google/robotstxt at the commit the engine follows (src/robots/engine-version.ts)',
    basis: 'exact',
    contract: 'The raw bytes (RFC 9309 and Google\'s documented limits); the URL as given; the product token as the user agent.',
    source: 'https://github.com/google/robotstxt',
  },
  'python-urllib': {
    name: 'python-urllib',
    library: "CPython's urllib.robotparser, the classic module (before RFC 9309)",
    release: 'CPython 3.11 classic',
    version: 'Python 3.11.2 (Debian 12), the classic module (before RFC 9309)',
    basis: 'exact',
    contract:
      'The bytes decoded as UTF-8 with invalid bytes replaced (U+FFFD; a BOM stays a character), split with str.splitlines(), RobotFileParser.parse(lines); can_fetch(product token, URL). No line numbers.',
    source: 'https://github.com/python/cpython/blob/v3.11.2/Lib/urllib/robotparser.py',
  },
  'python-urllib-rfc9309': {
    name: 'python-urllib-rfc9309',
    library: "CPython's urllib.robotparser, rewritten for RFC 9309 (gh-138907)",
    release: 'CPython 3.13.18',
    version: 'CPython 3.13.18 urllib.robotparser (RFC 9309 rewrite, gh-138907; Debian sid libpython3.13-minimal 3.13.18-1)',
    basis: 'exact',
    contract:
      'As python-urllib: the bytes decoded as UTF-8 with invalid bytes replaced (U+FFFD; a BOM stays a character), str.splitlines(), RobotFileParser.parse(lines); can_fetch(product token, URL), which raises for a URL urlsplit refuses. No line numbers.',
    source: 'https://github.com/python/cpython/blob/v3.13.18/Lib/urllib/robotparser.py (as Debian sid ships it: libpython3.13-minimal 3.13.18-1)',
  },
  'scrapy-protego': {
    name: 'scrapy-protego',
    library: "Protego, as Scrapy's ProtegoRobotParser calls it",
    release: 'Protego 0.2.1',
    version: 'Protego 0.2.1 (Debian 12 python3-protego), Scrapy 2.8',
    basis: 'exact',
    contract:
      'The bytes decoded as strict UTF-8 (a BOM stays a character); a body that is not valid UTF-8 is read as empty, as Scrapy does; Protego.parse(text); can_fetch(URL, product token). No line numbers.',
    source: 'https://github.com/scrapy/protego/blob/0.2.1/src/protego.py and https://github.com/scrapy/scrapy/blob/2.8.0/scrapy/robotstxt.py',
  },
  'scrapy-protego-0.7': {
    name: 'scrapy-protego-0.7',
    library: "Protego 0.7, as Scrapy 2.14's ProtegoRobotParser calls it",
    release: 'Protego 0.7.0',
    version: 'Protego 0.7.0 (2026-09-21; Debian sid python3-protego 0.7.0+dfsg-1), Scrapy 2.14, Python 3.13.18 urllib.parse',
    basis: 'exact',
    contract:
      'The bytes decoded as Scrapy 2.14 does, UTF-8 with a leading BOM dropped and invalid bytes dropped (never the whole body); Protego.parse(text); can_fetch(URL, product token), which raises for a URL urlsplit refuses. No line numbers.',
    source: 'https://github.com/scrapy/protego/tree/0.7.0/src/protego and https://docs.scrapy.org/en/2.14/_modules/scrapy/robotstxt.html',
  },
  'node-robots-parser': {
    name: 'node-robots-parser',
    library: 'npm robots-parser',
    release: 'robots-parser 3.0.1',
    version: 'robots-parser 3.0.1',
    basis: 'exact',
    contract:
      "The bytes decoded as fetch's Response.text() does (UTF-8, invalid bytes replaced, a leading BOM dropped); robots.txt URL /robots.txt at the checked URL's scheme, host and port; isAllowed(URL, product token); the line is getMatchingLineNumber. A URL that is not absolute is an error.",
    source: 'https://github.com/samclarke/robots-parser/blob/v3.0.1/Robots.js',
  },
  'crawler-commons': {
    name: 'crawler-commons',
    library: "crawler-commons' SimpleRobotRulesParser (Apache Nutch, Common Crawl's CCBot)",
    release: 'crawler-commons 1.4+',
    version: 'crawler-commons 1.4+ (RFC 9309, exact agent matching), read 2026-11-24',
    basis: 'assumed',
    contract:
      'parseContent(URL, bytes, "text/plain", [lower-cased product token]) then isAllowed(URL); built from the javadoc and a reading of the Java source, not run: no oracle. No line numbers.',
    source: 'https://github.com/crawler-commons/crawler-commons/blob/master/src/main/java/crawlercommons/robots/SimpleRobotRulesParser.java',
  },
};

export function isParserProfileName(name: string): name is ParserProfileName {
  return (PARSER_PROFILES as readonly string[]).includes(name);
}

/** Reads a body once under a profile, for many questions. Throws where the library raises. */
export function parseForProfile(profile: ParserProfileName, body: Uint8Array): ProfileParsed {
  switch (profile) {
    case 'google': {
      const parsed = parseRobotsTxt(body);
      return {
        check: (url, productToken) => {
          const verdict = parsed.check(url, productToken);
          return verdict.line === null ? { allowed: verdict.allowed } : { allowed: verdict.allowed, line: verdict.line };
        },
      };
    }
    case 'python-urllib':
      return parsePythonUrllibBody(body);
    case 'python-urllib-rfc9309':
      return parsePythonUrllibRfc9309Body(body);
    case 'scrapy-protego':
      return parseScrapyProtegoBody(body);
    case 'scrapy-protego-0.7':
      return parseScrapyProtego07Body(body);
    case 'node-robots-parser':
      return parseRobotsParserBody(body);
    case 'crawler-commons':
      return parseCrawlerCommonsBody(body);
  }
}

/** The verdict of `profile`'s library for the crawler with this product token. */
export function profileVerdict(profile: ParserProfileName, body: Uint8Array, url: string, productToken: string): ProfileVerdict {
  return parseForProfile(profile, body).check(url, productToken);
}
