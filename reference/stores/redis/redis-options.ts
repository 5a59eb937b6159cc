// Options of the Redis store and their validation, checked before any connection is opened.
import { DEFAULT_TRANSACTION_TTL_SECONDS } from '../log-retention.ts';
import type { RedisClusterOptions } from 'redis';
import type { Currency } from '../store.ts';
import { isClusterClient, type RedisClusterCommandClient, type RedisCommandClient } from './redis-lua.ts';
import { legacyCurrencyOf } from '../validate.ts';
import { positiveSeconds, StoreOptionError } from '../store-errors.ts';

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Server URL for {@link RedisStore.connect}; default `process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'`. */
  url?: string;
  /**
   * An existing connected node-redis client (default type mapping), of one server (`createClient`) or of a Redis
   * Cluster (`createCluster`); the store never closes it.
   */
  client?: RedisCommandClient | RedisClusterCommandClient;
  /**
   * A Redis Cluster for {@link RedisStore.connect} instead of `url`: node-redis `createCluster` options, at least
   * `rootNodes` (e.g. `[{ url: 'redis://10.0.0.1:6379' }, …]`). The store adds to `defaults` what it sets for one server:
   * no offline queue, and a few connection retries at start.
   */
  cluster?: RedisClusterOptions;
  /** Prefix of every key the store writes; default `'credit402:'`. */
  keyPrefix?: string;
  /**
   * Lifetime of credited-PaymentIntent markers and reversals (on a cluster also of the client side of each credit);
   * default 90 days. Reconciliation never looks back further (`creditRetentionMs`). Not the log's: see
   * `logRetentionSeconds`.
   */
  transactionTtlSeconds?: number;
  /**
   * Lifetime of transaction-log entries: an append drops the client's entries older than this, and the log key
   * expires this long after its newest entry; default 1 hour. Redis keeps a recent window of the log, not an audit
   * log: an exact long-term log belongs in SqliteStore or PostgresStore.
   */
  logRetentionSeconds?: number;
  /**
   * Log entries kept per client, the oldest dropped first (`XADD MAXLEN ~`: at least this many of the newest, at most
   * one stream node more); default 1000.
   */
  maxTransactionsPerClient?: number;
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
  /** Credited markers and reversals. */
  ttlSeconds: number;
  /** Log entries, by age. */
  logTtlSeconds: number;
  /** Log entries per client, by count. */
  maxLogEntries: number;
  eventTtlSeconds: number;
  record: boolean;
  legacyCurrency: Currency;
}

const DEFAULT_EVENT_TTL_SECONDS = 30 * 24 * 60 * 60;
/** Default lifetime of the Redis log's entries: 1 hour (a recent window; see README *Cost per record*). */
export const DEFAULT_LOG_RETENTION_SECONDS = 60 * 60;
/** Default count of log entries kept per client. */
export const DEFAULT_MAX_LOG_ENTRIES = 1000;

/**
 * The error of an invalid numeric option of {@link RedisStore}, thrown before any connection: code `ERR_REDIS_OPTION`.
 * @deprecated Use {@link StoreOptionError}, the same class (one for the SQLite, Postgres and Redis stores).
 */
export const RedisOptionError = StoreOptionError;
/** @deprecated Use {@link StoreOptionError}. */
export type RedisOptionError = StoreOptionError;

/** Validates `options` (TypeError, or RangeError: {@link StoreOptionError} for the numbers) and fills in the defaults. */
export function redisSettings(options: RedisStoreOptions): RedisSettings {
  const ttlSeconds = positiveSeconds('RedisStore', 'transactionTtlSeconds', options.transactionTtlSeconds, DEFAULT_TRANSACTION_TTL_SECONDS);
  const eventTtlSeconds = positiveSeconds('RedisStore', 'eventTtlSeconds', options.eventTtlSeconds, DEFAULT_EVENT_TTL_SECONDS);
  const logTtlSeconds = positiveSeconds('RedisStore', 'logRetentionSeconds', options.logRetentionSeconds, DEFAULT_LOG_RETENTION_SECONDS);
  const maxLogEntries = options.maxTransactionsPerClient ?? DEFAULT_MAX_LOG_ENTRIES;
  if (typeof maxLogEntries !== 'number' || !Number.isSafeInteger(maxLogEntries) || maxLogEntries < 1) {
    throw new StoreOptionError('RedisStore', `maxTransactionsPerClient must be a positive safe integer, got ${String(options.maxTransactionsPerClient)}`);
  }
  const prefix = options.keyPrefix ?? 'credit402:';
  if (typeof prefix !== 'string') throw new TypeError('keyPrefix must be a string');
  const record = options.recordTransactions ?? true;
  if (typeof record !== 'boolean') throw new TypeError('recordTransactions must be a boolean');
  if (clusterOf(options) && /[{}]/.test(prefix)) throw new TypeError('keyPrefix must not contain { or } on a Redis Cluster: the store hash-tags the keys after it');
  return { prefix, ttlSeconds, logTtlSeconds, maxLogEntries, eventTtlSeconds, record, legacyCurrency: legacyCurrencyOf(options.legacyCurrency) };
}

/** True when the options name a Redis Cluster; a TypeError for `cluster` beside `url` or `client`, or without `rootNodes`. */
function clusterOf(options: RedisStoreOptions): boolean {
  if (options.cluster === undefined) return options.client !== undefined && isClusterClient(options.client);
  if (options.url !== undefined || options.client !== undefined) throw new TypeError('give either cluster, url or client');
  const { rootNodes } = options.cluster as { rootNodes?: unknown };
  if (!Array.isArray(rootNodes) || rootNodes.length === 0) throw new TypeError('cluster.rootNodes must be a non-empty list of nodes');
  return true;
}
