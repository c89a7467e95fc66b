/**
 * Every top-level command of `robots-audit`, grouped by the module that implements it, with what
 * the program's `--help` lists for it. A module is imported only when one of its commands runs:
 * `check`, `lint` and `eval` need the engine and commander, not the database, queue and HTTP
 * libraries the other commands load (hundreds of milliseconds of start-up).
 *
 * So that `--help` needs no module at all, the listing takes each command's description from
 * command-descriptions.ts, as the module does, and repeats the term commander would build from
 * the module's options and arguments; test/unit/cli/command-table.test.ts checks it against what
 * the modules register.
 */
import { COMMAND_DESCRIPTIONS } from './command-descriptions.js';
import type { TopLevelCommandName } from './command-descriptions.js';
import type { CommandRegistrar } from './command-registrar.js';

export interface CommandListing {
  name: string;
  /** The command as help lists it: name, `[options]` when it has any, then its arguments. */
  term: string;
  description: string;
}

export interface CommandModule {
  /** The top-level commands the module registers, in the order it registers them. */
  commands: readonly CommandListing[];
  load(): Promise<CommandRegistrar>;
}

function listing(name: TopLevelCommandName, term: string): CommandListing {
  return { name, term, description: COMMAND_DESCRIPTIONS[name] };
}

export const COMMAND_MODULES: readonly CommandModule[] = [
  {
    commands: [listing('check', 'check [options] <url...>')],
    load: async () => (await import('./commands/check.command.js')).registerCheckCommand,
  },
  {
    commands: [listing('lint', 'lint [options] <file>')],
    load: async () => (await import('./commands/lint.command.js')).registerLintCommand,
  },
  {
    commands: [listing('eval', 'eval [options]')],
    load: async () => (await import('./commands/eval.command.js')).registerEvalCommand,
  },
  {
    commands: [listing('db', 'db')],
    load: async () => (await import('./commands/db.command.js')).registerDbCommand,
  },
  {
    commands: [listing('prune', 'prune [options]')],
    load: async () => (await import('./commands/prune.command.js')).registerPruneCommand,
  },
  {
    commands: [listing('sites', 'sites')],
    load: async () => (await import('./commands/sites.command.js')).registerSitesCommand,
  },
  {
    commands: [listing('portfolios', 'portfolios')],
    load: async () => (await import('./commands/portfolios.command.js')).registerPortfoliosCommand,
  },
  {
    commands: [listing('audit', 'audit [options]')],
    load: async () => (await import('./commands/audit.command.js')).registerAuditCommand,
  },
  {
    commands: [
      listing('worker', 'worker [options]'),
      listing('scheduler', 'scheduler [options]'),
    ],
    load: async () => (await import('./commands/pipeline.command.js')).registerPipelineCommands,
  },
  {
    commands: [listing('report', 'report [options] <report>')],
    load: async () => (await import('./commands/report.command.js')).registerReportCommand,
  },
  {
    commands: [listing('serve', 'serve [options]')],
    load: async () => (await import('./commands/serve.command.js')).registerServeCommand,
  },
  {
    commands: [listing('stats', 'stats [options]')],
    load: async () => (await import('./commands/stats.command.js')).registerStatsCommand,
  },
  {
    commands: [listing('demo', 'demo [options]')],
    load: async () => (await import('./commands/demo.command.js')).registerDemoCommand,
  },
  {
    commands: [listing('fetch', 'fetch [options] <url>')],
    load: async () => (await import('./commands/fetch.command.js')).registerFetchCommand,
  },
  {
    commands: [
      listing('track', 'track [options] <site> <url-or-path...>'),
      listing('untrack', 'untrack [options] <site> <url-or-path...>'),
      listing('tracked', 'tracked [options] [site]'),
    ],
    load: async () => (await import('./commands/track.command.js')).registerTrackCommand,
  },
  {
    commands: [listing('history', 'history [options] <site>')],
    load: async () => (await import('./commands/history.command.js')).registerHistoryCommand,
  },
  {
    commands: [listing('diff', 'diff [options] <site>')],
    load: async () => (await import('./commands/diff.command.js')).registerDiffCommand,
  },
  {
    commands: [listing('explain', 'explain [options] <site> <url>')],
    load: async () => (await import('./commands/explain.command.js')).registerExplainCommand,
  },
  {
    commands: [listing('test-draft', 'test-draft [options] <site> <draft>')],
    load: async () => (await import('./commands/test-draft.command.js')).registerTestDraftCommand,
  },
  {
    commands: [listing('agents', 'agents')],
    load: async () => (await import('./commands/agents.command.js')).registerAgentsCommand,
  },
  {
    commands: [listing('alerts', 'alerts')],
    load: async () => (await import('./commands/alerts.command.js')).registerAlertsCommand,
  },
  {
    commands: [listing('logs', 'logs')],
    load: async () => (await import('./commands/logs.command.js')).registerLogsCommand,
  },
  {
    commands: [listing('crawlers', 'crawlers')],
    load: async () => (await import('./commands/crawlers.command.js')).registerCrawlersCommand,
  },
];
