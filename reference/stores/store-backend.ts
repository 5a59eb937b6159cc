// What a store does below its guards: the store methods on arguments the guarded-store layer already checked.
import type {
  ClientRecord, Currency, Deduction, DeductionRefund, DeductionRefundResult, DeductionResult, RepeatConfirmation, Store, TopUpCredit, TopUpCreditResult, TopUpReversal,
  TopUpReversalResult, TransactionRecord,
} from './store.ts';
import type { GuardedStore } from './guarded-store.ts';

/**
 * A deduction as a backend gets it: with `timeoutMs`, also `notAfter`, the `performance.now()` time of its caller's
 * deadline, taken when the store was called; the backend must not apply the deduction after it (an in-process backend
 * checks it as it is; one on another host keeps a margin, see deduction-deadline.ts).
 */
export interface BackendDeduction extends Deduction {
  notAfter?: number | undefined;
}

/**
 * A refund as a backend gets it: with `timeoutMs`, also `notAfter` (as {@link BackendDeduction}); past it the backend
 * applies nothing, keeps no refund id, and rejects with a `LateDeductionError` for a refund.
 */
export interface BackendRefund extends DeductionRefund {
  notAfter?: number | undefined;
}

/**
 * The storage of a store, wrapped by {@link GuardedStore}, which checks every argument, rejects calls after `close`,
 * and decides whether records are written. A backend keeps the {@link Store} contract's atomicity and results for
 * each method; it never sees an invalid argument, a call after `close`, or a record while the store keeps no log. It
 * appends what it is given: records are copies already. The optional groups are those of {@link Store}: the log
 * (`recordTransaction` and `listTransactions`, both or neither), robustness (`hasCredit`, `reverseTopUp`,
 * `hasProcessedEvent`, `markEventProcessed`), the locks (`acquireLock` and `releaseLock`, both or neither) and
 * `confirmRepeat`; the store has each exactly when its backend does. The shipped backends have them all.
 */
export interface StoreBackend {
  /**
   * {@link Store.deductBalance}; `record`, when present, is to be appended in the same step (the log is on). Past
   * `notAfter` it applies nothing and rejects with a `LateDeductionError`.
   */
  deductBalance(deduction: BackendDeduction): Promise<DeductionResult>;
  /**
   * {@link Store.refundDeduction}: at most once per (client, `refundId`), the id kept in the same step; `recordId` is
   * given only while the log is on. Once the kept `requestId`'s repeat was claimed or used, `superseded`, changing
   * nothing, in the same step as the check. Past `notAfter` it applies nothing and rejects with a `LateDeductionError`.
   */
  refundDeduction(refund: BackendRefund): Promise<DeductionRefundResult>;
  /** Optional (repeat claims): {@link Store.confirmRepeat}; without it the store answers no claims, so the gate sends none. */
  confirmRepeat?(confirmation: RepeatConfirmation): Promise<void>;
  /** {@link Store.getStoreId}: the id, read from the storage at every call (pinning a fresh one when it holds none). */
  getStoreId(): Promise<string>;
  /** {@link Store.addBalance}. */
  addBalance(clientId: string, currency: Currency, amount: number): Promise<number>;
  /** {@link Store.ensureClient}. */
  ensureClient(clientId: string): Promise<void>;
  /** {@link Store.getClient}: a record the caller may keep (not one the backend still holds). */
  getClient(clientId: string): Promise<ClientRecord | null>;
  /**
   * {@link Store.creditTopUp}; when `recordId` is given (the log is on), a credit that applies appends the `topup`
   * record with that id, in the same step. With `credit.storeId`, the same step first checks that the storage holds
   * that id, and otherwise changes nothing and rejects with a `StoreIdentityError`.
   */
  creditTopUp(credit: TopUpCredit, recordId: string | undefined): Promise<TopUpCreditResult>;
  /** Optional (the log, with {@link listTransactions}): appends a record (called only while the log is on). */
  recordTransaction?(record: TransactionRecord): Promise<void>;
  /** The client's records, oldest first; the guarded layer copies them before handing them out. */
  listTransactions?(clientId: string): Promise<readonly TransactionRecord[]>;
  /** Optional (robustness, as the three below): {@link Store.hasCredit}. */
  hasCredit?(paymentIntentId: string): Promise<boolean>;
  /** {@link Store.reverseTopUp}. */
  reverseTopUp?(reversal: TopUpReversal): Promise<TopUpReversalResult>;
  /** {@link Store.hasProcessedEvent}. */
  hasProcessedEvent?(eventId: string): Promise<boolean>;
  /** {@link Store.markEventProcessed}. */
  markEventProcessed?(eventId: string): Promise<void>;
  /** Optional (with {@link releaseLock}): {@link Store.acquireLock}: takes the lease under `token`, the caller's or one the guarded layer made (randomUUID). */
  acquireLock?(name: string, ttlMs: number, token: string): Promise<string | null>;
  /** {@link Store.releaseLock}. */
  releaseLock?(name: string, token: string): Promise<boolean>;
  /** Releases handles and connections; called once. */
  close(): Promise<void>;
}
