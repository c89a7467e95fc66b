import { defineConfig } from 'vitest/config';

// Three projects: `unit` is pure and quick (no network, no database, no process or thread of its
// own); `integration` talks to the real Postgres and Redis of the machine and to HTTP servers on
// 127.0.0.1, and holds the slow tests that start processes or threads even when they need none of
// these (the parser oracles, the CLI's start-up, heap growth, the thread pool); `browser` drives
// the dashboard in headless Chromium (Debian's package) against a database filled the same way.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 60_000,
          // Unit tests first, then integration (each group with its own worker count).
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.int.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Two cores: keep at most two integration files at once.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.browser.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
