// Prepared statements of the SQLite store, one per step; the store combines them into transactions.
import type Database from 'better-sqlite3';
import type { SqliteTables } from './sqlite-schema.ts';

export interface BalanceRow { balance: bigint }
export interface ClientRow { balance: bigint; top_ups: bigint; created_at: string }
export interface CreditedRow { client_id: string; amount: bigint }
export interface TransactionRow {
  id: string; type: 'topup' | 'deduction'; client_id: string; amount: bigint;
  created_at: string; payment_intent_id: string | null; resource: string | null;
}

/** A prepared statement with its parameters and row type. */
type Statement<Parameters extends unknown[], Row> = Database.Statement<Parameters, Row>;

/** The store's prepared statements, one per step. */
export interface SqliteStatements {
  deduct: Statement<[bigint, string, bigint], BalanceRow>;
  ensure: Statement<[string, string], never>;
  add: Statement<[string, bigint, bigint, string, bigint], BalanceRow>;
  take: Statement<[bigint, string], BalanceRow>;
  get: Statement<[string], ClientRow>;
  markCredited: Statement<[string, string, bigint, string], never>;
  credited: Statement<[string], CreditedRow>;
  reversal: Statement<[string, string], { amount: bigint }>;
  reversedSum: Statement<[string], { total: bigint }>;
  setReversal: Statement<[string, string, bigint, string], never>;
  append: Statement<[string, string, string, bigint, string, string | null, string | null], never>;
  list: Statement<[string], TransactionRow>;
  eventSeen: Statement<[string], { one: bigint }>;
  markEvent: Statement<[string, string], never>;
  acquire: Statement<[string, string, bigint, bigint], never>;
  release: Statement<[string, string, bigint], never>;
}

/** Prepares every statement of the store for the tables `t`. */
export function prepareStatements(db: Database.Database, t: SqliteTables): SqliteStatements {
  return {
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
    take: db.prepare<[bigint, string], BalanceRow>(
      `UPDATE ${t.clients} SET balance = balance - ? WHERE client_id = ? RETURNING balance`),
    get: db.prepare<[string], ClientRow>(
      `SELECT balance, top_ups, created_at FROM ${t.clients} WHERE client_id = ?`),
    markCredited: db.prepare<[string, string, bigint, string], never>(
      `INSERT INTO ${t.creditedPaymentIntents} (payment_intent_id, client_id, amount, credited_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (payment_intent_id) DO NOTHING`),
    credited: db.prepare<[string], CreditedRow>(
      `SELECT client_id, amount FROM ${t.creditedPaymentIntents} WHERE payment_intent_id = ?`),
    reversal: db.prepare<[string, string], { amount: bigint }>(
      `SELECT amount FROM ${t.reversals} WHERE payment_intent_id = ? AND reversal_key = ?`),
    reversedSum: db.prepare<[string], { total: bigint }>(
      `SELECT COALESCE(SUM(amount), 0) AS total FROM ${t.reversals} WHERE payment_intent_id = ?`),
    setReversal: db.prepare<[string, string, bigint, string], never>(
      `INSERT INTO ${t.reversals} (payment_intent_id, reversal_key, amount, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (payment_intent_id, reversal_key) DO UPDATE SET amount = excluded.amount, updated_at = excluded.updated_at`),
    append: db.prepare<[string, string, string, bigint, string, string | null, string | null], never>(
      `INSERT INTO ${t.transactions} (id, type, client_id, amount, created_at, payment_intent_id, resource)
       VALUES (?, ?, ?, ?, ?, ?, ?)`),
    list: db.prepare<[string], TransactionRow>(
      `SELECT id, type, client_id, amount, created_at, payment_intent_id, resource
       FROM ${t.transactions} WHERE client_id = ? ORDER BY seq`),
    eventSeen: db.prepare<[string], { one: bigint }>(
      `SELECT 1 AS one FROM ${t.processedEvents} WHERE event_id = ?`),
    markEvent: db.prepare<[string, string], never>(
      `INSERT INTO ${t.processedEvents} (event_id, processed_at) VALUES (?, ?) ON CONFLICT (event_id) DO NOTHING`),
    // Takes the lease when free or expired, in one statement: a row changed means acquired.
    acquire: db.prepare<[string, string, bigint, bigint], never>(
      `INSERT INTO ${t.locks} (name, token, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
       WHERE expires_at <= ?`),
    release: db.prepare<[string, string, bigint], never>(
      `DELETE FROM ${t.locks} WHERE name = ? AND token = ? AND expires_at > ?`),
  };
}
