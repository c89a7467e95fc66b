/**
 * `robots-audit agents list|add|remove|import`: the global list of user agents whose verdicts are
 * evaluated for every tracked URL (`user_agents.is_default`), within the crawler catalogue (every
 * known token with its category and operator). Portfolios and URLs add their own on top. Removing
 * an agent takes it out of the list; its row and past verdicts stay. `import` refreshes the
 * catalogue from a copy of ai.robots.txt's `robots.json`.
 */
import type { Command } from 'commander';
import { readInput } from '../read-input.js';
import { parseAiRobotsJson } from '../../crawlers/index.js';
import { reindexBodiesInUse } from '../../services/body-index.service.js';
import { syncCatalogue } from '../../services/catalogue.service.js';
import { checkAgentTokens } from '../agent-tokens.js';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import type { UserAgent } from '../../db/user-agents.repo.js';
import { createUserAgentsRepo } from '../../db/user-agents.repo.js';
import { textTable } from '../text-table.js';

interface ListOptions extends DatabaseOptions {
  all?: boolean;
  json?: boolean;
}

function writeTable(agents: UserAgent[], io: CliIo): void {
  io.stdout.write(
    textTable(
      ['TOKEN', 'CATEGORY', 'FAMILY', 'DEFAULT', 'OPERATOR'],
      agents.map((a) => [a.token, a.category ?? '-', a.family ?? '-', a.isDefault ? 'yes' : 'no', a.operator ?? '-']),
    ),
  );
}

export const registerAgentsCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const agents = program.command('agents').description(COMMAND_DESCRIPTIONS.agents);

  agents
    .command('list')
    .description('List the default user agents.')
    .option('--all', 'also the agents that are not defaults (the catalogue, extras of portfolios and URLs, removed defaults)')
    .option('--json', 'write a JSON array')
    .addOption(databaseUrlOption())
    .action(async (options: ListOptions) => {
      await withDatabase(options, async (db) => {
        const list = await createUserAgentsRepo(db).listAgents({ defaultsOnly: options.all !== true });
        if (options.json) {
          const out = list.map((a) => ({ token: a.token, category: a.category, operator: a.operator, family: a.family, isDefault: a.isDefault }));
          io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        } else if (list.length === 0) {
          io.stdout.write('no user agents\n');
        } else {
          writeTable(list, io);
        }
      });
    });

  agents
    .command('add')
    .description('Add user agents to the defaults (new tokens get their family when it is known).')
    .argument('<token...>', 'user-agent product tokens, e.g. GPTBot (compared case-insensitively)')
    .addOption(databaseUrlOption())
    .action(async (tokens: string[], options: DatabaseOptions) => {
      const wanted = checkAgentTokens(tokens, io);
      if (wanted.length === 0) return;
      await withDatabase(options, async (db) => {
        const result = await createUserAgentsRepo(db).addDefaults(wanted);
        for (const { token, status } of result.agents) {
          io.stdout.write(status === 'added' ? `added ${token}\n` : status === 'restored' ? `restored ${token}\n` : `already a default: ${token}\n`);
        }
      });
    });

  agents
    .command('remove')
    .description('Take user agents out of the defaults (their past verdicts are kept).')
    .argument('<token...>', 'user-agent tokens (case-insensitive)')
    .addOption(databaseUrlOption())
    .action(async (tokens: string[], options: DatabaseOptions) => {
      const wanted = checkAgentTokens(tokens, io, { warn: false });
      if (wanted.length === 0) return;
      await withDatabase(options, async (db) => {
        const result = await createUserAgentsRepo(db).removeDefaults(wanted);
        for (const token of result.removed) io.stdout.write(`removed ${token}\n`);
        for (const token of result.notDefault) io.stderr.write(`not a default agent: ${token}\n`);
      });
    });

  agents
    .command('import')
    .description("Refresh the crawler catalogue from a copy of ai.robots.txt's robots.json (names that are not product tokens are reported and skipped).")
    .argument('<file>', 'the robots.json file, or - for standard input')
    .option('--json', 'print what was added, updated and skipped as JSON')
    .addOption(databaseUrlOption())
    .action(async (file: string, options: DatabaseOptions & { json?: boolean }) => {
      let parsed;
      try {
        parsed = parseAiRobotsJson((await readInput(file, io.stdin)).toString('utf8'));
      } catch (err) {
        io.stderr.write(`robots-audit: ${file}: ${err instanceof Error ? err.message : String(err)}; nothing imported\n`);
        io.exitCode = 1;
        return;
      }
      await withDatabase(options, async (_db, pool) => {
        const sync = await syncCatalogue(pool, parsed.entries, { overwrite: true });
        // Bodies in use learn the root access of the new crawlers (their nights are read by the reports).
        const reindexed = sync.added.length > 0 ? await reindexBodiesInUse(pool) : 0;
        if (options.json) {
          io.stdout.write(`${JSON.stringify({ added: sync.added, updated: sync.updated, skipped: parsed.skipped, bodiesReindexed: reindexed })}\n`);
          return;
        }
        io.stdout.write(`imported ${parsed.entries.length} crawlers: ${sync.added.length} added, ${sync.updated.length} updated, ${parsed.entries.length - sync.added.length - sync.updated.length} unchanged\n`);
        for (const s of parsed.skipped) io.stderr.write(`skipped "${s.name}": ${s.reason}\n`);
        if (reindexed > 0) io.stdout.write(`root access of ${reindexed} bodies in use computed for the new crawlers\n`);
      });
    });
};
