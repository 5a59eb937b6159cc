// How long a store keeps its transaction log: the shared default and the check of `transactionTtlSeconds`.
import { type OptionStore, positiveSeconds } from './store-errors.ts';

/** Default lifetime of log records (SQLite, Postgres) and of Redis's credited markers, in seconds: 90 days. Redis's log keeps 1 hour (redis-options.ts). */
export const DEFAULT_TRANSACTION_TTL_SECONDS = 90 * 24 * 60 * 60;

/**
 * `store`'s `transactionTtlSeconds` in ms (default 90 days); a `StoreOptionError` (store-errors.ts; code `ERR_SQLITE_OPTION` or
 * `ERR_PG_OPTION`) unless it is a positive safe integer whose milliseconds are safe too.
 */
export function transactionTtlMs(value: unknown, store: OptionStore): number {
  return positiveSeconds(store, 'transactionTtlSeconds', value, DEFAULT_TRANSACTION_TTL_SECONDS) * 1000;
}
