// Polls a URL until it answers with any HTTP status, giving up at a deadline or when the process behind it ends.

/** Options of {@link waitForHttp}. */
interface WaitOptions {
  timeoutMs: number;
  /** Resolves to a reason when the process that should answer has ended; checked between attempts. */
  gone?: () => string | undefined;
  intervalMs?: number;
}

/** Resolves once `url` answers; rejects with the last connection error, the timeout or why the process is gone. */
export async function waitForHttp(url: string, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError = 'no attempt yet';
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000), redirect: 'manual' });
      await response.body?.cancel();
      return;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      lastError = cause?.code ?? cause?.message ?? (error as Error).message;
    }
    const gone = options.gone?.();
    if (gone !== undefined) throw new Error(`${gone} before ${url} answered`);
    if (Date.now() >= deadline) throw new Error(`${url} did not answer within ${Math.round(options.timeoutMs / 1000)} s (last error: ${lastError})`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
