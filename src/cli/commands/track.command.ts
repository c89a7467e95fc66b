/**
 * `robots-audit track|untrack|tracked`: the URLs of a monitored site whose verdicts are
 * evaluated every night, beside the site root that is always evaluated. A path (`/products/`)
 * is read against the site's origin; a full URL must belong to the site (R-2..R-5: same scheme,
 * host and port). Both are stored in canonical form (D-5), so `/café#top` and `/caf%C3%A9` are
 * one URL.
 */
import type { Command } from 'commander';
import { checkAgentTokens } from '../agent-tokens.js';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import type { Database } from '../../db/client.js';
import { createSitesRepo } from '../../db/sites.repo.js';
import type { TrackedUrlListing } from '../../db/tracked-urls.repo.js';
import { createTrackedUrlsRepo } from '../../db/tracked-urls.repo.js';
import { InvalidUrlError, auditableOrigin, resolveSiteUrl } from '../../robots/origin.js';

interface TrackOptions extends DatabaseOptions {
  ua?: string[];
}

interface TrackedOptions extends DatabaseOptions {
  json?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Each argument's canonical URL; a bad one is reported on stderr and sets exit code 1. */
function resolveAll(origin: string, inputs: string[], io: CliIo): string[] {
  const urls: string[] = [];
  for (const input of inputs) {
    try {
      urls.push(resolveSiteUrl(origin, input));
    } catch (err) {
      if (!(err instanceof InvalidUrlError)) throw err;
      io.stderr.write(`${err.message}\n`);
      io.exitCode = 1;
    }
  }
  return [...new Set(urls)];
}

/** The site named by `input`, or null (reported, exit code 1) when it is not a URL or not monitored. */
async function findSite(db: Database, input: string, io: CliIo): Promise<{ id: number; origin: string } | null> {
  let origin: string;
  try {
    // The form `sites add` stored it in (a final dot dropped); an IP site was added with --allow-ip.
    origin = auditableOrigin(input, { allowIpLiterals: true });
  } catch (err) {
    if (!(err instanceof InvalidUrlError)) throw err;
    io.stderr.write(`${err.message}\n`);
    io.exitCode = 1;
    return null;
  }
  const site = await createSitesRepo(db).findSiteByOrigin(origin);
  if (!site) {
    io.stderr.write(`robots-audit: not monitored: ${origin} (add it with: robots-audit sites add ${origin})\n`);
    io.exitCode = 1;
    return null;
  }
  return site;
}

function writeTable(list: TrackedUrlListing[], io: CliIo): void {
  const rows = [['URL', 'EXTRA AGENTS'], ...list.map((t) => [t.isRoot ? `${t.url} (root)` : t.url, t.extraAgents.join(',') || '-'])];
  const width = Math.max(...rows.map((r) => r[0]!.length));
  for (const row of rows) io.stdout.write(`${row[0]!.padEnd(width)}  ${row[1]}\n`);
}

export const registerTrackCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('track')
    .description(COMMAND_DESCRIPTIONS.track)
    .argument('<site>', 'the site: any URL of a monitored origin')
    .argument('<url-or-path...>', 'paths (/products/) read against the site, or full URLs of the same origin')
    .option('--ua <token>', 'also evaluate these URLs for this user agent (repeatable), beside the defaults', collect)
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      `
URLs are stored in canonical form (D-5: new URL(u).href without the fragment). Tracking a URL
again adds the new --ua agents to its own. A URL that cannot be parsed or belongs to another
origin is reported and the exit code is 1; the others are still tracked.`,
    )
    .action(async (siteInput: string, inputs: string[], options: TrackOptions) => {
      const agents = checkAgentTokens(options.ua ?? [], io);
      await withDatabase(options, async (db) => {
        const site = await findSite(db, siteInput, io);
        if (!site) return;
        const urls = resolveAll(site.origin, inputs, io);
        if (urls.length === 0) return;
        const result = await createTrackedUrlsRepo(db).track(site.id, urls, agents);
        const added = new Set(result.added);
        for (const url of urls) io.stdout.write(`${added.has(url) ? 'tracked' : 'already tracked'} ${url}\n`);
        if (agents.length > 0) io.stdout.write(`extra agents: ${agents.join(', ')}\n`);
      });
    });

  program
    .command('untrack')
    .description(COMMAND_DESCRIPTIONS.untrack)
    .argument('<site>', 'the site: any URL of a monitored origin')
    .argument('<url-or-path...>', 'paths read against the site, or full URLs of the same origin')
    .addOption(databaseUrlOption())
    .action(async (siteInput: string, inputs: string[], options: DatabaseOptions) => {
      await withDatabase(options, async (db) => {
        const site = await findSite(db, siteInput, io);
        if (!site) return;
        const urls = resolveAll(site.origin, inputs, io);
        const repo = createTrackedUrlsRepo(db);
        const tracked = new Set((await repo.listTracked(site.id)).map((t) => t.url));
        const root = `${site.origin}/`;
        const removable = urls.filter((u) => u !== root);
        if (urls.includes(root)) {
          io.stderr.write(`robots-audit: the site root is always tracked: ${root}\n`);
          io.exitCode = 1;
        }
        const removed = await repo.untrack(site.id, removable);
        for (const url of removable) {
          if (tracked.has(url)) io.stdout.write(`untracked ${url}\n`);
          else io.stderr.write(`not tracked: ${url}\n`);
        }
        io.stdout.write(`${plural(removed, 'URL')} untracked\n`);
      });
    });

  program
    .command('tracked')
    .description(COMMAND_DESCRIPTIONS.tracked)
    .argument('[site]', 'only this site (any URL of a monitored origin)')
    .option('--json', 'write a JSON array')
    .addOption(databaseUrlOption())
    .action(async (siteInput: string | undefined, options: TrackedOptions) => {
      await withDatabase(options, async (db) => {
        let siteId: number | undefined;
        if (siteInput !== undefined) {
          const site = await findSite(db, siteInput, io);
          if (!site) return;
          siteId = site.id;
        }
        const list = await createTrackedUrlsRepo(db).listTracked(siteId);
        if (options.json) {
          const out = list.map((t) => ({ origin: t.origin, url: t.url, path: t.path, isRoot: t.isRoot, extraAgents: t.extraAgents }));
          io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        } else if (list.length === 0) {
          io.stdout.write('no tracked URLs\n');
        } else {
          writeTable(list, io);
        }
      });
    });
};
