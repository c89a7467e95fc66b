/**
 * `robots-audit check --robots <file|-> --ua <token> <url...>`: is each URL allowed for the
 * agent, and which line decided. URLs typed by people are put in canonical form first (D-5);
 * the engine then compares that string byte for byte, as Google's parser does (T29, C16).
 */
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { readInput } from '../read-input.js';
// parse.js, not the engine's index: the index also loads the linter, which check never uses.
import { parseRobotsTxt } from '../../robots/parse.js';
import type { Explanation, RobotsTxt } from '../../robots/index.js';
// crawlers.js, not the index, for the same reason: the crawler rules (R-42, special-case crawlers, Applebot).
import { explainAsCrawler, followedGroupText } from '../../crawlers/followed-group.js';
import type { CrawlerExplanation } from '../../crawlers/followed-group.js';
import { findCrawlerRules, parserOf, robotsTxtUseText } from '../../crawlers/crawler-rules.js';
import { statesUsage, usageAnswerLines, usageOfExplained } from '../../crawlers/usage-verdicts.js';
import { checkWithProfile, profileOption } from '../profile-check.js';
import { writeVerdicts } from '../check-output.js';
import type { CheckOutput, DecideVerdict } from '../check-output.js';
import type { ParserProfileName } from '../../robots/profiles/index.js';

interface CheckOptions {
  robots: string;
  profile?: ParserProfileName;
  ua?: string[];
  json?: boolean;
}

export const registerCheckCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('check')
    .description(COMMAND_DESCRIPTIONS.check)
    .requiredOption('--robots <file>', 'the robots.txt to read, as bytes; "-" reads standard input')
    .option('--ua <token>', 'user-agent product token, e.g. Googlebot (repeat for several)', collect)
    .option('--json', 'write one JSON object per URL and agent (JSON Lines)')
    .addOption(profileOption())
    .argument('<url...>', 'URLs to evaluate (a bare host such as example.com/a is read as https)')
    .addHelpText(
      'after',
      `
URLs are evaluated in canonical form (D-5): the WHATWG serialisation, i.e. what new URL(u).href
gives, with the fragment dropped. So https://Example.com/ä#x is checked as https://example.com/%C3%A4.
The path and query of that form are compared with the rules byte for byte (no decoding).
The whole file is evaluated as given (D-6); Googlebot reads only its first 500 KiB (R-18), and
"robots-audit lint" reports content past that point.

Each agent is answered as that crawler decides, by its documented crawler rules
(docs/crawlers.md, "Crawler rules"): Googlebot-Image follows the Googlebot group when no group
names it (R-42); Applebot follows the Googlebot group when none names Applebot; Google's
special-case crawlers (AdsBot-Google, Mediapartners-Google, ...) ignore the * group. The rule
that applied is named with its source; so is a crawler whose operator says it does not apply
robots.txt to the fetches it makes (ChatGPT-User, Perplexity-User, Feedfetcher-Google).

Output: one line per URL (per URL and agent with several --ua), e.g.
  disallowed  https://example.com/private/page  (line 5: Disallow: /private/ in group User-agent: Googlebot)
When the file has Content-Signal or Content-Usage lines, the usage preference of each purpose
(search, ai-train, ai-input) follows on lines of its own, with the line that decides it
(docs/usage-preferences.md), e.g.
              ai-train: refused (line 3, Content-Signal ai-train=no, Content Signals (...))
and "usage: not crawlable" for a URL the crawler may not fetch.
--json adds "followed" {rule: own|further-token|star|ignores-star|no-group, agent, source},
"robotsTxt" (what the operator says of its use of robots.txt, or null), "parser"
{profile, basis: known|assumed|unknown, source} and "usage" {search, ai-train, ai-input: each
{preference: allowed|refused|unknown|not-crawlable, line, mechanism, label, definedBy}} to each object.
A URL that cannot be parsed prints an "error" line; the others are still evaluated and the
exit code is 2. Exit code 0 otherwise, whatever the verdicts.
`,
    )
    .action(async (urls: string[], _options: unknown, command: Command) => {
      const options = command.opts<CheckOptions>();
      const uas = options.ua ?? [];
      if (uas.length === 0) command.error("error: required option '--ua <token>' not specified");
      const body = await readInput(options.robots, io.stdin);
      if (options.profile !== undefined && options.profile !== 'google') {
        if (checkWithProfile(options.profile, body, urls, uas, options.json === true, io)) io.exitCode = 2;
        return;
      }
      const output: CheckOutput = { io, json: options.json === true, errorFields: {}, errorMessage: (err) => (err instanceof Error ? err.message : String(err)) };
      if (writeVerdicts(output, urls, uas, crawlerVerdict(parseRobotsTxt(body)))) io.exitCode = 2;
    });
};

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Google's answer, as the agent's crawler decides by its documented crawler rules. */
function crawlerVerdict(robots: RobotsTxt): DecideVerdict {
  // Issue 28: the usage preferences beside the verdict, in text only for a file that states some.
  const stated = statesUsage(robots);
  return (url, ua) => {
    const e = explainAsCrawler(robots, url, ua);
    const notes = [followedGroupText(ua, e.followed), robotsTxtUseText(ua)].filter((n) => n !== null);
    const usage = usageOfExplained(robots, e);
    return {
      allowed: e.allowed,
      reason: [reasonText(robots, e), ...notes].join('; '),
      fields: { ...jsonFields(ua, e), usage },
      ...(stated ? { details: usageAnswerLines(usage) } : {}),
    };
  };
}

/** Why, in words: the deciding line and the group it stands in, or that nothing matched. */
function reasonText(robots: RobotsTxt, e: Explanation): string {
  if (e.rule) {
    const kind = e.rule.kind === 'allow' ? 'Allow' : 'Disallow';
    // C8: an Allow of .../index.html also allows the directory itself.
    const via = e.rule.viaIndexHtml ? `, read as ${e.rule.pattern} (index.html rule)` : '';
    return `line ${e.rule.line}: ${kind}: ${e.rule.value}${via} in group User-agent: ${groupAgents(robots, e, e.rule.line)}`;
  }
  // R-43, T19: no group for the agent and no `*` group: nothing is disallowed.
  if (e.group.kind === 'none') return `no rule matched; no group applies to ${e.userAgent === '' ? '""' : e.userAgent}`;
  return `no rule matched; group: ${groupAgents(robots, e, null)}`;
}

/**
 * The user-agent values of the group as written, each once: of the group that holds the
 * deciding rule when there is one, else of all groups merged for the agent.
 */
function groupAgents(robots: RobotsTxt, e: Explanation, ruleLine: number | null): string {
  let groups = e.group.groupIndexes.map((i) => robots.groups[i]).filter((g) => g !== undefined);
  const holder = ruleLine === null ? undefined : groups.find((g) => g.rules.some((r) => r.line === ruleLine));
  if (holder) groups = [holder];
  const values = groups.flatMap((g) => g.userAgents.map((u) => u.value));
  return [...new Set(values.length > 0 ? values : e.group.userAgents.map((u) => u.value))].join(', ');
}

function jsonFields(ua: string, e: CrawlerExplanation) {
  const robotsTxt = findCrawlerRules(ua)?.robotsTxt ?? null;
  const parser = parserOf(ua);
  return {
    allowed: e.allowed,
    line: e.line,
    path: e.path,
    group: e.group,
    rule: e.rule,
    reason: e.reason,
    followed: e.followed,
    robotsTxt,
    parser: { profile: parser.profile, basis: parser.basis, source: parser.source },
  };
}
