/**
 * What the "Test a draft" page shows of a draft (src/web/draft-page.ts): the report of
 * services/draft-check with every text from a file made visible, the flips grouped, the draft's
 * lines marked. Pure: the dashboard runs it in a thread with a deadline (src/web/page-compute.ts),
 * as a 500 KiB draft may take seconds to compare.
 */
import { crawlerLines } from '../reports/site-diff.format.js';
import { GOOGLE_MAX_ROBOTS_BYTES } from '../robots/lint.js';
import { revealHiddenChars } from '../robots/hidden-chars.js';
import { escapeHtml } from './html-text.js';
import { checkDraft, groupFlips, groupUsageFlips } from '../services/draft-check.js';
import type { DraftCheckInput, DraftReport } from '../services/draft-check.js';

/** The most a draft may weigh: what Google reads of a robots.txt (R-18), and so all that counts. */
export const MAX_DRAFT_BYTES = GOOGLE_MAX_ROBOTS_BYTES;
/** Flip lines shown; the count of the others beside. */
export const PAGE_MAX_FLIP_GROUPS = 200;

const UTF8 = new TextDecoder('utf-8', { fatal: false });

/** The draft's lines as text for the page: UTF-8 (R-22), hidden characters as `<U+XXXX>`. */
function draftLines(draft: Uint8Array): string[] {
  const lines = UTF8.decode(draft).split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines.map(revealHiddenChars);
}

/** What the template shows of a report: the engine's data, with every text from a file made visible. */
function pageResult(report: DraftReport, draft: Uint8Array) {
  const groups = groupFlips(report.flips);
  const usageGroups = groupUsageFlips(report.usageFlips);
  const marked = new Map<number, string>();
  for (const a of report.alerts) for (const line of a.lines) if (!marked.has(line)) marked.set(line, a.failing ? 'fail' : a.severity);
  for (const d of report.lint) if (!marked.has(d.line)) marked.set(d.line, 'lint');
  const show = revealHiddenChars;
  return {
    report,
    flipGroups: groups.slice(0, PAGE_MAX_FLIP_GROUPS).map((g) => ({
      ...g,
      url: show(g.url),
      ruleBefore: g.ruleBefore && { ...g.ruleBefore, value: show(g.ruleBefore.value) },
      ruleAfter: g.ruleAfter && { ...g.ruleAfter, value: show(g.ruleAfter.value) },
    })),
    flipGroupsHidden: Math.max(0, groups.length - PAGE_MAX_FLIP_GROUPS),
    usageGroups: usageGroups.slice(0, PAGE_MAX_FLIP_GROUPS).map((g) => ({
      ...g,
      url: show(g.url),
      ruleBefore: g.ruleBefore && { ...g.ruleBefore, label: show(g.ruleBefore.label), value: show(g.ruleBefore.value) },
      ruleAfter: g.ruleAfter && { ...g.ruleAfter, label: show(g.ruleAfter.label), value: show(g.ruleAfter.value) },
    })),
    usageGroupsHidden: Math.max(0, usageGroups.length - PAGE_MAX_FLIP_GROUPS),
    alerts: report.alerts.map((a) => ({ ...a, title: show(a.title) })),
    crawlerLines: report.crawlers.some((c) => c.changed) ? crawlerLines(report.crawlers, report.crawlersNotCompared).map(show) : [],
    starGaps: report.starGapsOpened.map((g) => ({ ...g, path: show(g.path) })),
    lint: report.lint.map((d) => ({ ...d, message: show(d.message) })),
    // The draft's rows as HTML, built here (off the event loop) rather than by the template: 42,000 lines take a while.
    linesHtml: draftLines(draft.subarray(0, Math.min(draft.length, MAX_DRAFT_BYTES)))
      .map((text, i) => {
        const n = i + 1;
        const mark = marked.get(n);
        return `<tr id="D${n}" class="${mark ? `mark-${escapeHtml(mark)}` : ''}"><td class="ln"><a href="#D${n}">${n}</a></td><td class="code">${escapeHtml(text)}</td></tr>\n`;
      })
      .join(''),
  };
}

export type DraftPageResult = ReturnType<typeof pageResult>;

/** The draft checked (checkDraft) and shaped for the page. */
export function draftPageResult(input: DraftCheckInput): DraftPageResult {
  return pageResult(checkDraft(input), input.draft);
}
