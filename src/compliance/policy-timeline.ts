/**
 * A site's robots.txt versions through time, as its nights observed them: which one was in force
 * at a moment, and which were in force over a stretch (the cache window). A version is in force
 * from the run clock of the night that first saw it until the next version's; the nights that may
 * change what a crawler reads (a new body, another outcome or policy, the 30-day fallback) are
 * the `site_rule_nights` view's. Pure: the versions are loaded by the caller.
 */
export interface TimelineVersion {
  /** From when it is in force: the run clock of the night that first observed it. */
  from: Date;
  /**
   * The run clock of the site's night before that one (which still saw the version before), null
   * for the site's first night: the change itself happened at some moment between the two.
   */
  seenBefore: Date | null;
}

export class PolicyTimeline<V extends TimelineVersion> {
  private readonly versions: readonly V[];

  /** `versions` in any order; sorted here by `from`. */
  constructor(versions: readonly V[]) {
    this.versions = [...versions].sort((a, b) => a.from.getTime() - b.from.getTime());
  }

  get size(): number {
    return this.versions.length;
  }

  /** The version in force at `at`: the last one from at or before it; null before the first. */
  inForceAt(at: Date): V | null {
    const i = this.lastIndexAtOrBefore(at.getTime());
    return i < 0 ? null : (this.versions[i] as V);
  }

  /**
   * The version observed next after the one in force at `at`, when the change to it may already
   * have happened at `at`: the night before it (still seeing the old version) was before `at`.
   */
  possiblyLiveAfter(at: Date): V | null {
    const next = this.versions[this.lastIndexAtOrBefore(at.getTime()) + 1];
    return next !== undefined && next.seenBefore !== null && next.seenBefore.getTime() < at.getTime() ? next : null;
  }

  /**
   * Every version in force at some moment of [start, end]: the one in force at `start` and those
   * that came after it up to `end`, oldest first.
   */
  inForceBetween(start: Date, end: Date): V[] {
    const first = Math.max(0, this.lastIndexAtOrBefore(start.getTime()));
    const last = this.lastIndexAtOrBefore(end.getTime());
    return last < first ? [] : this.versions.slice(first, last + 1);
  }

  /** Binary search: the index of the last version whose `from` is at or before `time`, -1 if none. */
  private lastIndexAtOrBefore(time: number): number {
    let lo = 0;
    let hi = this.versions.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.versions[mid] as V).from.getTime() <= time) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }
}
