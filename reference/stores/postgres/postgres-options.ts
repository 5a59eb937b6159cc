// Options of the Postgres store and their validation, checked before any connection is opened.
import type { Pool } from 'pg';
import { transactionTtlMs } from '../log-retention.ts';

/** Options of {@link PostgresStore.connect}. */
export interface PostgresStoreOptions {
  /**
   * Server URL of the pool the store opens (and ends in `close`); default `process.env.DATABASE_URL`, else
   * `postgres://postgres@127.0.0.1:5432/postgres`. Not with `pool`.
   */
  connectionString?: string;
  /**
   * A node-postgres pool the caller owns: the store runs its statements on it and never ends it. The store cannot
   * set `statement_timeout` on connections it does not open; set it in that pool's config for a definite failure.
   */
  pool?: Pool;
  /** The schema holding the store's tables and functions, created and migrated at connect; default `'credit402'`. */
  schema?: string;
  /** Connections of the pool the store opens; default 10. */
  poolSize?: number;
  /**
   * Deadline of every statement, in ms; default 450, below the gate's `storeTimeoutMs` (500), so a statement that
   * waits too long (a locked row) fails with a definite answer: the server cancels it (`statement_timeout` of the
   * connections the store opens) and nothing changes. The client stops waiting for an answer 1 s later
   * (`query_timeout`; with a caller's `pool`, at once): the call then rejects with an unknown outcome.
   */
  statementTimeoutMs?: number;
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
  /**
   * How long log records are kept, in seconds, after their `createdAt`; default 90 days (as Redis's). Older records
   * are pruned in the background, a bounded batch every 256 appends. Credited PaymentIntents, reversals and
   * balances are kept forever (no `creditRetentionMs`). A positive safe integer, else a `StoreOptionError` (a
   * RangeError) with code `ERR_PG_OPTION`.
   */
  transactionTtlSeconds?: number;
}

/** The validated settings of a store. */
export interface PostgresSettings {
  /** The URL of the pool to open, or undefined when the caller gave `pool`. */
  connectionString: string | undefined;
  pool: Pool | undefined;
  schema: string;
  poolSize: number;
  statementTimeoutMs: number;
  record: boolean;
  /** How long log records are kept, in ms. */
  transactionTtlMs: number;
}

/** A schema name the store accepts: a lowercase SQL identifier of at most 63 bytes, not starting with `pg_`. */
export const POSTGRES_SCHEMA_PATTERN = /^(?!pg_)[a-z_][a-z0-9_]{0,62}$/;

/** The default server when neither `connectionString` nor `DATABASE_URL` names one. */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

const DEFAULT_SCHEMA = 'credit402';
const DEFAULT_POOL_SIZE = 10;
const DEFAULT_STATEMENT_TIMEOUT_MS = 450;

/** Throws a TypeError unless `schema` matches {@link POSTGRES_SCHEMA_PATTERN}. */
export function assertPostgresSchema(schema: unknown): asserts schema is string {
  if (typeof schema !== 'string' || !POSTGRES_SCHEMA_PATTERN.test(schema)) {
    throw new TypeError(`schema must be a lowercase SQL identifier (${POSTGRES_SCHEMA_PATTERN}), got ${JSON.stringify(schema)}`);
  }
}

function positiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive safe integer, got ${String(value)}`);
  }
  return value;
}

function isPool(value: unknown): value is Pool {
  return typeof value === 'object' && value !== null &&
    ['connect', 'query', 'end', 'on'].every((name) => typeof Reflect.get(value, name) === 'function');
}

/** Validates `options` (TypeError or RangeError) and fills in the defaults; `env` supplies `DATABASE_URL`. */
export function postgresSettings(options: PostgresStoreOptions, env: NodeJS.ProcessEnv = process.env): PostgresSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError('PostgresStore options must be an object');
  const { connectionString, pool } = options;
  if (pool !== undefined && !isPool(pool)) throw new TypeError('pool must be a node-postgres Pool');
  if (connectionString !== undefined && (typeof connectionString !== 'string' || connectionString === '')) {
    throw new TypeError('connectionString must be a non-empty string');
  }
  if (pool !== undefined && connectionString !== undefined) throw new TypeError('give either pool or connectionString, not both');
  const schema = options.schema ?? DEFAULT_SCHEMA;
  assertPostgresSchema(schema);
  const record = options.recordTransactions ?? true;
  if (typeof record !== 'boolean') throw new TypeError('recordTransactions must be a boolean');
  return {
    connectionString: pool !== undefined ? undefined : (connectionString ?? (env.DATABASE_URL || DEFAULT_POSTGRES_URL)),
    pool,
    schema,
    poolSize: positiveInteger(options.poolSize ?? DEFAULT_POOL_SIZE, 'poolSize'),
    statementTimeoutMs: positiveInteger(options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS, 'statementTimeoutMs'),
    record,
    transactionTtlMs: transactionTtlMs(options.transactionTtlSeconds, 'PostgresStore'),
  };
}
