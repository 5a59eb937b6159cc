// The SQLite store's descriptor: a database file (CREDIT402_SQLITE_PATH), opened with better-sqlite3 loaded on demand.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Credit402ConfigError } from '../../config/config-error.ts';
import { definedFields } from '../../config/defined-fields.ts';
import { withOptionalPackage } from '../../config/optional-package.ts';
import type { StoreDescriptor } from '../descriptor.ts';
import { checkTransactionTtl, legacyCurrencyFromEnv, TRANSACTION_TTL_FIELD } from '../descriptor-fields.ts';

/**
 * The SQLite store's configuration: the database file's `path` (`:memory:` for none), `legacyCurrency` (default `usd`),
 * the currency balances kept before balances had a currency are migrated to (CR-13.40), and how long log records are
 * kept (`transactionTtlSeconds`).
 */
export interface SqliteStoreConfig {
  kind: 'sqlite';
  path: string;
  legacyCurrency?: string;
  transactionTtlSeconds?: number;
}

/** The file CREDIT402_STORE=sqlite uses when neither CREDIT402_SQLITE_PATH nor a configuration names one. */
const DEFAULT_SQLITE_PATH = '.data/credit402.db';

/** The SQLite store (CREDIT402_STORE=sqlite, CREDIT402_SQLITE_PATH, CREDIT402_LEGACY_CURRENCY). */
export const sqliteStoreDescriptor: StoreDescriptor<SqliteStoreConfig> = {
  kind: 'sqlite',
  usage: `sqlite (CREDIT402_SQLITE_PATH, default ${DEFAULT_SQLITE_PATH})`,
  exclusiveFields: [TRANSACTION_TTL_FIELD],
  fromEnv(env, current) {
    const currentPath = (current as { path?: string } | undefined)?.path;
    return { kind: 'sqlite', path: env.CREDIT402_SQLITE_PATH ?? currentPath ?? DEFAULT_SQLITE_PATH, ...legacyCurrencyFromEnv(env) };
  },
  check: checkTransactionTtl,
  async open(config) {
    if (process.versions.bun !== undefined) {
      throw new Credit402ConfigError('ERR_STORE', `the SQLite store runs on Node only: better-sqlite3 is a Node addon, which Bun ${process.versions.bun} does not load; under Bun use the memory, Redis or Postgres store`);
    }
    if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
    const { SqliteStore } = await withOptionalPackage('better-sqlite3', 'the SQLite store', () => import('./sqlite-store.ts'));
    return new SqliteStore({
      path: config.path,
      ...definedFields({ legacyCurrency: config.legacyCurrency, transactionTtlSeconds: config.transactionTtlSeconds }),
    });
  },
};
