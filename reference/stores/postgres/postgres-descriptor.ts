// The Postgres store's descriptor: DATABASE_URL and CREDIT402_PG_SCHEMA, opened with pg loaded on demand.
import { Credit402ConfigError } from '../../config/config-error.ts';
import { definedFields } from '../../config/defined-fields.ts';
import { withOptionalPackage } from '../../config/optional-package.ts';
import type { StoreDescriptor } from '../descriptor.ts';
import { checkTransactionTtl, TRANSACTION_TTL_FIELD } from '../descriptor-fields.ts';
import { POSTGRES_SCHEMA_PATTERN } from './postgres-options.ts';

/**
 * The Postgres store's configuration: `url` (default DATABASE_URL, else the local server), `schema` (default
 * `credit402`) and how long log records are kept (`transactionTtlSeconds`).
 */
export interface PostgresStoreConfig {
  kind: 'postgres';
  url?: string;
  schema?: string;
  transactionTtlSeconds?: number;
}

/** The Postgres store's fields: `url` a postgres:// URL, `schema` a lowercase SQL identifier, the log retention. */
function checkPostgresStore(store: Record<string, unknown>): void {
  const { url, schema } = store;
  if (url !== undefined && (typeof url !== 'string' || !/^postgres(ql)?:\/\/./.test(url))) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', 'store.url (DATABASE_URL) must be a postgres:// or postgresql:// URL');
  }
  if (schema !== undefined && (typeof schema !== 'string' || !POSTGRES_SCHEMA_PATTERN.test(schema))) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `store.schema (CREDIT402_PG_SCHEMA) must be a lowercase SQL identifier, got ${String(schema)}`);
  }
  checkTransactionTtl(store);
}

/** The Postgres store (CREDIT402_STORE=postgres, DATABASE_URL, CREDIT402_PG_SCHEMA). */
export const postgresStoreDescriptor: StoreDescriptor<PostgresStoreConfig> = {
  kind: 'postgres',
  usage: 'postgres (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; CREDIT402_PG_SCHEMA)',
  exclusiveFields: [TRANSACTION_TTL_FIELD],
  fromEnv: (env) => ({
    kind: 'postgres',
    ...definedFields({ url: env.DATABASE_URL || undefined, schema: env.CREDIT402_PG_SCHEMA || undefined }),
  }),
  check: checkPostgresStore,
  async open(config) {
    const { PostgresStore } = await withOptionalPackage('pg', 'the Postgres store', () => import('./postgres-store.ts'));
    return PostgresStore.connect({
      ...definedFields({ connectionString: config.url, schema: config.schema, transactionTtlSeconds: config.transactionTtlSeconds }),
    });
  },
};
