// The guarded-store layer: the closed check, the argument guards and the transaction-log switch, once for every store built on a StoreBackend.
import { randomUUID } from 'node:crypto';
import type {
  ClientRecord, Currency, Deduction, DeductionRefund, DeductionRefundResult, DeductionRequest, DeductionResult, RepeatConfirmation, Store, TopUpCredit,
  TopUpCreditResult, TopUpReversal, TopUpReversalResult, TransactionRecord,
} from './store.ts';
import type { StoreBackend } from './store-backend.ts';
import { OPTIONAL_STORE_METHODS, storeProblem } from './capabilities.ts';
import { copyTransaction } from './transaction-records.ts';
import { notAfter } from './deduction-deadline.ts';
import {
  assertCurrency, assertDeduction, assertDeductionRefund, assertLockRequest, assertNonEmptyString, assertRepeatConfirmation, assertSafeInteger,
  assertTopUpCredit, assertTopUpReversal, assertTransactionRecord, closedError,
} from './validate.ts';

/** Options of {@link GuardedStore}. */
export interface GuardedStoreOptions {
  /** The store's name in the error after `close`: `<name> is closed`. */
  name: string;
  /**
   * Keep a transaction log: `recordTransaction` and `listTransactions` are present, and deductions with a record
   * and applied top-ups write theirs. When false both are `undefined` and the backend is handed no record. Default:
   * true when the backend has `recordTransaction` and `listTransactions`; true for a backend without them is a TypeError.
   */
  recordTransactions?: boolean;
}

/** The optional methods of a {@link GuardedStore} besides the log's, each present exactly when its backend has it. */
type BackendCapability = Exclude<(typeof OPTIONAL_STORE_METHODS)[number], 'recordTransaction' | 'listTransactions'>;

/** The capabilities backend type `B` may lack (an optional or absent member). */
type Lacking<B> = { [K in BackendCapability]: K extends keyof B ? (undefined extends B[K] ? K : never) : K }[BackendCapability];

/** The store {@link GuardedStore} makes of a backend of type `B`: the methods `B` may lack are optional. */
type GuardedStoreOf<B> = [Lacking<B>] extends [never]
  ? GuardedStoreBase
  : Omit<GuardedStoreBase, Lacking<B>> & { readonly [K in Lacking<B>]?: GuardedStoreBase[K] };

/**
 * A {@link Store} around a {@link StoreBackend}. Every method first rejects once the store is closed (`<name> is
 * closed`; a second `close` resolves), then validates its arguments (a TypeError for an id, currency, record or
 * request that is wrong, a RangeError for an amount or TTL out of range), and only then calls the backend with
 * copies of what it was given. Records go in and come out as copies. Each optional method (the log's, the robustness
 * group's, the locks', `confirmRepeat`) is present exactly when the backend has it. The shipped stores extend it; so can a new one.
 */
class GuardedStoreBase implements Store {
  /** Present when the store keeps a transaction log. */
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  /** Present when the store keeps a transaction log. */
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;

  /** The backend, typed with every method: a method of this class whose backend method is missing is hidden (see the constructor). */
  readonly #backend: Required<StoreBackend>;
  readonly #name: string;
  readonly #keepsLog: boolean;
  #closed = false;

  /**
   * Throws a TypeError when `backend` lacks a required method, has an optional member that is not a function, has
   * half a pair (`recordTransaction` without `listTransactions`, `acquireLock` without `releaseLock`), or when
   * `recordTransactions` is true and it has no log.
   */
  constructor(backend: StoreBackend, options: GuardedStoreOptions) {
    const problem = storeProblem(backend);
    if (problem !== undefined) throw new TypeError(`${options.name}: its backend is not usable: ${problem.replace(/^store/, 'backend')}`);
    const hasLog = backend.recordTransaction !== undefined;
    if (options.recordTransactions === true && !hasLog) {
      throw new TypeError(`${options.name}: recordTransactions needs a backend with recordTransaction and listTransactions`);
    }
    this.#backend = backend as Required<StoreBackend>;
    this.#name = options.name;
    this.#keepsLog = options.recordTransactions ?? hasLog;
    // A capability the backend lacks is hidden by an own property `undefined` over this class's method.
    for (const name of OPTIONAL_STORE_METHODS) {
      if (backend[name] === undefined) Object.defineProperty(this, name, { value: undefined, writable: false, enumerable: false });
    }
    if (this.#keepsLog) {
      const log = this.#backend;
      this.recordTransaction = async (record) => {
        this.#assertOpen();
        assertTransactionRecord(record);
        await log.recordTransaction(copyTransaction(record));
      };
      this.listTransactions = async (clientId) => {
        this.#assertOpen();
        assertNonEmptyString(clientId, 'clientId');
        return (await log.listTransactions(clientId)).map(copyTransaction);
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
        request: request === undefined ? undefined : copyRequest(request),
        timeoutMs,
        notAfter: notAfter(timeoutMs),
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async refundDeduction(refund: DeductionRefund): Promise<DeductionRefundResult> {
    this.#assertOpen();
    assertDeductionRefund(refund);
    const { clientId, currency, amount, recordId, requestId, refundId, timeoutMs } = refund;
    return this.#backend.refundDeduction({
      clientId,
      currency,
      amount,
      recordId: this.#keepsLog ? recordId : undefined,
      requestId,
      refundId,
      timeoutMs,
      notAfter: notAfter(timeoutMs),
    });
  }

  async confirmRepeat(confirmation: RepeatConfirmation): Promise<void> {
    this.#assertOpen();
    assertRepeatConfirmation(confirmation);
    const { clientId, requestId, claimId } = confirmation;
    await this.#backend.confirmRepeat({ clientId, requestId, claimId });
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
    await this.#byId('clientId', clientId, (backend) => backend.ensureClient(clientId));
  }

  getClient(clientId: string): Promise<ClientRecord | null> {
    return this.#byId('clientId', clientId, (backend) => backend.getClient(clientId));
  }

  async creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult> {
    this.#assertOpen();
    assertTopUpCredit(credit);
    const { clientId, currency, amount, paymentIntentId, storeId } = credit;
    const copy = { clientId, currency, amount, paymentIntentId, ...(storeId === undefined ? {} : { storeId }) };
    return this.#backend.creditTopUp(copy, this.#keepsLog ? randomUUID() : undefined);
  }

  hasCredit(paymentIntentId: string): Promise<boolean> {
    return this.#byId('paymentIntentId', paymentIntentId, (backend) => backend.hasCredit(paymentIntentId));
  }

  async reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    this.#assertOpen();
    assertTopUpReversal(reversal);
    const { paymentIntentId, key, amount } = reversal;
    return this.#backend.reverseTopUp({ paymentIntentId, key, amount });
  }

  hasProcessedEvent(eventId: string): Promise<boolean> {
    return this.#byId('eventId', eventId, (backend) => backend.hasProcessedEvent(eventId));
  }

  async markEventProcessed(eventId: string): Promise<void> {
    await this.#byId('eventId', eventId, (backend) => backend.markEventProcessed(eventId));
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

  /** The call of a method taking one id (named `field` in its TypeError): rejects when closed or `id` is empty, else asks the backend. */
  async #byId<T>(field: string, id: string, ask: (backend: Required<StoreBackend>) => Promise<T>): Promise<T> {
    this.#assertOpen();
    assertNonEmptyString(id, field);
    return ask(this.#backend);
  }
}

/** The constructor of {@link GuardedStore}: its store's type has the optional methods of the backend's type `B`. */
interface GuardedStoreConstructor {
  new <B extends StoreBackend = Required<StoreBackend>>(backend: B, options: GuardedStoreOptions): GuardedStoreOf<B>;
  readonly prototype: GuardedStoreBase;
}

/** {@link GuardedStoreBase}, typed per backend: `new GuardedStore(backend, { name })` has the optional methods `backend` has. */
export const GuardedStore = GuardedStoreBase as GuardedStoreConstructor;
/** A store made by {@link GuardedStore} around a backend of type `B` (default: one with every optional method). */
export type GuardedStore<B extends StoreBackend = Required<StoreBackend>> = GuardedStoreOf<B>;

/** A copy of a validated request id of a deduction, its claim included. */
function copyRequest({ id, fingerprint, ttlMs, claim }: DeductionRequest): DeductionRequest {
  return claim === undefined ? { id, fingerprint, ttlMs } : { id, fingerprint, ttlMs, claim: { id: claim.id, leaseMs: claim.leaseMs } };
}
