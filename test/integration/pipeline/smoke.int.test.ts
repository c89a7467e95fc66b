import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline();
});
afterAll(async () => p?.close());

describe('pipeline smoke', () => {
  it('audits a site end to end', async () => {
    p.web.set('a.test', { status: 200, body: 'User-agent: *\nDisallow: /private/\n' });
    const add = await p.cli(['sites', 'add', p.origin('a')]);
    expect(add.code, add.stderr).toBe(0);
    const run = await p.cli(['audit', '--wait', '--at', '2026-01-01T03:00:00Z']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain("completed");
    expect(run.stdout).toMatch(/changes: +first_seen 1\n/);
  });
});
