// SQLite store on better-sqlite3: single statements, or one IMMEDIATE transaction per multi-step operation.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type {
  ClientRecord, Store, TopUpCredit, TopUpCreditResult, TopUpReversal, TopUpReversalResult, TransactionRecord,
} from './store.ts';
import { createSqliteTables, sqliteTables } from './sqlite-schema.ts';
import { prepareStatements, type SqliteStatements, type TransactionRow } from './sqlite-statements.ts';
import {
  assertDeductionRecord,
  assertLockRequest,
  assertNonEmptyString,
  assertSafeInteger,
  assertTopUpCredit,
  assertTopUpReversal,
  assertTransactionRecord,
  closedError,
} from './validate.ts';

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file path, or `':memory:'` for a private in-memory database. */
  path: string;
  /** Prefix of the table names (a plain SQL identifier); default `'credit402_'`. */
  tablePrefix?: string;
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
  /** How long a statement waits for another connection's write lock, in ms; default 5000. */
  busyTimeoutMs?: number;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * A store in a SQLite database file, shared safely by every connection and process that opens it
 * (WAL journal, busy timeout). Integers are bound and read as BigInt, so values are exact up to
 * Number.MAX_SAFE_INTEGER; a stored value above it makes the read reject with a RangeError.
 */
export class SqliteStore implements Store {
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;

  readonly #db: Database.Database;
  readonly #sql: SqliteStatements;
  readonly #record: boolean;
  readonly #deduct: (clientId: string, amount: bigint, record: TransactionRecord | undefined) => bigint | undefined;
  readonly #credit: (credit: TopUpCredit, now: string) => TopUpCreditResult;
  readonly #reverse: (reversal: TopUpReversal, now: string) => TopUpReversalResult;
  #closed = false;

  constructor(options: SqliteStoreOptions) {
    assertNonEmptyString(options?.path, 'path');
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    assertSafeInteger(busyTimeoutMs, 'busyTimeoutMs', 0);
    const t = sqliteTables(options.tablePrefix ?? 'credit402_');
    const record = options.recordTransactions ?? true;

    const db = new Database(options.path);
    try {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.defaultSafeIntegers(true);
      createSqliteTables(db, t);
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
    this.#record = record;
    const sql = prepareStatements(db, t);
    this.#sql = sql;

    const deduct = db.transaction((clientId: string, amount: bigint, r: TransactionRecord | undefined) => {
      const row = sql.deduct.get(amount, clientId, amount);
      if (row !== undefined && r !== undefined && record) append(sql, r);
      return row?.balance;
    });
    this.#deduct = (clientId, amount, r) => deduct.immediate(clientId, amount, r);

    const credit = db.transaction((c: TopUpCredit, now: string): TopUpCreditResult => {
      const amount = BigInt(c.amount);
      if (sql.markCredited.run(c.paymentIntentId, c.clientId, amount, now).changes === 0) {
        return { credited: false, balance: toSafeNumber(sql.get.get(c.clientId)?.balance ?? 0n, 'balance') };
      }
      const net = amount - min(amount, sql.reversedSum.get(c.paymentIntentId)?.total ?? 0n);
      const row = sql.add.get(c.clientId, net, 1n, now, MAX_SAFE);
      if (row === undefined) throw overflow(c.clientId, c.amount); // rolls back the credited mark
      if (record) sql.append.run(randomUUID(), 'topup', c.clientId, amount, now, c.paymentIntentId, null);
      return { credited: true, balance: toSafeNumber(row.balance, 'balance') };
    });
    this.#credit = (c, now) => credit.immediate(c, now);

    const reverse = db.transaction((r: TopUpReversal, now: string): TopUpReversalResult => {
      const credited = sql.credited.get(r.paymentIntentId);
      const clientId = credited?.client_id ?? null;
      const current = (): number | null => (clientId === null ? null : toSafeNumber(sql.get.get(clientId)?.balance ?? 0n, 'balance'));
      const previous = sql.reversal.get(r.paymentIntentId, r.key)?.amount ?? 0n;
      const amount = BigInt(r.amount);
      if (amount <= previous) return { changed: false, taken: 0, clientId, balance: current() };
      const before = sql.reversedSum.get(r.paymentIntentId)?.total ?? 0n;
      sql.setReversal.run(r.paymentIntentId, r.key, amount, now);
      if (credited === undefined) return { changed: true, taken: 0, clientId: null, balance: null };
      const after = min(MAX_SAFE, before + amount - previous);
      const taken = min(credited.amount, after) - min(credited.amount, before);
      if (taken > 0n) sql.take.run(taken, credited.client_id);
      return { changed: true, taken: Number(taken), clientId, balance: current() };
    });
    this.#reverse = (r, now) => reverse.immediate(r, now);

    if (record) {
      this.recordTransaction = async (r) => {
        this.#assertOpen();
        assertTransactionRecord(r);
        append(sql, r);
      };
      this.listTransactions = async (clientId) => {
        this.#assertOpen();
        assertNonEmptyString(clientId, 'clientId');
        return sql.list.all(clientId).map(toTransaction);
      };
    }
  }

  async deductBalance(clientId: string, amount: number, record?: TransactionRecord): Promise<number | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertSafeInteger(amount, 'amount', 0);
    if (record !== undefined) assertDeductionRecord(record, clientId, amount);
    const balance = record !== undefined && this.#record
      ? this.#deduct(clientId, BigInt(amount), record)
      : this.#sql.deduct.get(BigInt(amount), clientId, BigInt(amount))?.balance;
    return balance === undefined ? null : toSafeNumber(balance, 'balance');
  }

  async addBalance(clientId: string, amount: number): Promise<number> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertSafeInteger(amount, 'amount', 1);
    const row = this.#sql.add.get(clientId, BigInt(amount), 0n, new Date().toISOString(), MAX_SAFE);
    if (row === undefined) throw overflow(clientId, amount);
    return toSafeNumber(row.balance, 'balance');
  }

  async ensureClient(clientId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    this.#sql.ensure.run(clientId, new Date().toISOString());
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    const row = this.#sql.get.get(clientId);
    if (row === undefined) return null;
    return {
      balance: toSafeNumber(row.balance, 'balance'),
      topUps: toSafeNumber(row.top_ups, 'top_ups'),
      createdAt: row.created_at,
    };
  }

  async creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult> {
    this.#assertOpen();
    assertTopUpCredit(credit);
    return this.#credit(credit, new Date().toISOString());
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(paymentIntentId, 'paymentIntentId');
    return this.#sql.credited.get(paymentIntentId) !== undefined;
  }

  async reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    this.#assertOpen();
    assertTopUpReversal(reversal);
    return this.#reverse(reversal, new Date().toISOString());
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    return this.#sql.eventSeen.get(eventId) !== undefined;
  }

  async markEventProcessed(eventId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    this.#sql.markEvent.run(eventId, new Date().toISOString());
  }

  async acquireLock(name: string, ttlMs: number): Promise<string | null> {
    this.#assertOpen();
    assertLockRequest(name, ttlMs);
    const token = randomUUID();
    const now = Date.now();
    return this.#sql.acquire.run(name, token, BigInt(now + ttlMs), BigInt(now)).changes === 1 ? token : null;
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(name, 'name');
    assertNonEmptyString(token, 'token');
    return this.#sql.release.run(name, token, BigInt(Date.now())).changes === 1;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw closedError('SqliteStore');
  }
}

function append(sql: SqliteStatements, r: TransactionRecord): void {
  sql.append.run(r.id, r.type, r.clientId, BigInt(r.amount), r.createdAt, r.paymentIntentId ?? null, r.resource ?? null);
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
