// SQLite store on better-sqlite3: the guarded-store layer around single statements and IMMEDIATE transactions (sqlite-backend.ts).
import type { Currency } from '../store.ts';
import { GuardedStore } from '../guarded-store.ts';
import { SqliteBackend } from './sqlite-backend.ts';
import type { SqliteStoreError } from './sqlite-error.ts';

export { SqliteStoreError } from './sqlite-error.ts';
export { StoreOptionError, type StoreOptionCode } from '../store-errors.ts';

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file path, or `':memory:'` for a private in-memory database. */
  path: string;
  /** Prefix of the table names (a plain SQL identifier); default `'credit402_'`. */
  tablePrefix?: string;
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
  /**
   * How long log records are kept, in seconds, after their `createdAt`; default 90 days (as Redis's). Older records
   * are pruned a bounded batch at a time as deductions are committed. Credited PaymentIntents, reversals and
   * balances are kept forever (no `creditRetentionMs`). A positive safe integer, else construction throws a
   * `StoreOptionError` (a RangeError) with code `ERR_SQLITE_OPTION`.
   */
  transactionTtlSeconds?: number;
  /**
   * The currency of the balances, transaction records and credited PaymentIntents written before balances had
   * a currency (schema 1); default `'usd'`. Used once, when the construction migrates such tables in place;
   * ignored for tables created or migrated already.
   */
  legacyCurrency?: Currency;
  /**
   * How long a call waits for another connection's write lock, in ms; default 250. The wait never blocks the
   * event loop: SQLite answers "busy" at once and the call retries after a short asynchronous pause, until this
   * time has passed; then it rejects with code `ERR_SQLITE_BUSY` (nothing changed). Keep it below the gate's
   * `storeTimeoutMs`, so that a busy database gives a definite failure rather than an unknown outcome.
   */
  busyTimeoutMs?: number;
  /**
   * How often the store checks, in ms, that `path` is still the file it opened (same device and inode); default
   * 1000; 0 turns the check off. A file deleted or replaced behind the store's back would otherwise take every
   * later write with it, unseen until a restart opens the new (or no) file. Once it happens, every call rejects
   * with code `ERR_SQLITE_FILE_LOST` and `onFileLost` is called once.
   */
  fileCheckIntervalMs?: number;
  /** Called once when the file was deleted or replaced; default: a loud message on console.error. */
  onFileLost?: (error: SqliteStoreError) => void;
}

/**
 * A store in a SQLite database file, shared safely by every connection and process that opens it
 * (WAL journal; a call that finds the write lock taken retries asynchronously, never blocking the event
 * loop). Checks at construction that it can write the file, and then that the file stays the one opened. Integers are bound and read as BigInt, so values are exact up to
 * Number.MAX_SAFE_INTEGER; a stored value above it makes the read reject with a RangeError.
 * Balances are rows per (client, currency); the tables of each prefix carry a schema version, and tables of an
 * older version are migrated in place at construction (see `openSqliteSchema`). Kept request ids of
 * idempotent deductions expire after their `ttlMs`; each kept deduction deletes up to 100 expired ones.
 * Deductions asked in one event-loop turn share one IMMEDIATE transaction (a SAVEPOINT each) and settle after its
 * COMMIT (deduction-groups.ts); log records are pruned after `transactionTtlSeconds`.
 */
export class SqliteStore extends GuardedStore {
  /**
   * Opens the database; throws a TypeError or RangeError for an invalid option, and a {@link SqliteStoreError}
   * (`ERR_SQLITE_NOT_WRITABLE`) when the file cannot be written.
   */
  constructor(options: SqliteStoreOptions) {
    super(new SqliteBackend(options), { name: 'SqliteStore', recordTransactions: options.recordTransactions ?? true });
  }
}
