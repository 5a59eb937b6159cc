// Redis store on node-redis 5: the guarded-store layer around a hash per client and one Lua script per multi-step operation (redis-backend.ts).
import { createClient } from 'redis';
import { GuardedStore } from './guarded-store.ts';
import { loadRedisScripts, RedisBackend } from './redis-backend.ts';
import type { RedisKeys } from './redis-keys.ts';
import { redisSettings, type RedisStoreOptions } from './redis-options.ts';
import { redactUrl } from './redact-url.ts';

export type { RedisCommandClient } from './redis-lua.ts';
export type { RedisStoreOptions } from './redis-options.ts';

const CONNECT_RETRIES = 5;

/**
 * A store in Redis (a single server or a primary; not Cluster, since a top-up touches keys in
 * several slots). Keys (see {@link RedisKeys}): `<prefix>client:<id>` (hash: `balance:<currency>` per currency
 * held, `top_ups`, `created_at`; kept forever); `<prefix>credited:<paymentIntentId>` (hash: client, currency,
 * amount), `<prefix>reversals:<paymentIntentId>` (hash) and `<prefix>transactions:<id>` (a stream), which expire
 * after `transactionTtlSeconds`; `<prefix>request:…` (a kept idempotent deduction, after its `ttlMs`);
 * `<prefix>event:<id>` (after `eventTtlSeconds`), `<prefix>lock:<name>` (after the lease) and
 * `<prefix>legacy-currency` (kept forever).
 *
 * Data written before balances had a currency is migrated lazily, never by a scan: every script that touches a
 * client hash first moves its old `balance` field to the legacy currency, in the same atomic script (see
 * redis-prelude.ts); credited markers and log entries without a currency read as the legacy currency. The legacy
 * currency is pinned per prefix by the first store that needs it (`legacyCurrency`, default `usd`).
 */
export class RedisStore extends GuardedStore {
  /** How long credited-PaymentIntent markers are kept: `transactionTtlSeconds`, in ms. */
  readonly creditRetentionMs: number;
  readonly #backend: RedisBackend;

  /**
   * Wraps a connected client; use {@link RedisStore.connect} to have the store open (and own) one. Throws a
   * TypeError or RangeError for an invalid option (e.g. a `legacyCurrency` that is not three lowercase letters).
   */
  constructor(options: RedisStoreOptions) {
    if (options?.client === undefined) {
      throw new TypeError('RedisStore needs a connected client; RedisStore.connect(options) creates one');
    }
    const settings = redisSettings(options);
    const backend = new RedisBackend(options.client, settings);
    super(backend, { name: 'RedisStore', recordTransactions: settings.record });
    this.#backend = backend;
    this.creditRetentionMs = settings.ttlSeconds * 1000;
  }

  /**
   * Validates the options, creates a client for `options.url` (unless `options.client` is given), connects it,
   * loads the scripts, pins the prefix's legacy currency, and returns a store that closes that client in
   * {@link close}. Rejects with a TypeError or RangeError for an invalid option, before connecting, and with a
   * message naming the server when it cannot connect after a few retries; with a TypeError when the prefix's
   * pinned legacy currency (`<prefix>legacy-currency`) is not a currency code.
   */
  static async connect(options: RedisStoreOptions = {}): Promise<RedisStore> {
    redisSettings(options);
    if (options.client !== undefined) {
      const store = new RedisStore(options);
      await loadRedisScripts(options.client);
      await store.#backend.legacyCurrency();
      return store;
    }
    const url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    let ready = false;
    const client = createClient({
      url,
      // Fail commands at once while disconnected, so the gate answers 503 instead of holding requests.
      disableOfflineQueue: true,
      socket: {
        // Give up on the first connection after a few quick retries; once up, reconnect forever.
        reconnectStrategy: (retries, cause) =>
          ready ? Math.min(retries * 100, 3000) : retries >= CONNECT_RETRIES ? cause : 200,
      },
    });
    // Errors also reject the command in flight; without a listener node-redis would crash the process.
    client.on('error', () => {});
    try {
      await client.connect();
      ready = true;
      await loadRedisScripts(client);
    } catch (error) {
      if (client.isOpen) client.destroy();
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`RedisStore: cannot connect to ${redactUrl(url)}: ${reason}`, { cause: error });
    }
    const store = new RedisStore({ ...options, client });
    try {
      await store.#backend.legacyCurrency();
    } catch (error) {
      client.destroy();
      throw error;
    }
    store.#backend.own(client);
    return store;
  }
}
