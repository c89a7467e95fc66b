/**
 * The operators' published IP range files through time: a request is checked against the file of
 * its source in force on the request's day (the latest published by the end of that day), so a
 * range an operator added later does not verify an older request, and one it dropped still
 * verifies the requests of its day. A request older than every file of its source is checked
 * against the oldest: the best evidence there is (docs/compliance.md).
 */
import { IpRangeSet } from '../crawlers/identity/ip-ranges.js';

export interface RangeFileVersion {
  source: string;
  publishedAt: Date;
  prefixes: readonly string[];
}

const DAY_MS = 86_400_000;

export class RangeBook {
  /** By source, oldest first; each file's set built when first asked for. */
  private readonly files = new Map<string, { publishedAt: number; prefixes: readonly string[]; set: IpRangeSet | null }[]>();

  constructor(files: readonly RangeFileVersion[]) {
    for (const f of files) {
      const list = this.files.get(f.source) ?? [];
      list.push({ publishedAt: f.publishedAt.getTime(), prefixes: f.prefixes, set: null });
      this.files.set(f.source, list);
    }
    for (const list of this.files.values()) list.sort((a, b) => a.publishedAt - b.publishedAt);
  }

  /** Sources with at least one file. */
  has(source: string): boolean {
    return this.files.has(source);
  }

  /** The set of `source` in force on the day of `at` (UTC); null when no file of it was imported. */
  setFor(source: string, at: Date): IpRangeSet | null {
    const list = this.files.get(source);
    if (list === undefined || list.length === 0) return null;
    const endOfDay = Math.floor(at.getTime() / DAY_MS) * DAY_MS + DAY_MS;
    let chosen = list[0];
    for (const f of list) if (f.publishedAt < endOfDay) chosen = f;
    if (chosen === undefined) return null;
    chosen.set ??= new IpRangeSet(chosen.prefixes);
    return chosen.set;
  }
}
