/**
 * Waiting for something a process or a server will do: asked again and again until it says yes.
 * An error thrown by the probe (a server not answering yet) counts as no, and the last one is
 * named if time runs out.
 */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? ` (last: ${(lastError as Error).message})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
