// The SQLite store's backend: opens and checks the database, then runs each operation, retrying while another connection writes.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type {
  ClientRecord, Currency, DeductionRefundResult, DeductionResult, RepeatConfirmation, TopUpCredit, TopUpCreditResult, TopUpReversal, TopUpReversalResult,
  TransactionRecord,
} from '../store.ts';
import type { BackendDeduction, BackendRefund, StoreBackend } from '../store-backend.ts';
import type { SqliteStore, SqliteStoreOptions } from './sqlite-store.ts';
import { hasSqliteCode, isSqliteBusy, SqliteStoreError } from './sqlite-error.ts';
import { reasonOf } from '../store-errors.ts';
import { SqliteFileWatch } from './sqlite-file-watch.ts';
import { DeductionGroups } from '../deduction-groups.ts';
import { LogRetention } from './sqlite-retention.ts';
import { transactionTtlMs } from '../log-retention.ts';
import { openSqliteSchema, sqliteTables, type SqliteTables } from './sqlite-schema.ts';
import { prepareStatements, type SqliteStatements } from './sqlite-statements.ts';
import { appendTransaction, prepareTransactions, toSafeNumber, type SqliteTransactions } from './sqlite-transactions.ts';
import { fromStoredTransaction } from '../transaction-records.ts';
import { assertNonEmptyString, assertSafeInteger, closedError, legacyCurrencyOf } from '../validate.ts';

/** How long construction (tables, write check) may wait for another connection's write lock: before serving, blocking is fine. */
const OPEN_BUSY_TIMEOUT_MS = 5000;
const FIRST_BUSY_PAUSE_MS = 1;
const LONGEST_BUSY_PAUSE_MS = 20;
/** A lock name no caller uses: the write check at construction takes and drops it in one committed transaction. */
const WRITE_CHECK_LOCK = 'credit402:write-check';

/** The backend of {@link SqliteStore}: see there for the file, the locking and the integers. */
export class SqliteBackend implements StoreBackend {
  readonly #db: Database.Database;
  readonly #statements: SqliteStatements;
  readonly #transactions: SqliteTransactions;
  readonly #busyTimeoutMs: number;
  readonly #file: SqliteFileWatch | undefined;
  readonly #groups: DeductionGroups;
  /** Undefined when the store keeps no log. */
  readonly #retention: LogRetention | undefined;

  /** Opens (and creates or migrates) the tables, prepares the statements and checks that the file can be written. */
  constructor(options: SqliteStoreOptions) {
    assertNonEmptyString(options?.path, 'path');
    const busyTimeoutMs = options.busyTimeoutMs ?? 250;
    assertSafeInteger(busyTimeoutMs, 'busyTimeoutMs', 0);
    const fileCheckIntervalMs = options.fileCheckIntervalMs ?? 1000;
    assertSafeInteger(fileCheckIntervalMs, 'fileCheckIntervalMs', 0);
    const tables = sqliteTables(options.tablePrefix ?? 'credit402_');
    const legacyCurrency = legacyCurrencyOf(options.legacyCurrency);
    const ttlMs = transactionTtlMs(options.transactionTtlSeconds, 'SqliteStore');

    const db = new Database(options.path);
    try {
      openTables(db, tables, legacyCurrency, options.path);
      this.#statements = prepareStatements(db, tables);
      checkWritable(db, tables.locks, options.path);
      // From now on SQLite never waits inside a call (which would block the event loop): see #run.
      db.pragma('busy_timeout = 0');
      const watched = fileCheckIntervalMs > 0 && !db.memory;
      this.#file = watched ? new SqliteFileWatch(db, options.path, fileCheckIntervalMs, options.onFileLost) : undefined;
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
    this.#transactions = prepareTransactions(db, this.#statements);
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#retention = (options.recordTransactions ?? true) ? new LogRetention(ttlMs) : undefined;
    this.#groups = new DeductionGroups({
      commit: (deductions) => this.#retrying(() => {
        const nowMs = Date.now();
        return this.#transactions.deductBatch(deductions, nowMs, this.#retention?.next(deductions.length, nowMs));
      }),
    }, 'SqliteStore');
  }

  /**
   * Joins this event-loop turn's group commit (deduction-groups.ts): settles after the batch's COMMIT. A deduction whose
   * `notAfter` passed before its batch ran (the write lock held by another connection for longer) is not applied.
   */
  deductBalance(deduction: BackendDeduction): Promise<DeductionResult> {
    return this.#groups.deduct(deduction);
  }

  /**
   * Once per refund id, unless the kept request id's repeat was answered first (`superseded`); one whose `notAfter`
   * passed before it ran (another connection's write lock held) is not applied.
   */
  refundDeduction(refund: BackendRefund): Promise<DeductionRefundResult> {
    return this.#run(() => this.#transactions.refundDeduction(refund, Date.now()));
  }

  async confirmRepeat({ clientId, requestId, claimId }: RepeatConfirmation): Promise<void> {
    await this.#run(() => this.#statements.confirmRepeat.run(clientId, requestId, claimId, BigInt(Date.now())));
  }

  /** Read at every call (a fresh id pinned when the table was emptied), so a store whose table was reset is seen at once. */
  getStoreId(): Promise<string> {
    return this.#run(() => this.#transactions.storeId());
  }

  addBalance(clientId: string, currency: Currency, amount: number): Promise<number> {
    return this.#run(() => this.#transactions.addBalance(clientId, currency, amount, new Date().toISOString()));
  }

  async ensureClient(clientId: string): Promise<void> {
    await this.#run(() => this.#statements.upsertClient.run(clientId, 0n, new Date().toISOString()));
  }

  getClient(clientId: string): Promise<ClientRecord | null> {
    return this.#run(() => this.#transactions.readClient(clientId));
  }

  /** Checks the file at once, not only every `fileCheckIntervalMs`: a credit never goes to a file that was replaced or deleted. */
  creditTopUp(credit: TopUpCredit, recordId: string | undefined): Promise<TopUpCreditResult> {
    try {
      this.#file?.assertFile(true);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#run(() => this.#transactions.creditTopUp(credit, recordId, new Date().toISOString()));
  }

  async recordTransaction(record: TransactionRecord): Promise<void> {
    await this.#run(() => appendTransaction(this.#statements, record));
  }

  async listTransactions(clientId: string): Promise<TransactionRecord[]> {
    const rows = await this.#run(() => this.#statements.list.all(clientId));
    return rows.map((row) => fromStoredTransaction({ ...row, amount: toSafeNumber(row.amount, 'amount') }));
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    return (await this.#run(() => this.#statements.credited.get(paymentIntentId))) !== undefined;
  }

  reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    return this.#run(() => this.#transactions.reverseTopUp(reversal, new Date().toISOString()));
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    return (await this.#run(() => this.#statements.eventSeen.get(eventId))) !== undefined;
  }

  async markEventProcessed(eventId: string): Promise<void> {
    await this.#run(() => this.#statements.markEvent.run(eventId, new Date().toISOString()));
  }

  acquireLock(name: string, ttlMs: number, token: string): Promise<string | null> {
    return this.#run(() => {
      const now = BigInt(Date.now());
      return this.#statements.acquire.run(name, token, now + BigInt(ttlMs), now).changes === 1 ? token : null;
    });
  }

  releaseLock(name: string, token: string): Promise<boolean> {
    return this.#run(() => this.#statements.release.run(name, token, BigInt(Date.now())).changes === 1);
  }

  async close(): Promise<void> {
    this.#groups.flush(); // deductions already asked for are committed (or rejected), not dropped
    this.#file?.stop();
    this.#db.close();
  }

  /** Runs `op` after committing the deductions queued so far, so that it sees them; see {@link #retrying}. */
  #run<T>(op: () => T): Promise<T> {
    this.#groups.flush();
    return this.#retrying(op);
  }

  /**
   * Runs `op` (synchronous SQLite work), first making sure the file is still the one opened. SQLite answers
   * "busy" at once while another connection holds the write lock (busy_timeout 0: it never waits inside a call,
   * which would block the event loop); `op` then changed nothing and is retried after a short asynchronous pause,
   * for up to `busyTimeoutMs` in all, after which the call rejects with `ERR_SQLITE_BUSY`. A store closed during
   * a pause rejects as closed.
   */
  async #retrying<T>(op: () => T): Promise<T> {
    const started = Date.now();
    let pause = FIRST_BUSY_PAUSE_MS;
    for (;;) {
      if (!this.#db.open) throw closedError('SqliteStore');
      this.#file?.assertFile();
      try {
        return op();
      } catch (error) {
        if (!isSqliteBusy(error)) throw error;
        const left = started + this.#busyTimeoutMs - Date.now();
        if (left <= 0) {
          throw new SqliteStoreError('ERR_SQLITE_BUSY', `SqliteStore: another connection held the database's write lock for more than ${this.#busyTimeoutMs} ms; nothing was changed`, { cause: error });
        }
        await sleep(Math.min(left, pause * (0.5 + Math.random())));
        pause = Math.min(pause * 2, LONGEST_BUSY_PAUSE_MS);
      }
    }
  }
}

/** Sets the connection up (WAL, exact integers) and creates or migrates the tables: the first write, so a read-only file fails here. */
function openTables(db: Database.Database, tables: SqliteTables, legacyCurrency: Currency, path: string): void {
  db.pragma(`busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.defaultSafeIntegers(true);
  try {
    openSqliteSchema(db, tables, legacyCurrency);
  } catch (error) {
    if (!hasSqliteCode(error, 'SQLITE_READONLY')) throw error;
    throw notWritable(path, error);
  }
}

/**
 * Commits one small write (a lease taken and dropped), so that a database the process can open but not write
 * (read-only file or file system, a newer file format) fails here, at start, rather than on every paid request.
 */
function checkWritable(db: Database.Database, locks: string, path: string): void {
  try {
    db.transaction(() => {
      db.prepare(`INSERT INTO ${locks} (name, token, expires_at) VALUES (?, ?, 0)
        ON CONFLICT (name) DO UPDATE SET token = excluded.token, expires_at = 0`).run(WRITE_CHECK_LOCK, randomUUID());
      db.prepare(`DELETE FROM ${locks} WHERE name = ?`).run(WRITE_CHECK_LOCK);
    }).immediate();
  } catch (error) {
    throw notWritable(path, error);
  }
}

function notWritable(path: string, cause: unknown): SqliteStoreError {
  return new SqliteStoreError('ERR_SQLITE_NOT_WRITABLE', `SqliteStore: cannot write the database ${path}: ${reasonOf(cause)}`, { cause });
}
