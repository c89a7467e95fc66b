/**
 * What each top-level command of `robots-audit` does, in the words `--help` gives: the one place
 * they are written. The command modules describe their commands with them, and the command table
 * lists them for `--help` without importing any module (command-table.ts says why).
 */

/** The demo's own database; its description names it, so that the two cannot differ. */
export const DEMO_DATABASE = 'robots_audit_demo';

export const COMMAND_DESCRIPTIONS = {
  check: "Evaluate URLs against a robots.txt as the named crawler does (its documented crawler rules, Google's matching), and name the line that decides.",
  lint: 'Report problems in a robots.txt: syntax Google ignores, typos, unreachable rules, size.',
  eval: 'Bulk, Google-exact evaluation for scripts: JSON Lines in on standard input, one verdict per line out.',
  db: 'Database administration.',
  prune: "Remove nights older than a date, keeping each site's latest and last good nights, every change, flip and alert.",
  sites: 'Manage the monitored sites and their portfolios.',
  portfolios: 'List portfolios and give them schedules of their own.',
  audit: 'Start an audit run now (all enabled sites, or one portfolio).',
  worker: 'Run the batch, site and alert workers until SIGTERM (in-flight jobs finish within ROBOTS_AUDIT_SHUTDOWN_GRACE_MS).',
  scheduler: "Keep the nightly job scheduler (ROBOTS_AUDIT_SCHEDULE, ROBOTS_AUDIT_TIMEZONE) and start each night's run.",
  report: 'Print a report: status, changes, flips, alerts, ai-access, ai-use, failing, lint, portability, compliance or violations, as a table, CSV or JSON.',
  serve: 'Serve the read-only web dashboard (127.0.0.1:8080 by default; elsewhere only with ROBOTS_AUDIT_DASHBOARD_TOKEN).',
  stats: 'Show the pipeline now: jobs per queue, runs in progress, failed jobs, pending alert deliveries, sites waiting for a retry.',
  demo: `Replay a year of scripted and a month of real robots.txt histories on a local web, then print the first reports (recreates the database ${DEMO_DATABASE}).`,
  fetch: "Fetch a site's robots.txt now and show the outcome, redirects, size, cache lifetime, policy and lint summary.",
  track: "Track URLs of a monitored site: their verdicts are evaluated every night, beside the site's root.",
  untrack: 'Stop tracking URLs of a site (the site root is always tracked).',
  tracked: 'List tracked URLs with their extra agents, of one site or of all.',
  history: "A site's nights, newest first: outcome, effective policy and why, what changed, verdict flips and alerts.",
  diff: "Compare two versions of a site's robots.txt: the text diff, and the rules each crawler gains and loses.",
  explain: "Explain a URL's verdict for a crawler under a site's current policy: the deciding line, its group, and why that policy applies.",
  'test-draft': 'Test a draft robots.txt before it ships: the verdicts that would flip, the alerts, per-crawler changes and lint; exit 1 on a flip at or above --fail-on.',
  agents: 'Manage the user agents evaluated for every tracked URL.',
  alerts: 'Manage where alerts are sent: signed webhooks, Slack and e-mail.',
  logs: "Import servers' access logs: each crawler request checked against its operator's published ranges or DNS, and judged by the robots.txt in force when it was made.",
  crawlers: "The crawlers' published IP range files, by date, that log imports check identities against.",
} as const;

export type TopLevelCommandName = keyof typeof COMMAND_DESCRIPTIONS;
