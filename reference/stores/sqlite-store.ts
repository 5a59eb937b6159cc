// SQLite store on better-sqlite3: single-statement deductions and one IMMEDIATE transaction per top-up.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { ClientRecord, Store, TopUpCredit, TopUpCreditResult, TransactionRecord } from './store.ts';
import { sqliteSchema, sqliteTables } from './sqlite-schema.ts';
import {
  assertNonEmptyString,
  assertSafeInteger,
  assertTopUpCredit,
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

interface ClientRow { balance: bigint; top_ups: bigint; created_at: string }
interface BalanceRow { balance: bigint }
interface TransactionRow {
  id: string; type: 'topup' | 'deduction'; client_id: string; amount: bigint;
  created_at: string; payment_intent_id: string | null; resource: string | null;
}

/**
 * A store in a SQLite database file, shared safely by every connection and process that opens it
 * (WAL journal, busy timeout). Integers are bound and read as BigInt, so values are exact up to
 * Number.MAX_SAFE_INTEGER; a stored value above it makes the read reject with a RangeError.
 */
export class SqliteStore implements Store {
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;

  readonly #db: Database.Database;
  readonly #sql;
  readonly #creditTopUp: (credit: TopUpCredit, now: string) => TopUpCreditResult;
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
      db.exec(sqliteSchema(t));
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;

    const sql = {
      deduct: db.prepare<[bigint, string, bigint], BalanceRow>(
        `UPDATE ${t.clients} SET balance = balance - ? WHERE client_id = ? AND balance >= ? RETURNING balance`),
      ensure: db.prepare<[string, string], never>(
        `INSERT INTO ${t.clients} (client_id, balance, top_ups, created_at) VALUES (?, 0, 0, ?)
         ON CONFLICT (client_id) DO NOTHING`),
      // Upsert: a new client starts at `amount`; an existing one gains it unless that passes 2^53 - 1.
      add: db.prepare<[string, bigint, bigint, string, bigint], BalanceRow>(
        `INSERT INTO ${t.clients} (client_id, balance, top_ups, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (client_id) DO UPDATE SET balance = balance + excluded.balance, top_ups = top_ups + excluded.top_ups
         WHERE balance <= ? - excluded.balance
         RETURNING balance`),
      get: db.prepare<[string], ClientRow>(
        `SELECT balance, top_ups, created_at FROM ${t.clients} WHERE client_id = ?`),
      markCredited: db.prepare<[string, string, bigint, string], never>(
        `INSERT INTO ${t.creditedPaymentIntents} (payment_intent_id, client_id, amount, credited_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (payment_intent_id) DO NOTHING`),
      append: db.prepare<[string, string, string, bigint, string, string | null, string | null], never>(
        `INSERT INTO ${t.transactions} (id, type, client_id, amount, created_at, payment_intent_id, resource)
         VALUES (?, ?, ?, ?, ?, ?, ?)`),
      list: db.prepare<[string], TransactionRow>(
        `SELECT id, type, client_id, amount, created_at, payment_intent_id, resource
         FROM ${t.transactions} WHERE client_id = ? ORDER BY seq`),
    };
    this.#sql = sql;

    const credit = db.transaction((c: TopUpCredit, now: string): TopUpCreditResult => {
      const amount = BigInt(c.amount);
      if (sql.markCredited.run(c.paymentIntentId, c.clientId, amount, now).changes === 0) {
        return { credited: false, balance: toSafeNumber(sql.get.get(c.clientId)?.balance ?? 0n, 'balance') };
      }
      const row = sql.add.get(c.clientId, amount, 1n, now, MAX_SAFE);
      if (row === undefined) throw overflow(c.clientId, c.amount); // rolls back the credited mark
      if (record) {
        sql.append.run(randomUUID(), 'topup', c.clientId, amount, now, c.paymentIntentId, null);
      }
      return { credited: true, balance: toSafeNumber(row.balance, 'balance') };
    });
    this.#creditTopUp = (c, now) => credit.immediate(c, now);

    if (record) {
      this.recordTransaction = async (r) => {
        this.#assertOpen();
        assertTransactionRecord(r);
        sql.append.run(r.id, r.type, r.clientId, BigInt(r.amount), r.createdAt, r.paymentIntentId ?? null, r.resource ?? null);
      };
      this.listTransactions = async (clientId) => {
        this.#assertOpen();
        assertNonEmptyString(clientId, 'clientId');
        return sql.list.all(clientId).map(toTransaction);
      };
    }
  }

  async deductBalance(clientId: string, amount: number): Promise<number | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertSafeInteger(amount, 'amount', 0);
    const row = this.#sql.deduct.get(BigInt(amount), clientId, BigInt(amount));
    return row === undefined ? null : toSafeNumber(row.balance, 'balance');
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
    return this.#creditTopUp(credit, new Date().toISOString());
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
