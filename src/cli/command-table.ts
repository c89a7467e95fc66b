/**
 * Every top-level command of `robots-audit`, grouped by the module that implements it, with what
 * the program's `--help` lists for it. A module is imported only when one of its commands runs:
 * `check`, `lint` and `eval` need the engine and commander, not the database, queue and HTTP
 * libraries the other commands load (hundreds of milliseconds of start-up).
 *
 * The listing repeats each command's term and description so `--help` needs no module at all;
 * test/unit/cli/command-table.test.ts checks it against what the modules register.
 */
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

export const COMMAND_MODULES: readonly CommandModule[] = [
  {
    commands: [{ name: 'check', term: 'check [options] <url...>', description: 'Evaluate URLs against a robots.txt as the named crawler does (its documented crawler rules, Google\'s matching), and name the line that decides.' }],
    load: async () => (await import('./commands/check.command.js')).registerCheckCommand,
  },
  {
    commands: [{ name: 'lint', term: 'lint [options] <file>', description: 'Report problems in a robots.txt: syntax Google ignores, typos, unreachable rules, size.' }],
    load: async () => (await import('./commands/lint.command.js')).registerLintCommand,
  },
  {
    commands: [{ name: 'eval', term: 'eval [options]', description: 'Bulk, Google-exact evaluation for scripts: JSON Lines in on standard input, one verdict per line out.' }],
    load: async () => (await import('./commands/eval.command.js')).registerEvalCommand,
  },
  {
    commands: [{ name: 'db', term: 'db', description: 'Database administration.' }],
    load: async () => (await import('./commands/db.command.js')).registerDbCommand,
  },
  {
    commands: [
      {
        name: 'prune',
        term: 'prune [options]',
        description: "Remove nights older than a date, keeping each site's latest and last good nights, every change, flip and alert.",
      },
    ],
    load: async () => (await import('./commands/prune.command.js')).registerPruneCommand,
  },
  {
    commands: [{ name: 'sites', term: 'sites', description: 'Manage the monitored sites and their portfolios.' }],
    load: async () => (await import('./commands/sites.command.js')).registerSitesCommand,
  },
  {
    commands: [{ name: 'portfolios', term: 'portfolios', description: 'List portfolios and give them schedules of their own.' }],
    load: async () => (await import('./commands/portfolios.command.js')).registerPortfoliosCommand,
  },
  {
    commands: [{ name: 'audit', term: 'audit [options]', description: 'Start an audit run now (all enabled sites, or one portfolio).' }],
    load: async () => (await import('./commands/audit.command.js')).registerAuditCommand,
  },
  {
    commands: [
      { name: 'worker', term: 'worker [options]', description: 'Run the batch, site and alert workers until SIGTERM (in-flight jobs finish within ROBOTS_AUDIT_SHUTDOWN_GRACE_MS).' },
      { name: 'scheduler', term: 'scheduler [options]', description: "Keep the nightly job scheduler (ROBOTS_AUDIT_SCHEDULE, ROBOTS_AUDIT_TIMEZONE) and start each night's run." },
    ],
    load: async () => (await import('./commands/pipeline.command.js')).registerPipelineCommands,
  },
  {
    commands: [
      {
        name: 'report',
        term: 'report [options] <report>',
        description: 'Print a report: status, changes, flips, alerts, ai-access, failing, lint or portability, as a table, CSV or JSON.',
      },
    ],
    load: async () => (await import('./commands/report.command.js')).registerReportCommand,
  },
  {
    commands: [
      {
        name: 'serve',
        term: 'serve [options]',
        description: 'Serve the read-only web dashboard (127.0.0.1:8080 by default; elsewhere only with ROBOTS_AUDIT_DASHBOARD_TOKEN).',
      },
    ],
    load: async () => (await import('./commands/serve.command.js')).registerServeCommand,
  },
  {
    commands: [{ name: 'stats', term: 'stats [options]', description: 'Show the pipeline now: jobs per queue, runs in progress, failed jobs, pending alert deliveries, sites waiting for a retry.' }],
    load: async () => (await import('./commands/stats.command.js')).registerStatsCommand,
  },
  {
    commands: [{ name: 'demo', term: 'demo [options]', description: 'Replay a year of scripted and a month of real robots.txt histories on a local web, then print the first reports (recreates the database robots_audit_demo).' }],
    load: async () => (await import('./commands/demo.command.js')).registerDemoCommand,
  },
  {
    commands: [{ name: 'fetch', term: 'fetch [options] <url>', description: "Fetch a site's robots.txt now and show the outcome, redirects, size, cache lifetime, policy and lint summary." }],
    load: async () => (await import('./commands/fetch.command.js')).registerFetchCommand,
  },
  {
    commands: [
      { name: 'track', term: 'track [options] <site> <url-or-path...>', description: "Track URLs of a monitored site: their verdicts are evaluated every night, beside the site's root." },
      { name: 'untrack', term: 'untrack [options] <site> <url-or-path...>', description: 'Stop tracking URLs of a site (the site root is always tracked).' },
      { name: 'tracked', term: 'tracked [options] [site]', description: 'List tracked URLs with their extra agents, of one site or of all.' },
    ],
    load: async () => (await import('./commands/track.command.js')).registerTrackCommand,
  },
  {
    commands: [{ name: 'history', term: 'history [options] <site>', description: "A site's nights, newest first: outcome, effective policy and why, what changed, verdict flips and alerts." }],
    load: async () => (await import('./commands/history.command.js')).registerHistoryCommand,
  },
  {
    commands: [{ name: 'diff', term: 'diff [options] <site>', description: "Compare two versions of a site's robots.txt: the text diff, and the rules each crawler gains and loses." }],
    load: async () => (await import('./commands/diff.command.js')).registerDiffCommand,
  },
  {
    commands: [
      {
        name: 'explain',
        term: 'explain [options] <site> <url>',
        description: "Explain a URL's verdict for a crawler under a site's current policy: the deciding line, its group, and why that policy applies.",
      },
    ],
    load: async () => (await import('./commands/explain.command.js')).registerExplainCommand,
  },
  {
    commands: [
      {
        name: 'test-draft',
        term: 'test-draft [options] <site> <draft>',
        description: 'Test a draft robots.txt before it ships: the verdicts that would flip, the alerts, per-crawler changes and lint; exit 1 on a flip at or above --fail-on.',
      },
    ],
    load: async () => (await import('./commands/test-draft.command.js')).registerTestDraftCommand,
  },
  {
    commands: [{ name: 'agents', term: 'agents', description: 'Manage the user agents evaluated for every tracked URL.' }],
    load: async () => (await import('./commands/agents.command.js')).registerAgentsCommand,
  },
  {
    commands: [{ name: 'alerts', term: 'alerts', description: 'Manage where alerts are sent: signed webhooks, Slack and e-mail.' }],
    load: async () => (await import('./commands/alerts.command.js')).registerAlertsCommand,
  },
];
