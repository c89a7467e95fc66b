/** One crawler of the catalogue, as catalogue.json stores it and parseAiRobotsJson makes it. */
import type { CrawlerCategory } from './categories.js';

export interface CatalogueEntry {
  /** The product token as its operator spells it; a `User-agent:` line names it whole (T14). */
  readonly token: string;
  /** Who runs it, or UNKNOWN_OPERATOR. */
  readonly operator: string;
  readonly category: CrawlerCategory;
  /** What it does, in its source's words. */
  readonly description?: string;
  /** A page about the crawler or its operator. */
  readonly url?: string;
}

/** The operator of a crawler whose source does not say who runs it. */
export const UNKNOWN_OPERATOR = 'Unknown';
