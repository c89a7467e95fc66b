/**
 * Issue 17, item 7: `audit --wait` with no worker running said nothing, for ever. Now, once the
 * run has made no progress for NO_WORKER_NOTICE_MS and no worker is connected to the queues
 * (BullMQ `getWorkers`), it says so in one line with how to start one, and keeps waiting: a
 * worker started then finishes the run and the wait ends as usual.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_WORKER_NOTICE_MS } from '../../../src/cli/commands/audit.command.js';
import { startPipelineWorkers } from '../../../src/services/pipeline-workers.js';
import type { PipelineWorkers } from '../../../src/services/pipeline-workers.js';
import { cliProcess } from '../../helpers/cli-process.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites } from '../../helpers/nightly.js';
import { until } from '../../helpers/worker-process.js';

let p: Pipeline;
let workers: PipelineWorkers | undefined;

beforeAll(async () => {
  p = await startPipeline({ workers: false });
  await addSites(p, ['lonely']);
  p.web.set('lonely.test', { status: 200, body: 'User-agent: *\nDisallow: /private/\n' });
}, 60_000);

afterAll(async () => {
  await workers?.close(2_000);
  await p?.close();
});

describe('audit --wait with no worker', () => {
  it('says within a minute that no worker takes jobs and how to start one, then goes on waiting', async () => {
    const child = spawn(...cliProcess(['audit', '--wait', '--at', '2026-11-01T03:00:00.000Z']), {
      env: { ...process.env, ...p.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const started = Date.now();
      await until('the no-worker line', () => stderr.includes('no worker is taking jobs'), 60_000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(NO_WORKER_NOTICE_MS - 1_000);
      const notice = stderr.split('\n').filter((l) => l.includes('no worker'));
      expect(notice).toEqual([expect.stringMatching(/start one with `robots-audit worker`.*still waiting$/)]);
      expect(child.exitCode).toBeNull();

      // A worker comes: the run completes and the wait ends with its summary.
      workers = startPipelineWorkers(p.rt);
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/completed/);
      expect(stderr.split('\n').filter((l) => l.includes('no worker'))).toHaveLength(1);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);
});
