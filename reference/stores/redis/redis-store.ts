// Redis store on node-redis 5: the guarded-store layer around a hash per client and one Lua script per multi-step operation (redis-backend.ts), on one server or a Redis Cluster.
import { createClient, createCluster, type RedisClusterOptions } from 'redis';
import { GuardedStore } from '../guarded-store.ts';
import { loadRedisScripts, RedisBackend } from './redis-backend.ts';
import type { ClusterKeys, RedisKeys } from './redis-keys.ts';
import { connectionOf, type RedisClusterCommandClient, type RedisCommandClient } from './redis-lua.ts';
import { redisSettings, type RedisStoreOptions } from './redis-options.ts';
import { redactUrl } from '../redact-url.ts';
import { reasonOf } from '../store-errors.ts';

export type { RedisClusterCommandClient, RedisCommandClient } from './redis-lua.ts';
export type { RedisStoreOptions } from './redis-options.ts';
export { RedisOptionError } from './redis-options.ts';
export { StoreOptionError, type StoreOptionCode } from '../store-errors.ts';

const CONNECT_RETRIES = 5;

/** A client the store opened: connected, scripts loaded; `destroy` drops it at once. */
interface OpenedClient {
  client: RedisCommandClient | RedisClusterCommandClient;
  close(): Promise<void>;
  destroy(): void;
}

/**
 * Give up on the first connection after a few quick retries; once up, reconnect forever (`ready()` tells which).
 * Commands fail at once while disconnected (no offline queue), so the gate answers 503 instead of holding requests.
 */
function connectionDefaults(ready: () => boolean) {
  return {
    disableOfflineQueue: true,
    socket: {
      reconnectStrategy: (retries: number, cause: Error) => (ready() ? Math.min(retries * 100, 3000) : retries >= CONNECT_RETRIES ? cause : 200),
    },
  };
}

/** What {@link connectWithScripts} needs of a server's or a cluster's client. */
type Connectable = (RedisCommandClient | RedisClusterCommandClient) & { on(event: 'error', listener: (error: Error) => void): unknown; connect(): Promise<unknown>; close(): Promise<void>; destroy(): void };

/**
 * Connects `client`, marks it ready (from then on it reconnects forever) and loads the scripts; on a failure destroys it
 * and says it cannot connect to `where`. Errors also reject the command in flight; without a listener node-redis would
 * crash the process.
 */
async function connectWithScripts(client: Connectable, markReady: () => void, where: string): Promise<OpenedClient> {
  client.on('error', () => {});
  try {
    await client.connect();
    markReady();
    await loadRedisScripts(connectionOf(client));
  } catch (error) {
    try {
      client.destroy(); // a cluster's masters connected so far; a server's client when it opened
    } catch {
      // a client that never opened has nothing to drop
    }
    throw new Error(`RedisStore: cannot connect to ${where}: ${reasonOf(error)}`, { cause: error });
  }
  return { client, close: () => client.close(), destroy: () => client.destroy() };
}

/** Connects a client of the server at `url` and loads the scripts. */
function openServer(url: string): Promise<OpenedClient> {
  let ready = false;
  const client = createClient({ url, ...connectionDefaults(() => ready) });
  return connectWithScripts(client, () => (ready = true), redactUrl(url));
}

/** A root node for messages: its URL (password masked), else its socket's `host:port`. */
function describeNode(node: RedisClusterOptions['rootNodes'][number]): string {
  if (node.url) return redactUrl(node.url);
  const socket = (node.socket ?? {}) as { host?: string; port?: number };
  return `${socket.host ?? 'localhost'}:${socket.port ?? 6379}`;
}

/** Connects a cluster client (discovers the slots, connects every master) and loads the scripts on every master. */
function openCluster(options: RedisClusterOptions): Promise<OpenedClient> {
  let ready = false;
  const defaults = connectionDefaults(() => ready);
  const cluster = createCluster({
    ...options,
    defaults: { ...defaults, ...options.defaults, socket: { ...defaults.socket, ...options.defaults?.socket } },
  });
  return connectWithScripts(cluster, () => (ready = true), `the Redis Cluster at ${options.rootNodes.map(describeNode).join(', ')}`);
}

/**
 * A store in Redis: a single server (or a primary), or a Redis Cluster. Keys on one server (see {@link RedisKeys}):
 * `<prefix>client:<id>` (hash: `balance:<currency>` per currency held, `top_ups`, `created_at`; kept forever);
 * `<prefix>credited:<paymentIntentId>` (hash: client, currency, amount) and `<prefix>reversals:<paymentIntentId>` (hash),
 * which expire after `transactionTtlSeconds`; `<prefix>transactions:<id>` (a stream: a recent window of the client's
 * log, at most `maxTransactionsPerClient` entries of at most `logRetentionSeconds`, not an audit log); `<prefix>request:…` (a kept
 * idempotent deduction, after its `ttlMs`); `<prefix>event:<id>` (after `eventTtlSeconds`), `<prefix>lock:<name>`
 * (after the lease), `<prefix>legacy-currency` and `<prefix>store-id` (the store's random id, CR-7.16; both kept
 * forever: a key policy that evicts them must not be used).
 *
 * A deduction with `timeoutMs` carries its deadline in the server's clock (offset measured at connect and every 10 s,
 * redis-clock.ts, server-clock.ts), and its script refuses it once passed: a command held up by a stall that outlasted the caller's
 * deadline does nothing when it finally runs.
 *
 * On a Redis Cluster (option `cluster`, or a cluster `client`) the keys of a client, and those of a PaymentIntent,
 * share a hash tag (see {@link ClusterKeys}), so every script touches one hash slot; a top-up and a reversal then run
 * as two scripts, a PaymentIntent step and a client step, which credit exactly once and keep the reversal cap across
 * a crash between them (invariants in redis-cluster-scripts.ts). A deduction is one script either way.
 *
 * Data written before balances had a currency is migrated lazily, never by a scan: every script that touches a
 * client hash first moves its old `balance` field to the legacy currency, in the same atomic script (see
 * redis-prelude.ts); credited markers and log entries without a currency read as the legacy currency. The legacy
 * currency is pinned per prefix by the first store that needs it (`legacyCurrency`, default `usd`).
 */
export class RedisStore extends GuardedStore {
  /** How long credited-PaymentIntent markers are kept: `transactionTtlSeconds`, in ms. */
  readonly creditRetentionMs: number;
  /** How long log entries are kept: `logRetentionSeconds`, in ms (the log is a recent window; see README *Cost per record*). */
  readonly logRetentionMs: number;
  /** How many log entries are kept per client (at least; `XADD MAXLEN ~` may keep one stream node more). */
  readonly maxTransactionsPerClient: number;
  readonly #backend: RedisBackend;

  /**
   * Wraps a connected client (of one server or of a cluster); use {@link RedisStore.connect} to have the store open
   * (and own) one. Throws a TypeError or RangeError for an invalid option (e.g. a `legacyCurrency` that is not three
   * lowercase letters).
   */
  constructor(options: RedisStoreOptions) {
    if (options?.client === undefined) {
      throw new TypeError('RedisStore needs a connected client; RedisStore.connect(options) creates one');
    }
    const settings = redisSettings(options);
    const backend = new RedisBackend(connectionOf(options.client), settings);
    super(backend, { name: 'RedisStore', recordTransactions: settings.record });
    this.#backend = backend;
    this.creditRetentionMs = settings.ttlSeconds * 1000;
    this.logRetentionMs = settings.logTtlSeconds * 1000;
    this.maxTransactionsPerClient = settings.maxLogEntries;
  }

  /**
   * Validates the options, creates a client for `options.url` or for the cluster `options.cluster` (unless
   * `options.client` is given), connects it, loads the scripts (on every master of a cluster), pins the prefix's
   * legacy currency, reads (or pins) its store id, measures the server's clock, and returns a store that closes that client in {@link close}. Rejects with a TypeError or
   * RangeError for an invalid option, before connecting, and with a message naming the server (or the cluster's root
   * nodes) when it cannot connect after a few retries; with a TypeError when the prefix's pinned legacy currency
   * (`<prefix>legacy-currency`) is not a currency code.
   */
  static async connect(options: RedisStoreOptions = {}): Promise<RedisStore> {
    redisSettings(options);
    if (options.client !== undefined) {
      const store = new RedisStore(options);
      await loadRedisScripts(connectionOf(options.client));
      await store.#backend.readPinned();
      return store;
    }
    const { cluster, ...rest } = options;
    const opened = cluster !== undefined ? await openCluster(cluster) : await openServer(options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const store = new RedisStore({ ...rest, client: opened.client });
    try {
      await store.#backend.readPinned();
    } catch (error) {
      opened.destroy();
      throw error;
    }
    store.#backend.own(opened);
    return store;
  }
}
