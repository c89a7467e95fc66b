/**
 * `robots-audit history <site> [--limit N] [--json]`: the site's nights, newest first: outcome
 * and HTTP status, the effective policy and the spec rule behind it, what changed, the verdicts
 * that flipped and the alerts raised (src/reports/site-history.ts).
 */
import { terminalText } from '../../reports/terminal-text.js';
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { parseLimit, runSiteReport } from '../site-report-run.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import { DEFAULT_HISTORY_LIMIT, siteHistory } from '../../reports/site-history.js';
import { formatHistory, historyJson } from '../../reports/site-history.format.js';
import { findSite } from '../../reports/site-lookup.js';

interface HistoryOptions extends DatabaseOptions {
  limit?: string;
  json?: boolean;
}

export const registerHistoryCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('history')
    .description(COMMAND_DESCRIPTIONS.history)
    .argument('<site>', 'an origin (https://example.com) or a host (example.com: must match one monitored origin)')
    .option('--limit <n>', `the newest nights to show (default ${DEFAULT_HISTORY_LIMIT})`)
    .option('--json', 'write the nights as one JSON object')
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      `
Each night: its time (UTC) and run key, the outcome class and HTTP status (or network error
code), the effective policy with the rule behind it (R-10 2xx, R-11 redirects, R-12 4xx,
D-4 429, R-13 5xx, R-15 network failure, D-3 the 30-day fallback and the night of the copy it
uses), then under it what changed (snapshot_changes kinds), the verdicts that flipped (URL,
agents, from -> to, cause) and the alerts raised.

--json writes {"site": {"id", "origin"}, "totalNights", "limit", "nights": [...]}, each night
{"night", "runId", "runKey", "outcome", "status", "errorCode", "policy", "policyReason",
"unreachableSince", "rulesNight", "rulesRunKey", "bodySha256", "bodyBytes", "changes": [kind],
"flips": [{"url", "agent", "from", "to", "cause", "ruleBefore", "ruleAfter"}],
"alerts": [{"severity", "kind", "title"}]}; times are ISO (UTC), absent values null.

Exit codes: 0; 1 when the site is not monitored (or a host matches several); 2 for a bad --limit.`,
    )
    .action(async (siteInput: string, options: HistoryOptions) => {
      await runSiteReport(io, async () => {
        const limit = options.limit === undefined ? DEFAULT_HISTORY_LIMIT : parseLimit(options.limit);
        await withDatabase(options, async (_db, pool) => {
          const history = await siteHistory(pool, await findSite(pool, siteInput), { limit });
          io.stdout.write(options.json ? `${JSON.stringify(historyJson(history, limit), null, 2)}\n` : terminalText(formatHistory(history)));
        });
      });
    });
};
