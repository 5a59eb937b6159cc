// The Redis store's descriptor: one server (REDIS_URL) or a Cluster (CREDIT402_REDIS_CLUSTER), the log's bounds, opened with redis loaded on demand.
import { Credit402ConfigError } from '../../config/config-error.ts';
import { definedFields } from '../../config/defined-fields.ts';
import { withOptionalPackage } from '../../config/optional-package.ts';
import type { StoreDescriptor } from '../descriptor.ts';
import { legacyCurrencyFromEnv } from '../descriptor-fields.ts';

/**
 * The Redis store's configuration: `url` of one server, or `cluster`, the `host:port` (or `redis://` URL) of some nodes
 * of a Redis Cluster; `legacyCurrency` (default `usd`), the currency balances kept before balances had a currency are
 * migrated to (CR-13.40); and the log's bounds.
 */
export interface RedisStoreConfig {
  kind: 'redis';
  url?: string;
  cluster?: string[];
  keyPrefix?: string;
  legacyCurrency?: string;
  /** How long log entries are kept, in seconds (CREDIT402_REDIS_LOG_RETENTION_SECONDS; default 3600). */
  logRetentionSeconds?: number;
  /** Log entries kept per client (CREDIT402_REDIS_MAX_TRANSACTIONS_PER_CLIENT; default 1000). */
  maxTransactionsPerClient?: number;
}

/** The Redis store's log bounds: each config key, the variable and the flag that set it, and its rule (for messages). */
const REDIS_LOG_OPTIONS = [
  {
    key: 'logRetentionSeconds',
    variable: 'CREDIT402_REDIS_LOG_RETENTION_SECONDS',
    rule: 'a positive whole number of seconds (default 3600, 1 hour)',
    flag: { name: 'redis-log-retention-seconds', usage: "the Redis store's log keeps entries N seconds (default 3600)" },
  },
  {
    key: 'maxTransactionsPerClient',
    variable: 'CREDIT402_REDIS_MAX_TRANSACTIONS_PER_CLIENT',
    rule: 'a positive whole number (default 1000)',
    flag: { name: 'redis-max-transactions-per-client', usage: "the Redis store's log keeps N entries per client (default 1000)" },
  },
] as const;

/** The Redis log bounds the environment sets: whole decimal numbers as numbers, anything else as given (for the check to refuse). */
function redisLogFromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, variable } of REDIS_LOG_OPTIONS) {
    const text = env[variable];
    if (text !== undefined) out[key] = /^\s*\d+\s*$/.test(text) ? Number(text) : text;
  }
  return out;
}

/** The Redis log bounds `current` (the store configured so far) sets when it is a Redis store. */
function redisLogOf(current: unknown): Record<string, unknown> {
  const store = current as Record<string, unknown> | undefined;
  if (store?.kind !== 'redis') return {};
  return Object.fromEntries(REDIS_LOG_OPTIONS.flatMap(({ key }) => (store[key] === undefined ? [] : [[key, store[key]]])));
}

/** The Redis store's `cluster`: a non-empty list of `host:port` or redis:// URLs, not beside `url`. */
function checkRedisCluster(store: Record<string, unknown>): void {
  const { url, cluster } = store;
  if (cluster === undefined) return;
  const node = /^(rediss?:\/\/.+|[^\s/:]+:\d+)$/;
  if (!Array.isArray(cluster) || cluster.length === 0 || !cluster.every((entry) => typeof entry === 'string' && node.test(entry))) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', 'store.cluster (CREDIT402_REDIS_CLUSTER) must be a non-empty list of host:port or redis:// URLs');
  }
  if (url !== undefined) throw new Credit402ConfigError('ERR_SERVER_CONFIG', 'store.url and store.cluster exclude each other');
}

/**
 * The Redis store's log bounds (`logRetentionSeconds`, `maxTransactionsPerClient`): each a positive safe integer (the
 * retention's milliseconds too), as the store's own options check them (`ERR_REDIS_OPTION`), but at load.
 */
function checkRedisLog(store: Record<string, unknown>): void {
  for (const { key, variable, rule } of REDIS_LOG_OPTIONS) {
    const value = store[key];
    if (value === undefined) continue;
    const scale = key === 'logRetentionSeconds' ? 1000 : 1;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || !Number.isSafeInteger(value * scale)) {
      throw new Credit402ConfigError('ERR_SERVER_CONFIG', `store.${key} (${variable}) must be ${rule}, got ${JSON.stringify(value)}`);
    }
  }
}

/** The Redis store (CREDIT402_STORE=redis, REDIS_URL or CREDIT402_REDIS_CLUSTER, CREDIT402_REDIS_PREFIX, the log's bounds). */
export const redisStoreDescriptor: StoreDescriptor<RedisStoreConfig> = {
  kind: 'redis',
  usage: 'redis (REDIS_URL, default redis://127.0.0.1:6379; a Redis Cluster: CREDIT402_REDIS_CLUSTER=host:port,…)',
  exclusiveFields: REDIS_LOG_OPTIONS.map(({ key, variable }) => ({ key, variable })),
  flags: REDIS_LOG_OPTIONS.map(({ variable, flag }) => ({ ...flag, variable })),
  fromEnv(env, current) {
    // CREDIT402_REDIS_CLUSTER (`host:port,host:port,…`) names a cluster, and then wins over REDIS_URL.
    const cluster = env.CREDIT402_REDIS_CLUSTER?.split(',').map((node) => node.trim()).filter(Boolean);
    return {
      kind: 'redis',
      ...definedFields(cluster?.length ? { cluster } : { url: env.REDIS_URL || undefined }),
      ...definedFields({ keyPrefix: env.CREDIT402_REDIS_PREFIX || undefined }),
      ...legacyCurrencyFromEnv(env),
      ...redisLogOf(current),
      ...redisLogFromEnv(env),
    };
  },
  envOverlay: redisLogFromEnv,
  check(store) {
    checkRedisCluster(store);
    checkRedisLog(store);
  },
  async open(config) {
    const { RedisStore } = await withOptionalPackage('redis', 'the Redis store', () => import('./redis-store.ts'));
    return RedisStore.connect({
      ...definedFields({
        url: config.url,
        cluster: config.cluster && { rootNodes: config.cluster.map((node) => ({ url: node.includes('://') ? node : `redis://${node}` })) },
        keyPrefix: config.keyPrefix,
        legacyCurrency: config.legacyCurrency,
        logRetentionSeconds: config.logRetentionSeconds,
        maxTransactionsPerClient: config.maxTransactionsPerClient,
      }),
    });
  },
};
