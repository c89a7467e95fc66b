import { defineConfig } from 'vitest/config';

// The cluster tests (test/cluster/, issue 30): each file starts its own hosts in network
// namespaces (root only), so one file at a time; `npm run test:cluster`, which `.ci/run` runs.
export default defineConfig({
  test: {
    name: 'cluster',
    include: ['test/cluster/**/*.cluster.test.ts'],
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
