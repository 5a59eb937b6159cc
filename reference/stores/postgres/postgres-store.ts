// Postgres store on node-postgres: the guarded-store layer around one statement per operation (postgres-backend.ts).
import pg from 'pg';
import type { Pool } from 'pg';
import { GuardedStore } from '../guarded-store.ts';
import { NO_ANSWER_MARGIN_MS, PostgresBackend } from './postgres-backend.ts';
import { PostgresStoreError } from './postgres-error.ts';
import { reasonOf } from '../store-errors.ts';
import { redactUrl } from '../redact-url.ts';
import { postgresSettings, type PostgresSettings, type PostgresStoreOptions } from './postgres-options.ts';
import { migratePostgresSchema } from './postgres-schema.ts';

export { PostgresStoreError } from './postgres-error.ts';
export { StoreOptionError, type StoreOptionCode } from '../store-errors.ts';
export type { PostgresStoreOptions } from './postgres-options.ts';

/** How long opening a connection (or waiting for a free one in the store's pool) may take. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A store in a PostgreSQL schema (default `credit402`), shared by any number of processes and hosts. Tables:
 * `clients`, `balances` (per client and currency), `credited_payment_intents`, `reversals`, `transactions` (the
 * log, in `seq` order), `deduction_requests` (kept request ids, pruned as they expire), `processed_events` and
 * `locks` (leases on the server's clock), `store` (the store's random id, CR-7.16), plus `schema_version`. Money is BIGINT with CHECKs keeping balances
 * within ±(2^53 − 1); values travel as decimal text and are range-checked, never read as floats.
 *
 * Every operation is one statement, so one round trip: `deductBalance` (with its record and request id),
 * `addBalance`, `refundDeduction`, `creditTopUp` and `reverseTopUp` call plpgsql functions the schema holds (postgres-functions.ts),
 * whose row locks keep them correct under READ COMMITTED. The deductions of one event-loop turn share one
 * statement and one commit (`deduct_batch`, postgres-deduct-batch.ts). Log records older than `transactionTtlSeconds` (90 days)
 * are pruned in the background as records are appended; credited PaymentIntents and processed events are kept
 * forever (no `creditRetentionMs`). A deduction (or refund) with `timeoutMs` is not sent once the pool's wait has used
 * up its time, and carries its deadline in the server's clock (offset measured at connect and every 10 s,
 * server-clock.ts): its statement is rolled back when it finishes after it (`within_deadline`, schema version 7), so
 * one held up on the network or by a stalled server past its caller's deadline takes nothing.
 */
export class PostgresStore extends GuardedStore {
  private constructor(backend: PostgresBackend, settings: PostgresSettings) {
    super(backend, { name: 'PostgresStore', recordTransactions: settings.record });
  }

  /**
   * Validates the options (a TypeError or RangeError, before any connection), opens a pool for
   * `connectionString` (unless `pool` is given), creates or migrates the schema and returns a store whose
   * {@link close} ends the pool it opened. Rejects with a {@link PostgresStoreError} `ERR_PG_CONNECT` naming the
   * server when no connection can be made, and `ERR_PG_SCHEMA` when the schema cannot be created or migrated.
   */
  static async connect(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const settings = postgresSettings(options);
    const pool = settings.pool ?? openPool(settings);
    const ownsPool = settings.pool === undefined;
    try {
      await migrate(pool, settings);
    } catch (error) {
      if (ownsPool) await pool.end().catch(() => {});
      throw error;
    }
    const backend = new PostgresBackend(pool, {
      schema: settings.schema,
      statementTimeoutMs: settings.statementTimeoutMs,
      answerTimeoutMs: ownsPool ? settings.statementTimeoutMs + NO_ANSWER_MARGIN_MS : settings.statementTimeoutMs,
      ownsPool,
      transactionTtlMs: settings.record ? settings.transactionTtlMs : undefined,
    });
    // Measured before serving, so that the first deduction with a deadline finds it (a failure is retried at that use).
    await backend.measureClock().catch(() => {});
    return new PostgresStore(backend, settings);
  }
}

/** The store's own pool: the server cancels each statement after `statementTimeoutMs`. */
function openPool(settings: PostgresSettings): Pool {
  const pool = new pg.Pool({
    connectionString: settings.connectionString,
    max: settings.poolSize,
    statement_timeout: settings.statementTimeoutMs,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'credit402',
  });
  // An idle connection that fails (server restart) is dropped by the pool; without a listener it would crash the process.
  pool.on('error', () => {});
  return pool;
}

/** Takes a connection (ERR_PG_CONNECT when none comes) and migrates the schema on it (ERR_PG_SCHEMA). */
async function migrate(pool: Pool, settings: PostgresSettings): Promise<void> {
  const server = settings.connectionString === undefined ? 'the given pool' : redactUrl(settings.connectionString);
  const client = await pool.connect().catch((error: unknown) => {
    throw new PostgresStoreError('ERR_PG_CONNECT', `PostgresStore: cannot connect to ${server}: ${reasonOf(error)}`, { cause: error });
  });
  let failure: unknown;
  try {
    await migratePostgresSchema(client, settings.schema);
  } catch (error) {
    failure = error;
    throw new PostgresStoreError('ERR_PG_SCHEMA', `PostgresStore: cannot create or migrate the schema ${settings.schema} on ${server}: ${reasonOf(error)}`, { cause: error });
  } finally {
    client.release(failure instanceof Error ? failure : false);
  }
}
