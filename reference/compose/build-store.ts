// Opens the store named by the server configuration.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { definedFields } from '../config/defined-fields.ts';
import { withOptionalPackage } from '../config/optional-package.ts';
import type { Store } from '../stores/store.ts';
import type { StoreConfig } from './engine-config.ts';

/** Creates (and for Redis and Postgres connects) the configured store; only that store's driver is loaded. */
export async function buildStore(config: StoreConfig): Promise<Store> {
  switch (config.kind) {
    case 'memory':
      return new (await import('../stores/memory-store.ts')).MemoryStore();
    case 'sqlite':
      if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
      return new (await withOptionalPackage('better-sqlite3', 'the SQLite store', () => import('../stores/sqlite-store.ts'))).SqliteStore({
        path: config.path,
        ...definedFields({ legacyCurrency: config.legacyCurrency, transactionTtlSeconds: config.transactionTtlSeconds }),
      });
    case 'redis':
      return (await withOptionalPackage('redis', 'the Redis store', () => import('../stores/redis-store.ts'))).RedisStore.connect({
        ...definedFields({
          url: config.url,
          cluster: config.cluster && { rootNodes: config.cluster.map((node) => ({ url: node.includes('://') ? node : `redis://${node}` })) },
          keyPrefix: config.keyPrefix,
          legacyCurrency: config.legacyCurrency,
          logRetentionSeconds: config.logRetentionSeconds,
          maxTransactionsPerClient: config.maxTransactionsPerClient,
        }),
      });
    case 'postgres':
      return (await withOptionalPackage('pg', 'the Postgres store', () => import('../stores/postgres-store.ts'))).PostgresStore.connect({
        ...definedFields({ connectionString: config.url, schema: config.schema, transactionTtlSeconds: config.transactionTtlSeconds }),
      });
  }
}
