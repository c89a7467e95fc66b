/**
 * The dashboard's thread (src/web/page-compute.ts): the computations of its pages over a site's
 * bytes or a posted draft, each a pure function of src/reports or src/web, run here so that a
 * file that costs seconds costs this thread and not the server's event loop.
 */
import { analyseSiteFile } from '../reports/web-site.js';
import { bodyLines } from '../reports/web-paging.js';
import { fileRowsHtml } from './html-text.js';
import type { SiteFileAnalysis, SiteFileInput } from '../reports/web-site.js';
import { explainUnderState } from '../reports/site-explain.js';
import type { ExplainState, SiteExplanation } from '../reports/site-explain.js';
import type { SiteRef } from '../reports/site-lookup.js';
import { draftPageResult } from './draft-result.js';
import type { DraftPageResult } from './draft-result.js';
import type { DraftCheckInput } from '../services/draft-check.js';
import { threadTasks } from '../offload/thread-tasks.js';

/** What the site page shows from the file: its lint, the crawler rule behind each agent's group, its rows as HTML. */
export interface SiteFileView extends SiteFileAnalysis {
  rowsHtml: string | null;
}

function siteFile(input: SiteFileInput): SiteFileView {
  return { ...analyseSiteFile(input), rowsHtml: input.content ? fileRowsHtml(bodyLines(input.content)) : null };
}

/** "Check a URL": the verdict and why, on the rules body read by the request. */
function explain(input: ExplainState & { site: SiteRef; url: string; userAgent: string }): SiteExplanation {
  return explainUnderState(input);
}

/** "Test a draft": the draft against the file in force, shaped for the page. */
function draft(input: DraftCheckInput): DraftPageResult {
  return draftPageResult(input);
}

export default threadTasks({ siteFile, explain, draft });
