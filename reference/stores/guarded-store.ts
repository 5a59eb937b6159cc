// The guarded-store layer: the closed check, the argument guards and the transaction-log switch, once for every shipped store.
import { randomUUID } from 'node:crypto';
import type {
  ClientRecord, Currency, Deduction, DeductionRefund, DeductionResult, Store, TopUpCredit, TopUpCreditResult, TopUpReversal,
  TopUpReversalResult, TransactionRecord,
} from './store.ts';
import type { StoreBackend } from './store-backend.ts';
import { copyTransaction } from './transaction-records.ts';
import { notAfter } from './deduction-deadline.ts';
import {
  assertCurrency, assertDeduction, assertDeductionRefund, assertLockRequest, assertNonEmptyString, assertSafeInteger, assertTopUpCredit,
  assertTopUpReversal, assertTransactionRecord, closedError,
} from './validate.ts';

/** Options of {@link GuardedStore}. */
interface GuardedStoreOptions {
  /** The store's name in the error after `close`: `<name> is closed`. */
  name: string;
  /**
   * Keep a transaction log: `recordTransaction` and `listTransactions` are present, and deductions with a record
   * and applied top-ups write theirs. When false both are `undefined` and the backend is handed no record.
   */
  recordTransactions: boolean;
}

/**
 * A {@link Store} around a {@link StoreBackend}. Every method first rejects once the store is closed (`<name> is
 * closed`; a second `close` resolves), then validates its arguments (a TypeError for an id, currency, record or
 * request that is wrong, a RangeError for an amount or TTL out of range), and only then calls the backend with
 * copies of what it was given. Records go in and come out as copies. The shipped stores extend it; so can a new one.
 */
export class GuardedStore implements Store {
  /** Present when the store keeps a transaction log. */
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  /** Present when the store keeps a transaction log. */
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;

  readonly #backend: StoreBackend;
  readonly #name: string;
  readonly #keepsLog: boolean;
  #closed = false;

  constructor(backend: StoreBackend, options: GuardedStoreOptions) {
    this.#backend = backend;
    this.#name = options.name;
    this.#keepsLog = Boolean(options.recordTransactions);
    if (this.#keepsLog) {
      this.recordTransaction = async (record) => {
        this.#assertOpen();
        assertTransactionRecord(record);
        await backend.recordTransaction(copyTransaction(record));
      };
      this.listTransactions = async (clientId) => {
        this.#assertOpen();
        assertNonEmptyString(clientId, 'clientId');
        return (await backend.listTransactions(clientId)).map(copyTransaction);
      };
    }
  }

  deductBalance(deduction: Deduction): Promise<DeductionResult> {
    // Not async (the paid path): the backend's promise is handed back as it is; a throw still becomes a rejection.
    try {
      this.#assertOpen();
      assertDeduction(deduction);
      const { clientId, currency, amount, record, request, timeoutMs } = deduction;
      return this.#backend.deductBalance({
        clientId,
        currency,
        amount,
        record: record !== undefined && this.#keepsLog ? copyTransaction(record) : undefined,
        request: request === undefined ? undefined : { id: request.id, fingerprint: request.fingerprint, ttlMs: request.ttlMs },
        timeoutMs,
        notAfter: notAfter(timeoutMs),
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async refundDeduction(refund: DeductionRefund): Promise<number> {
    this.#assertOpen();
    assertDeductionRefund(refund);
    const { clientId, currency, amount, recordId, requestId } = refund;
    return this.#backend.refundDeduction({ clientId, currency, amount, recordId: this.#keepsLog ? recordId : undefined, requestId });
  }

  async getStoreId(): Promise<string> {
    this.#assertOpen();
    return this.#backend.getStoreId();
  }

  async addBalance(clientId: string, currency: Currency, amount: number): Promise<number> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertCurrency(currency);
    assertSafeInteger(amount, 'amount', 1);
    return this.#backend.addBalance(clientId, currency, amount);
  }

  async ensureClient(clientId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    await this.#backend.ensureClient(clientId);
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    return this.#backend.getClient(clientId);
  }

  async creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult> {
    this.#assertOpen();
    assertTopUpCredit(credit);
    const { clientId, currency, amount, paymentIntentId } = credit;
    return this.#backend.creditTopUp({ clientId, currency, amount, paymentIntentId }, this.#keepsLog ? randomUUID() : undefined);
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(paymentIntentId, 'paymentIntentId');
    return this.#backend.hasCredit(paymentIntentId);
  }

  async reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    this.#assertOpen();
    assertTopUpReversal(reversal);
    const { paymentIntentId, key, amount } = reversal;
    return this.#backend.reverseTopUp({ paymentIntentId, key, amount });
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    return this.#backend.hasProcessedEvent(eventId);
  }

  async markEventProcessed(eventId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    await this.#backend.markEventProcessed(eventId);
  }

  /** The lease is taken under `token` when given (validated: {@link assertLockRequest}), else under a fresh random one. */
  async acquireLock(name: string, ttlMs: number, token?: string): Promise<string | null> {
    this.#assertOpen();
    assertLockRequest(name, ttlMs, token);
    return this.#backend.acquireLock(name, ttlMs, token ?? randomUUID());
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(name, 'name');
    assertNonEmptyString(token, 'token');
    return this.#backend.releaseLock(name, token);
  }

  /** Closes the backend once; a second call resolves, and every other call rejects from now on. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#backend.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw closedError(this.#name);
  }
}
