/**
 * The verdict a crawler gets from the parser it is known or assumed to use (crawler-rules.json,
 * `parser`), beside the one Google's parser gives it: shown only where the two differ. A crawler
 * whose parser is `google` or `unknown`, or whose profile is not (yet) implemented in
 * PARSER_PROFILES (src/robots/profiles), has no other parser verdict: the profile is looked up by
 * name, so a profile that is added later is picked up without a change here. Pure: no I/O.
 * docs/crawlers.md, "Where parser verdicts are shown".
 */
import { createHash } from 'node:crypto';
import { CRAWLER_RULES, findCrawlerRules } from './crawler-rules.js';
import { isParserProfileName, PARSER_PROFILE_INFO, parseForProfile } from '../robots/profiles/index.js';
import type { ParserProfileName, ProfileParsed } from '../robots/profiles/index.js';

/** A crawler's parser other than Google's, implemented as a profile. */
export interface OtherParser {
  readonly profile: ParserProfileName;
  readonly basis: 'known' | 'assumed';
  readonly source: string;
}

/** The verdict under a crawler's own parser, where it differs from Google's. */
export interface ParserVerdict extends OtherParser {
  readonly allowed: boolean;
  /** The deciding line, where the library reports one (node-robots-parser); else null. */
  readonly line: number | null;
}

/** The crawler's known or assumed parser when it is not Google's and a profile reproduces it; else null. */
export function otherParserOf(token: string): OtherParser | null {
  const p = findCrawlerRules(token)?.parser;
  if (!p || p.basis === 'unknown' || p.profile === 'google' || p.source === null || !isParserProfileName(p.profile)) return null;
  return { profile: p.profile, basis: p.basis, source: p.source };
}

/**
 * A digest of which crawlers get a parser verdict and under which profile: part of the nightly
 * evaluation key (src/services/site-night.ts), so that a change to the parser facts, or a profile
 * that lands in PARSER_PROFILES, makes the next night evaluate every site again (as an
 * ENGINE_VERSION bump does) and store the parser verdicts it now computes.
 */
export const PARSER_VERDICTS_KEY: string = createHash('sha256')
  .update(
    JSON.stringify(
      CRAWLER_RULES.flatMap((e) => {
        const p = otherParserOf(e.token);
        return p ? [[e.token.toLowerCase(), p.profile, p.basis]] : [];
      }),
    ),
  )
  .digest('hex')
  .slice(0, 16);

/**
 * One body, read at most once per profile (lazily: a night whose crawlers all use Google's
 * parser reads it under no other profile), for many (url, crawler) questions.
 */
export class ParserVerdictReader {
  private readonly parsed = new Map<ParserProfileName, ProfileParsed | null>();

  constructor(private readonly body: Uint8Array) {}

  /**
   * The verdict for `url` under `token`'s own parser when it differs from `googleAllowed` (the
   * verdict of Google's parser under the crawler's rules); null when it agrees, or when the
   * crawler has no other parser. Where the library itself raises on the body or the URL, there
   * is no verdict to show (null), as a crawler built on it gets no answer either.
   */
  differing(url: string, token: string, googleAllowed: boolean): ParserVerdict | null {
    const other = otherParserOf(token);
    if (other === null) return null;
    const parsed = this.read(other.profile);
    if (parsed === null) return null;
    let verdict;
    try {
      verdict = parsed.check(url, token);
    } catch {
      return null;
    }
    if (verdict.allowed === googleAllowed) return null;
    return { ...other, allowed: verdict.allowed, line: verdict.line ?? null };
  }

  private read(profile: ParserProfileName): ProfileParsed | null {
    if (!this.parsed.has(profile)) {
      let p: ProfileParsed | null;
      try {
        p = parseForProfile(profile, this.body);
      } catch {
        p = null;
      }
      this.parsed.set(profile, p);
    }
    return this.parsed.get(profile) ?? null;
  }
}

/** "allowed by Google's parser; disallowed under scrapy-protego (known)". */
/** The library release a stored profile name stands for ("Protego 0.7.0"); the name itself when it is no longer a profile. */
export function profileRelease(profile: string): string {
  return isParserProfileName(profile) ? PARSER_PROFILE_INFO[profile].release : profile;
}

export function parserVerdictText(googleAllowed: boolean, v: ParserVerdict): string {
  const word = (a: boolean) => (a ? 'allowed' : 'disallowed');
  return `${word(googleAllowed)} by Google's parser; ${word(v.allowed)} under ${v.profile} (${profileRelease(v.profile)}, ${v.basis})`;
}
