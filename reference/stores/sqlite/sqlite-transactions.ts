// The SQLite store's multi-step operations, each one SQLite transaction over the prepared statements.
import type Database from 'better-sqlite3';
import type {
  ClientRecord, Currency, Deduction, DeductionRefund, DeductionRefundResult, DeductionResult, TopUpCredit, TopUpCreditResult, TopUpReversal,
  TopUpReversalResult, TransactionRecord,
} from '../store.ts';
import { REFUND_ID_TTL_MS } from '../store.ts';
import type { BackendDeduction, BackendRefund } from '../store-backend.ts';
import type { SqliteStatements } from './sqlite-statements.ts';
import type { DeductionOutcome } from '../deduction-groups.ts';
import { LateDeductionError } from '../deduction-deadline.ts';
import { StoreIdentityError } from '../store-identity.ts';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const smaller = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** What one deduction of a batch came to: its result, or the error SQLite threw for it (it changed nothing). */

/** Log records to prune in a batch's transaction: of the `limit` oldest, those created before `before` (ISO 8601). */
export interface LogPrune {
  limit: number;
  before: string;
}

/** The store's operations that take more than one statement; each runs in one transaction and returns at once. */
export interface SqliteTransactions {
  /** Deducts (with its record and request id), in one IMMEDIATE transaction; `nowMs` dates the request id. */
  deductBalance(deduction: Deduction, nowMs: number): DeductionResult;
  /**
   * Runs `deductions` one after the other in ONE IMMEDIATE transaction, each in its own SAVEPOINT: a deduction
   * for which SQLite throws is rolled back alone and its outcome is the error; one whose `notAfter` has passed is not
   * run, and its outcome is a {@link LateDeductionError} (the transaction commits at once after the loop, before
   * any timer can fire in this process). Then prunes the log (`prune`) and commits. Returns the outcomes in order
   * once committed; throws, having committed nothing, when the transaction as a whole failed (BEGIN, COMMIT, or an
   * error that made SQLite roll the transaction back).
   */
  deductBatch(deductions: readonly BackendDeduction[], nowMs: number, prune: LogPrune | undefined): DeductionOutcome[];
  /**
   * Gives a deduction back once per refund id: the balance (a RangeError on overflow), its record, its request id and
   * the refund id kept, in one transaction; a kept refund id changes nothing and answers `refunded` with the current
   * balance, and a kept request id whose repeat was claimed or used changes nothing and answers `superseded`. A refund
   * whose `notAfter` has passed is not run: a {@link LateDeductionError}.
   */
  refundDeduction(refund: BackendRefund, nowMs: number): DeductionRefundResult;
  /** Creates the client when missing and adds to the balance; a RangeError, changing nothing, on overflow. */
  addBalance(clientId: string, currency: Currency, amount: number, now: string): number;
  /** The client row and its balances from one snapshot (a read transaction). */
  readClient(clientId: string): ClientRecord | null;
  /**
   * Credits a top-up once per PaymentIntent, appending the `topup` record `recordId` when given; with `storeId`, only
   * while the store table holds it (else a {@link StoreIdentityError}, nothing changed).
   */
  creditTopUp(credit: TopUpCredit, recordId: string | undefined, now: string): TopUpCreditResult;
  /** The store's id, a fresh random one written first when the store table holds none (it was emptied), in one transaction. */
  storeId(): string;
  /** Raises a reversal and takes what it adds from the credited balance. */
  reverseTopUp(reversal: TopUpReversal, now: string): TopUpReversalResult;
}

/** Wraps the store's multi-step operations over `statements` in transactions of `db`. */
export function prepareTransactions(db: Database.Database, statements: SqliteStatements): SqliteTransactions {
  // Called inside `batch`, a better-sqlite3 transaction function runs as a SAVEPOINT, rolled back (only) when it throws.
  const deduct = db.transaction((deduction: Deduction, nowMs: number) => deductBalance(statements, deduction, nowMs));
  const batch = db.transaction((deductions: readonly BackendDeduction[], nowMs: number, prune: LogPrune | undefined) => {
    const outcomes = deductions.map((deduction): DeductionOutcome => {
      if (deduction.notAfter !== undefined && performance.now() > deduction.notAfter) return { ok: false, error: new LateDeductionError('SqliteStore') };
      try {
        return { ok: true, result: deduct(deduction, nowMs) };
      } catch (error) {
        // SQLite rolled the whole transaction back (e.g. SQLITE_FULL): nothing of the batch stands, so none may resolve.
        if (!db.inTransaction) throw error;
        return { ok: false, error };
      }
    });
    if (prune !== undefined) statements.pruneLog.run(BigInt(prune.limit), prune.before);
    return outcomes;
  });
  const add = db.transaction((clientId: string, currency: Currency, amount: number, now: string) => addBalance(statements, clientId, currency, amount, now));
  const read = db.transaction((clientId: string) => readClient(statements, clientId));
  const credit = db.transaction((topUp: TopUpCredit, recordId: string | undefined, now: string) => creditTopUp(statements, topUp, recordId, now));
  const pinStoreId = db.transaction(() => {
    statements.pinStoreId.run();
    const row = statements.storeId.get();
    if (row === undefined) throw new Error('SqliteStore: the store table holds no id');
    return row.id;
  });
  const reverse = db.transaction((reversal: TopUpReversal, now: string) => reverseTopUp(statements, reversal, now));
  const refund = db.transaction((given: BackendRefund, nowMs: number) => {
    // Checked inside the transaction, which holds the write lock: nothing comes between the check and the commit.
    if (given.notAfter !== undefined && performance.now() > given.notAfter) throw new LateDeductionError('SqliteStore', 'refund');
    return refundDeduction(statements, given, nowMs);
  });
  return {
    deductBalance: (deduction, nowMs) => deduct.immediate(deduction, nowMs),
    deductBatch: (deductions, nowMs, prune) => batch.immediate(deductions, nowMs, prune),
    // Read as a number after the commit, as getClient would read it.
    addBalance: (clientId, currency, amount, now) => toSafeNumber(add.immediate(clientId, currency, amount, now), 'balance'),
    readClient: (clientId) => read.deferred(clientId),
    creditTopUp: (topUp, recordId, now) => credit.immediate(topUp, recordId, now),
    // Read alone; the write lock is taken only when the id is missing (the pin then writes one unless another connection did).
    storeId: () => statements.storeId.get()?.id ?? pinStoreId.immediate(),
    reverseTopUp: (reversal, now) => reverse.immediate(reversal, now),
    // Read as a number after the commit, as addBalance's.
    refundDeduction: (given, nowMs) => {
      const { status, balance } = refund.immediate(given, nowMs);
      return { status, balance: toSafeNumber(balance, 'balance') };
    },
  };
}

/** Appends one record to the log. */
export function appendTransaction(statements: SqliteStatements, record: TransactionRecord): void {
  const { id, type, clientId, currency, amount, createdAt, paymentIntentId, resource } = record;
  statements.append.run(id, type, clientId, currency, BigInt(amount), createdAt, paymentIntentId ?? null, resource ?? null);
}

/** A stored integer as a number; a RangeError when it is not exact. */
export function toSafeNumber(value: bigint, column: string): number {
  if (value > MAX_SAFE || value < -MAX_SAFE) {
    throw new RangeError(`${column} ${value} is outside the safe integer range`);
  }
  return Number(value);
}

function balanceOf(statements: SqliteStatements, clientId: string, currency: Currency): number {
  return toSafeNumber(statements.balance.get(clientId, currency)?.balance ?? 0n, 'balance');
}

function deductBalance(statements: SqliteStatements, deduction: Deduction, nowMs: number): DeductionResult {
  const { clientId, currency, record, request } = deduction;
  const now = BigInt(nowMs);
  if (request !== undefined) {
    const kept = statements.request.get(clientId, request.id, now);
    if (kept !== undefined) {
      if (kept.fingerprint !== request.fingerprint || kept.repeated !== 0n) return { status: 'conflict' };
      const { claim } = request;
      if (claim === undefined) statements.markRepeated.run(clientId, request.id);
      else if (kept.claim_until !== null && kept.claim_until > now) return { status: 'busy' };
      else statements.claimRepeat.run(claim.id, now + BigInt(claim.leaseMs), clientId, request.id);
      return { status: 'repeated', balance: balanceOf(statements, clientId, currency) };
    }
  }
  const amount = BigInt(deduction.amount);
  let balance = statements.deduct.get(amount, clientId, currency, amount)?.balance;
  // Amount 0 from a currency never held: a balance of 0, when the client exists.
  const neverHeld = (): boolean => statements.balance.get(clientId, currency) === undefined && statements.clientExists.get(clientId) !== undefined;
  if (balance === undefined && amount === 0n && neverHeld()) balance = 0n;
  if (balance === undefined) return { status: 'insufficient' };
  if (record !== undefined) appendTransaction(statements, record);
  if (request !== undefined) {
    statements.pruneRequests.run(now);
    statements.keepRequest.run(clientId, request.id, request.fingerprint, now + BigInt(request.ttlMs));
  }
  return { status: 'deducted', balance: toSafeNumber(balance, 'balance') };
}

/** Upserts the client (new: no balances, no top-ups), then the balance; no row back means it would overflow. */
function addBalance(statements: SqliteStatements, clientId: string, currency: Currency, amount: number, now: string): bigint {
  statements.upsertClient.run(clientId, 0n, now);
  const row = statements.add.get(clientId, currency, BigInt(amount), MAX_SAFE);
  if (row === undefined) throw overflow(clientId, amount); // rolls back the new client
  return row.balance;
}

/** What {@link refundDeduction} came to, with the balance as stored. */
interface StoredRefundResult {
  status: DeductionRefundResult['status'];
  balance: bigint;
}

/**
 * Unless the refund id is kept or the kept request id's repeat was answered (claimed, whether the claim holds or
 * lapsed, or used: CR-6.9): the balance back (as {@link addBalance}), the record removed, the request id forgotten and
 * the refund id kept; a throw rolls all back. A kept refund id: `refunded`, nothing changed; an answered repeat:
 * `superseded`, nothing changed (the refund id not kept); both with the current balance. The IMMEDIATE transaction
 * holds the write lock, so a deduction's claim of the repeat comes wholly before or wholly after.
 */
function refundDeduction(statements: SqliteStatements, refund: DeductionRefund, nowMs: number): StoredRefundResult {
  const { clientId, currency, amount, recordId, requestId, refundId } = refund;
  const now = BigInt(nowMs);
  const current = () => statements.balance.get(clientId, currency)?.balance ?? 0n;
  statements.pruneRefunds.run(now);
  if (statements.refundKept.get(clientId, refundId, now) !== undefined) return { status: 'refunded', balance: current() };
  const kept = requestId === undefined ? undefined : statements.request.get(clientId, requestId, now);
  // A claim's columns stay set once it lapsed: claim_until is null only while nobody ever claimed the repeat.
  if (kept !== undefined && (kept.repeated !== 0n || kept.claim_until !== null)) return { status: 'superseded', balance: current() };
  statements.keepRefund.run(clientId, refundId, now + BigInt(REFUND_ID_TTL_MS), now);
  const balance = addBalance(statements, clientId, currency, amount, new Date(nowMs).toISOString());
  if (recordId !== undefined) statements.removeRecord.run(clientId, recordId);
  if (requestId !== undefined) statements.forgetRequest.run(clientId, requestId);
  return { status: 'refunded', balance };
}

function readClient(statements: SqliteStatements, clientId: string): ClientRecord | null {
  const row = statements.client.get(clientId);
  if (row === undefined) return null;
  const balances: Record<Currency, number> = {};
  for (const held of statements.balances.all(clientId)) balances[held.currency] = toSafeNumber(held.balance, 'balance');
  return { balances, topUps: toSafeNumber(row.top_ups, 'top_ups'), createdAt: row.created_at };
}

function creditTopUp(statements: SqliteStatements, credit: TopUpCredit, recordId: string | undefined, now: string): TopUpCreditResult {
  const { clientId, currency, paymentIntentId, storeId } = credit;
  if (storeId !== undefined && statements.holdsStoreId.get(storeId) === undefined) throw new StoreIdentityError('SqliteStore', storeId);
  const amount = BigInt(credit.amount);
  if (statements.markCredited.run(paymentIntentId, clientId, currency, amount, now).changes === 0) {
    return { credited: false, balance: balanceOf(statements, clientId, currency) };
  }
  const net = amount - smaller(amount, statements.reversedSum.get(paymentIntentId)?.total ?? 0n);
  statements.upsertClient.run(clientId, 1n, now);
  const row = statements.add.get(clientId, currency, net, MAX_SAFE);
  if (row === undefined) throw overflow(clientId, credit.amount); // rolls back the credited mark
  if (recordId !== undefined) statements.append.run(recordId, 'topup', clientId, currency, amount, now, paymentIntentId, null);
  return { credited: true, balance: toSafeNumber(row.balance, 'balance') };
}

function reverseTopUp(statements: SqliteStatements, reversal: TopUpReversal, now: string): TopUpReversalResult {
  const { paymentIntentId, key } = reversal;
  const credited = statements.credited.get(paymentIntentId);
  const clientId = credited?.client_id ?? null;
  const currency = credited?.currency ?? null;
  const balance = (): number | null => (credited === undefined ? null : balanceOf(statements, credited.client_id, credited.currency));
  const previous = statements.reversal.get(paymentIntentId, key)?.amount ?? 0n;
  const amount = BigInt(reversal.amount);
  if (amount <= previous) return { changed: false, taken: 0, clientId, currency, balance: balance() };
  const before = statements.reversedSum.get(paymentIntentId)?.total ?? 0n;
  statements.setReversal.run(paymentIntentId, key, amount, now);
  if (credited === undefined) return { changed: true, taken: 0, clientId: null, currency: null, balance: null };
  const after = smaller(MAX_SAFE, before + amount - previous);
  const taken = smaller(credited.amount, after) - smaller(credited.amount, before);
  if (taken > 0n) statements.take.run(credited.client_id, credited.currency, -taken);
  return { changed: true, taken: Number(taken), clientId, currency, balance: balance() };
}

function overflow(clientId: string, amount: number): RangeError {
  return new RangeError(`adding ${amount} to client ${clientId} would exceed Number.MAX_SAFE_INTEGER`);
}
