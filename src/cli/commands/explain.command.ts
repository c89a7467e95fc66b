/**
 * `robots-audit explain <site> <url> --ua <token>`: the verdict for a URL under the site's
 * current effective policy, the line that decides it and its group, and why that policy
 * applies (src/reports/site-explain.ts): the same engine and group choice as the nightly
 * verdicts, on the rules body in force.
 */
import { terminalText } from '../../reports/terminal-text.js';
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { runSiteReport } from '../site-report-run.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import { SiteReportError } from '../../reports/site-errors.js';
import { assertProductToken, explainSiteUrl } from '../../reports/site-explain.js';
import { explanationJson, formatExplanation } from '../../reports/site-explain.format.js';
import { findSite } from '../../reports/site-lookup.js';
import { InvalidUrlError, resolveSiteUrl } from '../../robots/origin.js';

interface ExplainOptions extends DatabaseOptions {
  ua: string;
  json?: boolean;
}

export const registerExplainCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('explain')
    .description(COMMAND_DESCRIPTIONS.explain)
    .argument('<site>', 'an origin (https://example.com) or a host (example.com: must match one monitored origin)')
    .argument('<url>', 'a path (/private/x) read against the site, or a full URL of the same origin')
    .requiredOption('--ua <token>', 'the crawler\'s user-agent product token, e.g. Googlebot')
    .option('--json', 'write the explanation as one JSON object')
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      `
The policy is the one of the site's latest night: its robots.txt rules (R-10), full allow (4xx
R-12, redirect limit R-11, 429 D-4) or full disallow (5xx R-13, network failure R-15), or,
after more than 30 days unreachable, the last copy fetched OK (D-3, R-14). Under rules, the
URL (canonical form, D-5) is matched as the nightly verdicts and check do, by the crawler's
documented rules (docs/crawlers.md): it follows its own group, or the group of a product token
it also answers to (R-42: Googlebot-Image follows googlebot; Applebot follows Googlebot), else *,
unless it ignores * (Google's special-case crawlers: AdsBot-Google, ...): then no group applies.
The rule that applied is named with its source, and so are what the crawler's operator says of
its use of robots.txt and a parser other than Google's (known or assumed), with the verdict
under that parser where it differs ("allowed by Google's parser; disallowed under
scrapy-protego (known)").
When the rules body has Content-Signal or Content-Usage lines, the usage preference of each
purpose (search, ai-train, ai-input) follows, with the line that decides it and the document
that defines its label (docs/usage-preferences.md), or "not crawlable" when the URL is disallowed.

--json writes {"site", "url", "path", "userAgent", "followedAgent", "followed" ({"rule": own |
further-token | star | ignores-star | no-group, "agent", "source"}, null when the policy
decides), "robotsTxt" ({"value": honours | ignores | may-ignore, "source", "read", "says"} or
null), "parser" ({"profile", "basis": known | assumed | unknown, "source"}), "parserVerdict"
({"profile", "basis", "source", "allowed", "line"}: the verdict under that parser from the same
bytes where it differs from Google's parser's, else null), "allowed",
"decidedBy" (policy | rule | no_rule | no_group), "rule", "group", "usage" ({"search", "ai-train",
"ai-input"}: each {"preference": allowed | refused | unknown | not-crawlable, "line", "mechanism",
"label", "definedBy"}), "policy": {"kind", "reason", "why",
"night", "runKey", "outcome", "status", "errorCode", "since", "unreachableSince",
"failedNights", "rulesNight", "rulesRunKey", "rulesSha256"}}.

Exit codes: 0 whatever the verdict; 1 when the site is not monitored or has no night yet, or the
URL is not on it; 2 when --ua is not a product token (T14: letters, "-" and "_").`,
    )
    .action(async (siteInput: string, urlInput: string, options: ExplainOptions) => {
      await runSiteReport(io, async () => {
        const ua = options.ua.trim();
        assertProductToken(ua);
        await withDatabase(options, async (_db, pool) => {
          const site = await findSite(pool, siteInput);
          let url: string;
          try {
            url = resolveSiteUrl(site.origin, urlInput);
          } catch (err) {
            if (!(err instanceof InvalidUrlError)) throw err;
            throw new SiteReportError('not_found', err.message);
          }
          const explanation = await explainSiteUrl(pool, site, url, ua);
          io.stdout.write(options.json ? `${JSON.stringify(explanationJson(explanation), null, 2)}\n` : terminalText(formatExplanation(explanation)));
        });
      });
    });
};
