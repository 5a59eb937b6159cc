// Prepared statements of the SQLite store, one per step; the store combines them into transactions.
import type Database from 'better-sqlite3';
import type { SqliteTables } from './sqlite-schema.ts';

interface BalanceRow { balance: bigint }
interface CurrencyBalanceRow { currency: string; balance: bigint }
interface ClientRow { top_ups: bigint; created_at: string }
interface CreditedRow { client_id: string; currency: string; amount: bigint }
interface RequestRow { fingerprint: string; repeated: bigint; claim_until: bigint | null }
interface TransactionRow {
  id: string; type: 'topup' | 'deduction'; client_id: string; currency: string; amount: bigint;
  created_at: string; payment_intent_id: string | null; resource: string | null;
}

/** A prepared statement with its parameters and row type. */
type Statement<Parameters extends unknown[], Row> = Database.Statement<Parameters, Row>;

/** Expired request ids deleted per kept deduction: more than one, so the table shrinks back after a burst. */
const PRUNE_BATCH = 100;

/** The store's prepared statements, one per step. */
export interface SqliteStatements {
  /** (amount, clientId, currency, amount) → the new balance, when the balance covered the amount. */
  deduct: Statement<[bigint, string, string, bigint], BalanceRow>;
  /** (clientId, topUps, now): creates the client, or adds `topUps` to an existing one. */
  upsertClient: Statement<[string, bigint, string], never>;
  /** (clientId, currency, amount, max) → the new balance; no row when it would pass `max`. */
  add: Statement<[string, string, bigint, bigint], BalanceRow>;
  /** (clientId, currency, −amount): subtracts, creating the balance at −amount when missing (reversals). */
  take: Statement<[string, string, bigint], never>;
  client: Statement<[string], ClientRow>;
  clientExists: Statement<[string], { one: bigint }>;
  balance: Statement<[string, string], BalanceRow>;
  balances: Statement<[string], CurrencyBalanceRow>;
  markCredited: Statement<[string, string, string, bigint, string], never>;
  credited: Statement<[string], CreditedRow>;
  reversal: Statement<[string, string], { amount: bigint }>;
  reversedSum: Statement<[string], { total: bigint }>;
  setReversal: Statement<[string, string, bigint, string], never>;
  append: Statement<[string, string, string, string, bigint, string, string | null, string | null], never>;
  list: Statement<[string], TransactionRow>;
  /** (clientId, requestId, now) → the kept deduction, when not expired. */
  request: Statement<[string, string, bigint], RequestRow>;
  /** (claimId, claimUntil, clientId, requestId): a call's claim of the kept deduction's repeat (CR-6.9). */
  claimRepeat: Statement<[string, bigint, string, string], never>;
  /** (clientId, requestId, claimId, now): uses the repeat up when that claim is its latest and the id is kept. */
  confirmRepeat: Statement<[string, string, string, bigint], never>;
  markRepeated: Statement<[string, string], never>;
  /** (clientId, requestId, fingerprint, expiresAt): keeps a deduction, replacing an expired one. */
  keepRequest: Statement<[string, string, string, bigint], never>;
  /** (clientId, requestId): forgets a kept request id (a refunded deduction's). */
  forgetRequest: Statement<[string, string], never>;
  /** (clientId, recordId): deletes the client's newest record with that id (a refunded deduction's). */
  removeRecord: Statement<[string, string], never>;
  /** The store's id (schema 3). */
  storeId: Statement<[], { id: string }>;
  /** (): writes a fresh random id when the store table holds none (it was emptied while the store was open). */
  pinStoreId: Statement<[], never>;
  /** (id) → a row when the store table holds that id. */
  holdsStoreId: Statement<[string], { one: bigint }>;
  /**
   * (clientId, refundId, expiresAt, now): keeps an applied refund's id, replacing an expired one; changes nothing (0
   * changes) while the id is kept and unexpired (schema 4).
   */
  keepRefund: Statement<[string, string, bigint, bigint], never>;
  /** (clientId, refundId, now) → a row while the applied refund's id is kept and unexpired. */
  refundKept: Statement<[string, string, bigint], { one: bigint }>;
  /** (now): deletes up to {@link PRUNE_BATCH} expired refund ids, oldest first (index on expires_at). */
  pruneRefunds: Statement<[bigint], never>;
  /** (now): deletes up to {@link PRUNE_BATCH} expired request ids, oldest first (index on expires_at). */
  pruneRequests: Statement<[bigint], never>;
  /**
   * (limit, before): of the `limit` oldest records (by `seq`, the primary key: no scan), deletes those whose
   * `created_at` (ISO 8601 UTC) is before `before`.
   */
  pruneLog: Statement<[bigint, string], never>;
  eventSeen: Statement<[string], { one: bigint }>;
  markEvent: Statement<[string, string], never>;
  acquire: Statement<[string, string, bigint, bigint], never>;
  release: Statement<[string, string, bigint], never>;
}

/** Prepares every statement of the store for the tables `t`. */
export function prepareStatements(db: Database.Database, t: SqliteTables): SqliteStatements {
  return {
    deduct: db.prepare<[bigint, string, string, bigint], BalanceRow>(
      `UPDATE ${t.balances} SET balance = balance - ? WHERE client_id = ? AND currency = ? AND balance >= ? RETURNING balance`),
    upsertClient: db.prepare<[string, bigint, string], never>(
      `INSERT INTO ${t.clients} (client_id, top_ups, created_at) VALUES (?, ?, ?)
       ON CONFLICT (client_id) DO UPDATE SET top_ups = top_ups + excluded.top_ups WHERE excluded.top_ups <> 0`),
    // Upsert: a new balance starts at `amount`; an existing one gains it unless that passes 2^53 - 1.
    add: db.prepare<[string, string, bigint, bigint], BalanceRow>(
      `INSERT INTO ${t.balances} (client_id, currency, balance) VALUES (?, ?, ?)
       ON CONFLICT (client_id, currency) DO UPDATE SET balance = balance + excluded.balance
       WHERE balance <= ? - excluded.balance
       RETURNING balance`),
    take: db.prepare<[string, string, bigint], never>(
      `INSERT INTO ${t.balances} (client_id, currency, balance) VALUES (?, ?, ?)
       ON CONFLICT (client_id, currency) DO UPDATE SET balance = balance + excluded.balance`),
    client: db.prepare<[string], ClientRow>(
      `SELECT top_ups, created_at FROM ${t.clients} WHERE client_id = ?`),
    clientExists: db.prepare<[string], { one: bigint }>(
      `SELECT 1 AS one FROM ${t.clients} WHERE client_id = ?`),
    balance: db.prepare<[string, string], BalanceRow>(
      `SELECT balance FROM ${t.balances} WHERE client_id = ? AND currency = ?`),
    balances: db.prepare<[string], CurrencyBalanceRow>(
      `SELECT currency, balance FROM ${t.balances} WHERE client_id = ? ORDER BY currency`),
    markCredited: db.prepare<[string, string, string, bigint, string], never>(
      `INSERT INTO ${t.creditedPaymentIntents} (payment_intent_id, client_id, currency, amount, credited_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (payment_intent_id) DO NOTHING`),
    credited: db.prepare<[string], CreditedRow>(
      `SELECT client_id, currency, amount FROM ${t.creditedPaymentIntents} WHERE payment_intent_id = ?`),
    reversal: db.prepare<[string, string], { amount: bigint }>(
      `SELECT amount FROM ${t.reversals} WHERE payment_intent_id = ? AND reversal_key = ?`),
    reversedSum: db.prepare<[string], { total: bigint }>(
      `SELECT COALESCE(SUM(amount), 0) AS total FROM ${t.reversals} WHERE payment_intent_id = ?`),
    setReversal: db.prepare<[string, string, bigint, string], never>(
      `INSERT INTO ${t.reversals} (payment_intent_id, reversal_key, amount, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (payment_intent_id, reversal_key) DO UPDATE SET amount = excluded.amount, updated_at = excluded.updated_at`),
    append: db.prepare<[string, string, string, string, bigint, string, string | null, string | null], never>(
      `INSERT INTO ${t.transactions} (id, type, client_id, currency, amount, created_at, payment_intent_id, resource)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    list: db.prepare<[string], TransactionRow>(
      `SELECT id, type, client_id, currency, amount, created_at, payment_intent_id, resource
       FROM ${t.transactions} WHERE client_id = ? ORDER BY seq`),
    request: db.prepare<[string, string, bigint], RequestRow>(
      `SELECT fingerprint, repeated, claim_until FROM ${t.deductionRequests} WHERE client_id = ? AND request_id = ? AND expires_at > ?`),
    claimRepeat: db.prepare<[string, bigint, string, string], never>(
      `UPDATE ${t.deductionRequests} SET claim_id = ?, claim_until = ? WHERE client_id = ? AND request_id = ?`),
    confirmRepeat: db.prepare<[string, string, string, bigint], never>(
      `UPDATE ${t.deductionRequests} SET repeated = 1 WHERE client_id = ? AND request_id = ? AND claim_id = ? AND expires_at > ?`),
    markRepeated: db.prepare<[string, string], never>(
      `UPDATE ${t.deductionRequests} SET repeated = 1 WHERE client_id = ? AND request_id = ?`),
    keepRequest: db.prepare<[string, string, string, bigint], never>(
      `INSERT INTO ${t.deductionRequests} (client_id, request_id, fingerprint, repeated, expires_at) VALUES (?, ?, ?, 0, ?)
       ON CONFLICT (client_id, request_id) DO UPDATE
         SET fingerprint = excluded.fingerprint, repeated = 0, expires_at = excluded.expires_at, claim_id = NULL, claim_until = NULL`),
    forgetRequest: db.prepare<[string, string], never>(
      `DELETE FROM ${t.deductionRequests} WHERE client_id = ? AND request_id = ?`),
    // The client's index, newest first: a refunded deduction is among the newest records.
    removeRecord: db.prepare<[string, string], never>(
      `DELETE FROM ${t.transactions} WHERE seq = (
         SELECT seq FROM ${t.transactions} WHERE client_id = ? AND id = ? ORDER BY seq DESC LIMIT 1)`),
    storeId: db.prepare<[], { id: string }>(`SELECT id FROM ${t.store}`),
    pinStoreId: db.prepare<[], never>(
      `INSERT INTO ${t.store} (id) SELECT lower(hex(randomblob(16))) WHERE NOT EXISTS (SELECT 1 FROM ${t.store})`),
    holdsStoreId: db.prepare<[string], { one: bigint }>(`SELECT 1 AS one FROM ${t.store} WHERE id = ?`),
    keepRefund: db.prepare<[string, string, bigint, bigint], never>(
      `INSERT INTO ${t.refunds} AS kept (client_id, refund_id, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (client_id, refund_id) DO UPDATE SET expires_at = excluded.expires_at WHERE kept.expires_at <= ?`),
    refundKept: db.prepare<[string, string, bigint], { one: bigint }>(
      `SELECT 1 AS one FROM ${t.refunds} WHERE client_id = ? AND refund_id = ? AND expires_at > ?`),
    pruneRefunds: db.prepare<[bigint], never>(
      `DELETE FROM ${t.refunds} WHERE (client_id, refund_id) IN (
         SELECT client_id, refund_id FROM ${t.refunds} WHERE expires_at <= ? ORDER BY expires_at LIMIT ${PRUNE_BATCH})`),
    pruneRequests: db.prepare<[bigint], never>(
      `DELETE FROM ${t.deductionRequests} WHERE (client_id, request_id) IN (
         SELECT client_id, request_id FROM ${t.deductionRequests} WHERE expires_at <= ? ORDER BY expires_at LIMIT ${PRUNE_BATCH})`),
    pruneLog: db.prepare<[bigint, string], never>(
      `DELETE FROM ${t.transactions} WHERE seq IN (
         SELECT seq FROM (SELECT seq, created_at FROM ${t.transactions} ORDER BY seq LIMIT ?) WHERE created_at < ?)`),
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
