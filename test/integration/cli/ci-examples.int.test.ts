/**
 * docs/ci.md's GitHub Actions and GitLab CI jobs, run as written: the YAML of each is read from
 * the document, its test-draft command taken from the step (`run`) or the job (`script`) and run
 * by bash in a checkout-like directory, with `npx --yes robots-audit@…` standing for this
 * working copy's CLI and `$SITE` for a local copy of the production site (the fixture web). A
 * draft that blocks Googlebot from the home page fails the job (exit 1; on GitHub, `::error` on
 * the draft's line); a draft that adds a comment passes it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb } from '../../fixtures/web/index.js';
import type { FixtureWeb } from '../../fixtures/web/index.js';
import { CLI_SOURCE_ENTRY } from '../../helpers/cli-process.js';

const DOC = fileURLToPath(new URL('../../../docs/ci.md', import.meta.url));
/** tsx's loader by path: the job runs in another directory, where `--import tsx` would not resolve. */
const TSX = pathToFileURL(fileURLToPath(new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url))).href;
const PRODUCTION = 'User-agent: *\nDisallow: /cart\nDisallow: /checkout/\n';
/** A Googlebot group of its own that shuts it out of everything, the home page included: line 7. */
const BLOCKS_GOOGLEBOT = `${PRODUCTION}\n# staging leftover\nUser-agent: Googlebot\nDisallow: /\n`;
const BLOCKS_GOOGLEBOT_LINE = 7;
const COMMENT_ONLY = `# reviewed by the SEO team\n${PRODUCTION}`;

/** The YAML block of docs/ci.md whose first line names `file`. */
function yamlOf(file: string): unknown {
  const doc = fs.readFileSync(DOC, 'utf8');
  const block = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.startsWith(`# ${file}\n`));
  if (!block) throw new Error(`docs/ci.md has no YAML block for ${file}`);
  return parseYaml(block);
}

interface GithubWorkflow {
  on: { pull_request: { paths: string[] } };
  jobs: Record<string, { env: Record<string, string>; steps: { run?: string; uses?: string }[] }>;
}
interface GitlabJob {
  rules: { if: string }[];
  variables: Record<string, string>;
  script: string[];
}

let web: FixtureWeb;
let repo: string;

beforeAll(async () => {
  web = await startFixtureWeb();
  web.set('www.example.test', { status: 200, body: PRODUCTION });
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-example-'));
  fs.mkdirSync(path.join(repo, 'public'));
  fs.mkdirSync(path.join(repo, '.robots-audit'));
  fs.writeFileSync(path.join(repo, '.robots-audit/tracked-urls.txt'), '# one URL or path a line\n/products/blue-widget\n/category/kitchen\n');
});

afterAll(async () => {
  await web?.close();
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

/**
 * Runs one CI command in the checkout with `draft` as public/robots.txt. Asynchronously: the
 * fixture web that stands for production answers from this process.
 */
async function runJobCommand(command: string, variables: Record<string, string>, draft: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  fs.writeFileSync(path.join(repo, 'public/robots.txt'), draft);
  const npx = /^npx --yes robots-audit@[\d.]+ /;
  expect(command).toMatch(npx);
  const local = command.replace(npx, `"${process.execPath}" --import ${TSX} "${CLI_SOURCE_ENTRY}" `);
  const child = spawn('bash', ['-c', local], {
    cwd: repo,
    env: {
      ...process.env,
      ...variables,
      // The production site is the fixture web on loopback: let the fetch through to it.
      SITE: web.baseUrl('www.example.test'),
      ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8',
      ROBOTS_AUDIT_RESOLVE: 'www.example.test=127.0.0.1',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe('GitHub Actions (docs/ci.md)', () => {
  const workflow = () => yamlOf('.github/workflows/robots-txt.yml') as GithubWorkflow;
  const job = () => Object.values(workflow().jobs)[0]!;
  const command = () => job().steps.map((s) => s.run).find((r) => r?.includes('test-draft'))!;

  it('runs on pull requests that touch the draft, with --format github', () => {
    expect(workflow().on.pull_request.paths).toContain('public/robots.txt');
    expect(command()).toContain('--format github');
  });

  it('a draft that blocks Googlebot from the home page fails the check, with ::error on its line', async () => {
    const run = await runJobCommand(command(), job().env, BLOCKS_GOOGLEBOT);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const errors = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((l) => l.startsWith(`::error file=public/robots.txt,line=${BLOCKS_GOOGLEBOT_LINE},`))).toBe(true);
    expect(run.stdout).toContain('search_url_disallowed');
    expect(run.stdout).toMatch(/https?:\/\/www\.example\.test:\d+\/ allowed -> disallowed for Googlebot/);
  });

  it('a draft that adds a comment passes, with no error', async () => {
    const run = await runJobCommand(command(), job().env, COMMENT_ONLY);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).not.toContain('::error');
  });
});

describe('GitLab CI (docs/ci.md)', () => {
  const job = () => (yamlOf('.gitlab-ci.yml') as Record<string, GitlabJob>)['robots-txt']!;
  const command = () => job().script.find((s) => s.includes('test-draft'))!;

  it('runs on merge requests', () => {
    expect(job().rules[0]!.if).toBe('$CI_PIPELINE_SOURCE == "merge_request_event"');
  });

  it('a draft that blocks Googlebot from the home page fails the job; its log names the flip and the line', async () => {
    const run = await runJobCommand(command(), job().variables, BLOCKS_GOOGLEBOT);
    expect([run.code, run.stderr]).toEqual([1, '']);
    expect(run.stdout).toContain(`draft: line ${BLOCKS_GOOGLEBOT_LINE}: Disallow: / [search_url_disallowed]`);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('FAIL: 2 alerts at or above critical (disallow_all_added, search_url_disallowed): exit 1');
  });

  it('a draft that adds a comment passes', async () => {
    const run = await runJobCommand(command(), job().variables, COMMENT_ONLY);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('No verdict would flip.');
  });
});
