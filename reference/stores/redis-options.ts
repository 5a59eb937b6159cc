// Options of the Redis store and their validation, checked before any connection is opened.
import type { Currency } from './store.ts';
import type { RedisCommandClient } from './redis-lua.ts';
import { assertSafeInteger, legacyCurrencyOf } from './validate.ts';

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Server URL for {@link RedisStore.connect}; default `process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'`. */
  url?: string;
  /** An existing connected node-redis client (default type mapping); the store never closes it. */
  client?: RedisCommandClient;
  /** Prefix of every key the store writes; default `'credit402:'`. */
  keyPrefix?: string;
  /** Lifetime of transaction-log entries, credited-PaymentIntent markers and reversals; default 90 days. */
  transactionTtlSeconds?: number;
  /** Lifetime of processed webhook event ids; default 30 days (Stripe retries for 3). */
  eventTtlSeconds?: number;
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
  /**
   * The currency of the balances, transaction records and credited PaymentIntents written before balances had a
   * currency; default `'usd'`. The first store to use a key prefix pins it for that prefix (key
   * `<prefix>legacy-currency`); a later store with another value follows the pinned one, so old data is migrated
   * to one currency only.
   */
  legacyCurrency?: Currency;
}

/** The validated settings of a store. */
export interface RedisSettings {
  prefix: string;
  ttlSeconds: number;
  eventTtlSeconds: number;
  record: boolean;
  legacyCurrency: Currency;
}

const DEFAULT_TTL_SECONDS = 90 * 24 * 60 * 60;
const DEFAULT_EVENT_TTL_SECONDS = 30 * 24 * 60 * 60;

/** Validates `options` (TypeError or RangeError) and fills in the defaults. */
export function redisSettings(options: RedisStoreOptions): RedisSettings {
  const ttlSeconds = options.transactionTtlSeconds ?? DEFAULT_TTL_SECONDS;
  assertSafeInteger(ttlSeconds, 'transactionTtlSeconds', 1);
  const eventTtlSeconds = options.eventTtlSeconds ?? DEFAULT_EVENT_TTL_SECONDS;
  assertSafeInteger(eventTtlSeconds, 'eventTtlSeconds', 1);
  const prefix = options.keyPrefix ?? 'credit402:';
  if (typeof prefix !== 'string') throw new TypeError('keyPrefix must be a string');
  const record = options.recordTransactions ?? true;
  if (typeof record !== 'boolean') throw new TypeError('recordTransactions must be a boolean');
  return { prefix, ttlSeconds, eventTtlSeconds, record, legacyCurrency: legacyCurrencyOf(options.legacyCurrency) };
}
