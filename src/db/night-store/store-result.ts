/** What storing a batch of nights did, for the caller to act on once it is committed. */
export interface StoreResult {
  /** Nights written by this call, as `site:run`. */
  stored: Set<string>;
  /** Nights whose state moved on since they were computed: nothing of them was written. */
  stale: Set<string>;
  /** Deliveries created (pending) by this call, late digests included: to queue once committed. */
  deliveryIds: number[];
  /** Runs whose count says every site is done (or skipped, or failed): to finish. */
  runsToFinish: number[];
}

export const nightKey = (siteId: number, runId: number) => `${siteId}:${runId}`;
