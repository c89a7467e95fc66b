/**
 * Waiting for something a process, a server or the pipeline will do: `probe` asked again and
 * again until it says yes, failing after `timeoutMs`. An error the probe throws fails at once
 * unless `retryOn` says it only means "not yet" (a server not answering yet, a pooled connection
 * found dead); then it counts as no, and the last one is named if time runs out.
 */
export interface PollOptions {
  /** Between two asks, ms (default 100). */
  everyMs?: number;
  /** Which errors of the probe mean "not yet" (default: every one). */
  retryOn?: (err: unknown) => boolean;
}

export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number, options: PollOptions = {}): Promise<void> {
  const { everyMs = 100, retryOn = () => true } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (err) {
      if (!retryOn(err)) throw err;
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${lastError ? ` (last probe failed: ${(lastError as Error).message})` : ''}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
