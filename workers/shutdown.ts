/** Resolves on SIGTERM, SIGINT or when the signal aborts: the moment a process starts shutting down. */
export function untilStopped(signal?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const stop = (why: string) => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      signal?.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    const onAbort = () => stop('abort');
    process.once('SIGTERM', onTerm);
    process.once('SIGINT', onInt);
    if (signal?.aborted) return stop('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
