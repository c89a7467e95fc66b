/**
 * `robots-audit agents list|add|remove`: the global list of user agents whose verdicts are
 * evaluated for every tracked URL (`user_agents.is_default`). Portfolios and URLs add their own
 * on top. Removing an agent takes it out of the list; its row and past verdicts stay.
 */
import type { Command } from 'commander';
import { checkAgentTokens } from '../agent-tokens.js';
import type { CliIo } from '../io.js';
import type { CommandRegistrar } from '../main.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import type { UserAgent } from '../../db/user-agents.repo.js';
import { createUserAgentsRepo } from '../../db/user-agents.repo.js';

interface ListOptions extends DatabaseOptions {
  all?: boolean;
  json?: boolean;
}

function writeTable(agents: UserAgent[], io: CliIo): void {
  const rows = [['TOKEN', 'FAMILY', 'DEFAULT'], ...agents.map((a) => [a.token, a.family ?? '-', a.isDefault ? 'yes' : 'no'])];
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) io.stdout.write(`${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]}\n`);
}

export const registerAgentsCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const agents = program.command('agents').description('Manage the user agents evaluated for every tracked URL.');

  agents
    .command('list')
    .description('List the default user agents.')
    .option('--all', 'also the agents that are not defaults (extras of portfolios and URLs, removed defaults)')
    .option('--json', 'write a JSON array')
    .addOption(databaseUrlOption())
    .action(async (options: ListOptions) => {
      await withDatabase(options, async (db) => {
        const list = await createUserAgentsRepo(db).listAgents({ defaultsOnly: options.all !== true });
        if (options.json) {
          const out = list.map((a) => ({ token: a.token, family: a.family, isDefault: a.isDefault }));
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
};
