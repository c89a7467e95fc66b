/**
 * What a page reports going wrong, as it comes: console errors and warnings (a refused script or
 * style under the Content-Security-Policy is one) and uncaught page errors. A dashboard page
 * should report none.
 */
import type { Page } from 'playwright-core';

export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return problems;
}
