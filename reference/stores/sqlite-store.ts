// SQLite store on better-sqlite3: single statements, or one IMMEDIATE transaction per multi-step operation.
import { randomUUID } from 'node:crypto';
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type {
  ClientRecord, Currency, Deduction, DeductionResult, Store, TopUpCredit, TopUpCreditResult, TopUpReversal,
  TopUpReversalResult, TransactionRecord,
} from './store.ts';
import { openSqliteSchema, sqliteTables } from './sqlite-schema.ts';
import { prepareStatements, type SqliteStatements, type TransactionRow } from './sqlite-statements.ts';
import {
  assertCurrency,
  assertDeduction,
  assertLockRequest,
  assertNonEmptyString,
  assertSafeInteger,
  assertTopUpCredit,
  assertTopUpReversal,
  assertTransactionRecord,
  closedError,
  legacyCurrencyOf,
} from './validate.ts';

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file path, or `':memory:'` for a private in-memory database. */
  path: string;
  /** Prefix of the table names (a plain SQL identifier); default `'credit402_'`. */
  tablePrefix?: string;
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
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

/** A failure of the SQLite store itself (not of one statement); `code` says which. */
export class SqliteStoreError extends Error {
  constructor(
    readonly code: 'ERR_SQLITE_BUSY' | 'ERR_SQLITE_NOT_WRITABLE' | 'ERR_SQLITE_FILE_LOST',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SqliteStoreError';
  }
}

/** How long construction (tables, write check) may wait for another connection's write lock: before serving, blocking is fine. */
const OPEN_BUSY_TIMEOUT_MS = 5000;
const FIRST_BUSY_PAUSE_MS = 1;
const LONGEST_BUSY_PAUSE_MS = 20;
/** A lock name no caller uses: the write check at construction takes and drops it in one committed transaction. */
const WRITE_CHECK_LOCK = 'credit402:write-check';

/** The database file as opened, for the check that it is still the one at its path. */
interface WatchedFile {
  path: string;
  dev: number;
  ino: number;
  intervalMs: number;
  onLost: (error: SqliteStoreError) => void;
}

/** True when `error` has a string `code` starting with `prefix` (SQLite's extended codes share the prefix). */
const hasCode = (error: unknown, prefix: string): boolean =>
  typeof (error as { code?: unknown } | null)?.code === 'string' && (error as { code: string }).code.startsWith(prefix);
const isBusy = (error: unknown): boolean => hasCode(error, 'SQLITE_BUSY');

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * A store in a SQLite database file, shared safely by every connection and process that opens it
 * (WAL journal; a call that finds the write lock taken retries asynchronously, never blocking the event
 * loop). Checks at construction that it can write the file, and then that the file stays the one opened. Integers are bound and read as BigInt, so values are exact up to
 * Number.MAX_SAFE_INTEGER; a stored value above it makes the read reject with a RangeError.
 * Balances are rows per (client, currency); the tables of each prefix carry a schema version, and tables of an
 * older version are migrated in place at construction (see `openSqliteSchema`). Kept request ids of
 * idempotent deductions expire after their `ttlMs`; each kept deduction deletes up to 100 expired ones.
 */
export class SqliteStore implements Store {
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;

  readonly #db: Database.Database;
  readonly #sql: SqliteStatements;
  readonly #deduct: (deduction: Deduction, now: number) => DeductionResult;
  readonly #add: (clientId: string, currency: string, amount: bigint, now: string) => bigint;
  readonly #get: (clientId: string) => ClientRecord | null;
  readonly #credit: (credit: TopUpCredit, now: string) => TopUpCreditResult;
  readonly #reverse: (reversal: TopUpReversal, now: string) => TopUpReversalResult;
  readonly #busyTimeoutMs: number;
  readonly #file: WatchedFile | undefined;
  #fileCheckedAt = 0;
  #fileTimer: ReturnType<typeof setInterval> | undefined;
  #lost: SqliteStoreError | undefined;
  #closed = false;

  constructor(options: SqliteStoreOptions) {
    assertNonEmptyString(options?.path, 'path');
    const busyTimeoutMs = options.busyTimeoutMs ?? 250;
    assertSafeInteger(busyTimeoutMs, 'busyTimeoutMs', 0);
    const fileCheckIntervalMs = options.fileCheckIntervalMs ?? 1000;
    assertSafeInteger(fileCheckIntervalMs, 'fileCheckIntervalMs', 0);
    const t = sqliteTables(options.tablePrefix ?? 'credit402_');
    const record = options.recordTransactions ?? true;
    const legacyCurrency = legacyCurrencyOf(options.legacyCurrency);

    const db = new Database(options.path);
    let sql: SqliteStatements;
    try {
      db.pragma(`busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.defaultSafeIntegers(true);
      try {
        openSqliteSchema(db, t, legacyCurrency);
      } catch (error) {
        // Creating or migrating the tables is the first write: a read-only file fails here.
        if (!hasCode(error, 'SQLITE_READONLY')) throw error;
        throw new SqliteStoreError('ERR_SQLITE_NOT_WRITABLE', `SqliteStore: cannot write the database ${options.path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      sql = prepareStatements(db, t);
      checkWritable(db, t.locks, options.path);
      // From now on SQLite never waits inside a call (which would block the event loop): see #run.
      db.pragma('busy_timeout = 0');
      this.#file = fileCheckIntervalMs > 0 && !db.memory ? this.#watchFile(options.path, fileCheckIntervalMs, options.onFileLost) : undefined;
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
    this.#sql = sql;
    this.#busyTimeoutMs = busyTimeoutMs;

    const balanceOf = (clientId: string, currency: string): number =>
      toSafeNumber(sql.balance.get(clientId, currency)?.balance ?? 0n, 'balance');

    const deduct = db.transaction((d: Deduction, now: number): DeductionResult => {
      const { clientId, currency, request } = d;
      if (request !== undefined) {
        const kept = sql.request.get(clientId, request.id, BigInt(now));
        if (kept !== undefined) {
          if (kept.fingerprint !== request.fingerprint || kept.repeated !== 0n) return { status: 'conflict' };
          sql.markRepeated.run(clientId, request.id);
          return { status: 'repeated', balance: balanceOf(clientId, currency) };
        }
      }
      const amount = BigInt(d.amount);
      let balance = sql.deduct.get(amount, clientId, currency, amount)?.balance;
      // Amount 0 from a currency never held: a balance of 0, when the client exists.
      if (balance === undefined && amount === 0n && sql.balance.get(clientId, currency) === undefined && sql.clientExists.get(clientId) !== undefined) balance = 0n;
      if (balance === undefined) return { status: 'insufficient' };
      if (d.record !== undefined && record) append(sql, d.record);
      if (request !== undefined) {
        sql.pruneRequests.run(BigInt(now));
        sql.keepRequest.run(clientId, request.id, request.fingerprint, BigInt(now) + BigInt(request.ttlMs));
      }
      return { status: 'deducted', balance: toSafeNumber(balance, 'balance') };
    });
    this.#deduct = (d, now) => deduct.immediate(d, now);

    // Upsert the client (new: no balances, no top-ups), then the balance; no row back means it would overflow.
    const add = db.transaction((clientId: string, currency: string, amount: bigint, now: string) => {
      sql.upsertClient.run(clientId, 0n, now);
      const row = sql.add.get(clientId, currency, amount, MAX_SAFE);
      if (row === undefined) throw overflow(clientId, Number(amount)); // rolls back the new client
      return row.balance;
    });
    this.#add = (clientId, currency, amount, now) => add.immediate(clientId, currency, amount, now);

    // A read transaction: the client row and its balances from one snapshot.
    const get = db.transaction((clientId: string): ClientRecord | null => {
      const row = sql.client.get(clientId);
      if (row === undefined) return null;
      const balances: Record<Currency, number> = {};
      for (const b of sql.balances.all(clientId)) balances[b.currency] = toSafeNumber(b.balance, 'balance');
      return { balances, topUps: toSafeNumber(row.top_ups, 'top_ups'), createdAt: row.created_at };
    });
    this.#get = (clientId) => get.deferred(clientId);

    const credit = db.transaction((c: TopUpCredit, now: string): TopUpCreditResult => {
      const amount = BigInt(c.amount);
      if (sql.markCredited.run(c.paymentIntentId, c.clientId, c.currency, amount, now).changes === 0) {
        return { credited: false, balance: balanceOf(c.clientId, c.currency) };
      }
      const net = amount - min(amount, sql.reversedSum.get(c.paymentIntentId)?.total ?? 0n);
      sql.upsertClient.run(c.clientId, 1n, now);
      const row = sql.add.get(c.clientId, c.currency, net, MAX_SAFE);
      if (row === undefined) throw overflow(c.clientId, c.amount); // rolls back the credited mark
      if (record) sql.append.run(randomUUID(), 'topup', c.clientId, c.currency, amount, now, c.paymentIntentId, null);
      return { credited: true, balance: toSafeNumber(row.balance, 'balance') };
    });
    this.#credit = (c, now) => credit.immediate(c, now);

    const reverse = db.transaction((r: TopUpReversal, now: string): TopUpReversalResult => {
      const credited = sql.credited.get(r.paymentIntentId);
      const clientId = credited?.client_id ?? null;
      const currency = credited?.currency ?? null;
      const current = (): number | null => (credited === undefined ? null : balanceOf(credited.client_id, credited.currency));
      const previous = sql.reversal.get(r.paymentIntentId, r.key)?.amount ?? 0n;
      const amount = BigInt(r.amount);
      if (amount <= previous) return { changed: false, taken: 0, clientId, currency, balance: current() };
      const before = sql.reversedSum.get(r.paymentIntentId)?.total ?? 0n;
      sql.setReversal.run(r.paymentIntentId, r.key, amount, now);
      if (credited === undefined) return { changed: true, taken: 0, clientId: null, currency: null, balance: null };
      const after = min(MAX_SAFE, before + amount - previous);
      const taken = min(credited.amount, after) - min(credited.amount, before);
      if (taken > 0n) sql.take.run(credited.client_id, credited.currency, -taken);
      return { changed: true, taken: Number(taken), clientId, currency, balance: current() };
    });
    this.#reverse = (r, now) => reverse.immediate(r, now);

    if (record) {
      this.recordTransaction = async (r) => {
        this.#assertOpen();
        assertTransactionRecord(r);
        await this.#run(() => append(sql, r));
      };
      this.listTransactions = async (clientId) => {
        this.#assertOpen();
        assertNonEmptyString(clientId, 'clientId');
        return (await this.#run(() => sql.list.all(clientId))).map(toTransaction);
      };
    }
  }

  async deductBalance(deduction: Deduction): Promise<DeductionResult> {
    this.#assertOpen();
    assertDeduction(deduction);
    return this.#run(() => this.#deduct(deduction, Date.now()));
  }

  async addBalance(clientId: string, currency: Currency, amount: number): Promise<number> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertCurrency(currency);
    assertSafeInteger(amount, 'amount', 1);
    const balance = await this.#run(() => this.#add(clientId, currency, BigInt(amount), new Date().toISOString()));
    return toSafeNumber(balance, 'balance');
  }

  async ensureClient(clientId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    await this.#run(() => this.#sql.upsertClient.run(clientId, 0n, new Date().toISOString()));
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    return this.#run(() => this.#get(clientId));
  }

  async creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult> {
    this.#assertOpen();
    assertTopUpCredit(credit);
    return this.#run(() => this.#credit(credit, new Date().toISOString()));
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(paymentIntentId, 'paymentIntentId');
    return (await this.#run(() => this.#sql.credited.get(paymentIntentId))) !== undefined;
  }

  async reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    this.#assertOpen();
    assertTopUpReversal(reversal);
    return this.#run(() => this.#reverse(reversal, new Date().toISOString()));
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    return (await this.#run(() => this.#sql.eventSeen.get(eventId))) !== undefined;
  }

  async markEventProcessed(eventId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    await this.#run(() => this.#sql.markEvent.run(eventId, new Date().toISOString()));
  }

  async acquireLock(name: string, ttlMs: number): Promise<string | null> {
    this.#assertOpen();
    assertLockRequest(name, ttlMs);
    const token = randomUUID();
    return this.#run(() => {
      const now = BigInt(Date.now());
      return this.#sql.acquire.run(name, token, now + BigInt(ttlMs), now).changes === 1 ? token : null;
    });
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(name, 'name');
    assertNonEmptyString(token, 'token');
    return this.#run(() => this.#sql.release.run(name, token, BigInt(Date.now())).changes === 1);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#fileTimer);
    this.#db.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw closedError('SqliteStore');
  }

  /**
   * Runs `op` (synchronous SQLite work), first making sure the file is still the one opened. SQLite answers
   * "busy" at once while another connection holds the write lock (busy_timeout 0: it never waits inside a call,
   * which would block the event loop); `op` then changed nothing and is retried after a short asynchronous pause,
   * for up to `busyTimeoutMs` in all, after which the call rejects with `ERR_SQLITE_BUSY`.
   */
  async #run<T>(op: () => T): Promise<T> {
    const started = Date.now();
    let pause = FIRST_BUSY_PAUSE_MS;
    for (;;) {
      this.#assertOpen();
      this.#assertFile();
      try {
        return op();
      } catch (error) {
        if (!isBusy(error)) throw error;
        const left = started + this.#busyTimeoutMs - Date.now();
        if (left <= 0) {
          throw new SqliteStoreError('ERR_SQLITE_BUSY', `SqliteStore: another connection held the database's write lock for more than ${this.#busyTimeoutMs} ms; nothing was changed`, { cause: error });
        }
        await sleep(Math.min(left, pause * (0.5 + Math.random())));
        pause = Math.min(pause * 2, LONGEST_BUSY_PAUSE_MS);
      }
    }
  }

  /** Starts the periodic check that the database file is still the one opened. */
  #watchFile(path: string, intervalMs: number, onLost: ((error: SqliteStoreError) => void) | undefined): WatchedFile {
    const absolute = resolve(path);
    const { dev, ino } = statSync(absolute);
    this.#fileCheckedAt = Date.now();
    this.#fileTimer = setInterval(() => this.#checkFile(), intervalMs);
    this.#fileTimer.unref();
    return { path: absolute, dev, ino, intervalMs, onLost: onLost ?? ((error) => console.error(`credit402: ${error.message}`)) };
  }

  /** Rejects the call once the file was lost; checks it again first when the last check is older than the interval. */
  #assertFile(): void {
    if (this.#file !== undefined && Date.now() - this.#fileCheckedAt >= this.#file.intervalMs) this.#checkFile();
    if (this.#lost !== undefined) throw this.#lost;
  }

  #checkFile(): void {
    const file = this.#file;
    if (file === undefined || this.#lost !== undefined || this.#closed) return;
    this.#fileCheckedAt = Date.now();
    let now: ReturnType<typeof statSync>;
    try {
      now = statSync(file.path, { throwIfNoEntry: false });
    } catch {
      return; // cannot tell (e.g. a permission changed): not a proof that the file is gone
    }
    if (now !== undefined && now.dev === file.dev && now.ino === file.ino) return;
    const what = now === undefined ? 'was deleted' : `was replaced (inode ${file.ino} is now ${now.ino})`;
    const saved = this.#rescue(file.path);
    this.#lost = new SqliteStoreError(
      'ERR_SQLITE_FILE_LOST',
      `SqliteStore: the database file ${file.path} ${what} while the store had it open. Every store call now fails ` +
        `(paid requests are answered 503): writes would go to a file no restart opens again. ${saved}`,
    );
    clearInterval(this.#fileTimer);
    file.onLost(this.#lost);
  }

  /**
   * Copies the database this connection still has open (the lost file, with its WAL) next to `path`, so that no
   * balance is lost; says where it went, or where the open files are when the copy failed.
   */
  #rescue(path: string): string {
    const copy = `${path}.lost-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      this.#db.prepare('VACUUM INTO ?').run(copy);
      return `A copy of the database as this process had it was written to ${copy}: restart on the right file (that copy, or what is at ${path} now).`;
    } catch (error) {
      const held = openDescriptors(path);
      return `Copying it to ${copy} failed (${error instanceof Error ? error.message : String(error)}); the balances so far are only in the ` +
        `files this process still holds open (${held.length > 0 ? held.join(', ') : `see /proc/${process.pid}/fd`}): copy them before stopping it.`;
    }
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
    const reason = error instanceof Error ? error.message : String(error);
    throw new SqliteStoreError('ERR_SQLITE_NOT_WRITABLE', `SqliteStore: cannot write the database ${path}: ${reason}`, { cause: error });
  }
}

/** Where this process still holds `path` and its WAL open after they were deleted or replaced (Linux: /proc/self/fd). */
function openDescriptors(path: string): string[] {
  const held: string[] = [];
  try {
    for (const fd of readdirSync('/proc/self/fd')) {
      const target = readlinkSync(`/proc/self/fd/${fd}`).replace(/ \(deleted\)$/, '');
      if (target === path || target === `${path}-wal`) held.push(`/proc/${process.pid}/fd/${fd} (${target.endsWith('-wal') ? 'its WAL' : 'the database'})`);
    }
  } catch {
    // not Linux, or no /proc
  }
  return held;
}

function append(sql: SqliteStatements, r: TransactionRecord): void {
  sql.append.run(r.id, r.type, r.clientId, r.currency, BigInt(r.amount), r.createdAt, r.paymentIntentId ?? null, r.resource ?? null);
}

function toSafeNumber(value: bigint, column: string): number {
  if (value > MAX_SAFE || value < -MAX_SAFE) {
    throw new RangeError(`${column} ${value} is outside the safe integer range`);
  }
  return Number(value);
}

function toTransaction(row: TransactionRow): TransactionRecord {
  const record: TransactionRecord = {
    id: row.id,
    type: row.type,
    clientId: row.client_id,
    currency: row.currency,
    amount: toSafeNumber(row.amount, 'amount'),
    createdAt: row.created_at,
  };
  if (row.payment_intent_id !== null) record.paymentIntentId = row.payment_intent_id;
  if (row.resource !== null) record.resource = row.resource;
  return record;
}

function overflow(clientId: string, amount: number): RangeError {
  return new RangeError(`adding ${amount} to client ${clientId} would exceed Number.MAX_SAFE_INTEGER`);
}
