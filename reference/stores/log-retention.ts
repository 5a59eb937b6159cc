// How long a store keeps its transaction log: the shared default and the check of `transactionTtlSeconds`.

/** Default lifetime of log records (SQLite, Postgres) and of Redis's credited markers, in seconds: 90 days. Redis's log keeps 1 hour (redis-options.ts). */
export const DEFAULT_TRANSACTION_TTL_SECONDS = 90 * 24 * 60 * 60;

/**
 * `transactionTtlSeconds` in ms (default 90 days); throws what `invalid` makes of the message unless it is a positive
 * safe integer whose milliseconds are safe too.
 */
export function transactionTtlMs(value: unknown, invalid: (message: string) => Error): number {
  const seconds = value ?? DEFAULT_TRANSACTION_TTL_SECONDS;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 1 || !Number.isSafeInteger(seconds * 1000)) {
    throw invalid(`transactionTtlSeconds must be a positive safe integer (seconds), got ${String(value)}`);
  }
  return seconds * 1000;
}
