// Test helper: a MemoryStore behind a wrapper that journals every call and makes chosen calls fail, hang or lose their reply.
import { MemoryStore, type Deduction, type DeductionRefund, type RepeatConfirmation, type Store, type TopUpCredit, type TopUpReversal, type TransactionRecord } from 'credit402/stores';

/** The store methods a wrapper can script. */
export type StoreMethod =
  | 'deductBalance' | 'refundDeduction' | 'confirmRepeat' | 'addBalance' | 'ensureClient' | 'getClient' | 'creditTopUp' | 'recordTransaction' | 'listTransactions'
  | 'hasCredit' | 'reverseTopUp' | 'hasProcessedEvent' | 'markEventProcessed' | 'acquireLock' | 'releaseLock';

/**
 * What happens to a scripted call: `reject` fails it without effect; `lost` applies it, then fails it, as a reply
 * lost with its connection; `hang` never answers (the gate's deadline ends it); `{ lateMs }` never answers either,
 * but applies the call `lateMs` after it (a command held up by a stalled connection that reaches a store without
 * deadline checks); a function runs after the call succeeded, before its caller sees the reply (another request
 * acting in between).
 */
export type StoreScript = 'reject' | 'lost' | 'hang' | { readonly lateMs: number } | ((inner: MemoryStore) => Promise<unknown>);

/** Scripts the `nth` call (1-based, counted over the wrapper's life) of `method`, or every call without `nth`. */
export interface StoreFault {
  method: StoreMethod;
  nth?: number;
  script: StoreScript;
}

/** The id of every ScriptedStore: known, so that a test can compute the charge idempotency keys (CR-7.16). */
export const SCRIPTED_STORE_ID = 'scripted-store';

/** A {@link Store} over a MemoryStore (`inner`, for set-up and reads that bypass the journal) with scripted calls. */
export class ScriptedStore implements Store {
  readonly inner = new MemoryStore({ storeId: SCRIPTED_STORE_ID });
  /** The methods called through the wrapper, in order. */
  readonly calls: StoreMethod[] = [];
  readonly #faults: StoreFault[];
  readonly #onCall: (step: string) => void;
  readonly #counts = new Map<StoreMethod, number>();

  constructor(faults: readonly StoreFault[] = [], onCall: (step: string) => void = () => {}) {
    this.#faults = [...faults];
    this.#onCall = onCall;
  }

  /** Makes the next `count` calls of `method` reject without effect (an outage of that operation). */
  failNext(method: StoreMethod, count = 1): void {
    const done = this.#counts.get(method) ?? 0;
    for (let nth = done + 1; nth <= done + count; nth++) this.#faults.unshift({ method, nth, script: 'reject' });
  }

  async #call<T>(method: StoreMethod, run: () => Promise<T>): Promise<T> {
    this.calls.push(method);
    this.#onCall(`store.${method}`);
    const nth = (this.#counts.get(method) ?? 0) + 1;
    this.#counts.set(method, nth);
    const script = this.#faults.find((fault) => fault.method === method && (fault.nth === undefined || fault.nth === nth))?.script;
    if (script === 'reject') throw new Error(`injected ${method} failure`);
    if (script === 'hang') return new Promise<never>(() => {});
    if (typeof script === 'object') {
      setTimeout(() => void run().catch(() => {}), script.lateMs);
      return new Promise<never>(() => {});
    }
    const result = await run();
    if (script === 'lost') throw new Error(`scripted ${method} reply lost`);
    if (typeof script === 'function') await script(this.inner);
    return result;
  }

  deductBalance(deduction: Deduction) {
    return this.#call('deductBalance', () => this.inner.deductBalance(deduction));
  }
  refundDeduction(refund: DeductionRefund) {
    return this.#call('refundDeduction', () => this.inner.refundDeduction(refund));
  }
  confirmRepeat(confirmation: RepeatConfirmation) {
    return this.#call('confirmRepeat', () => this.inner.confirmRepeat(confirmation));
  }
  /** The inner store's id, not journaled: a constant read, not a step of the paid path. */
  getStoreId() {
    return this.inner.getStoreId();
  }
  addBalance(clientId: string, currency: string, amount: number) {
    return this.#call('addBalance', () => this.inner.addBalance(clientId, currency, amount));
  }
  ensureClient(clientId: string) {
    return this.#call('ensureClient', () => this.inner.ensureClient(clientId));
  }
  getClient(clientId: string) {
    return this.#call('getClient', () => this.inner.getClient(clientId));
  }
  creditTopUp(credit: TopUpCredit) {
    return this.#call('creditTopUp', () => this.inner.creditTopUp(credit));
  }
  recordTransaction(record: TransactionRecord) {
    return this.#call('recordTransaction', async () => this.inner.recordTransaction?.(record));
  }
  listTransactions(clientId: string) {
    return this.#call('listTransactions', async () => (await this.inner.listTransactions?.(clientId)) ?? []);
  }
  hasCredit(paymentIntentId: string) {
    return this.#call('hasCredit', () => this.inner.hasCredit(paymentIntentId));
  }
  reverseTopUp(reversal: TopUpReversal) {
    return this.#call('reverseTopUp', () => this.inner.reverseTopUp(reversal));
  }
  hasProcessedEvent(eventId: string) {
    return this.#call('hasProcessedEvent', () => this.inner.hasProcessedEvent(eventId));
  }
  markEventProcessed(eventId: string) {
    return this.#call('markEventProcessed', () => this.inner.markEventProcessed(eventId));
  }
  /** Takes the lease under the caller's `token` when given: a `lost` reply leaves the lease that token releases. */
  acquireLock(name: string, ttlMs: number, token?: string) {
    return this.#call('acquireLock', () => this.inner.acquireLock(name, ttlMs, token));
  }
  releaseLock(name: string, token: string) {
    return this.#call('releaseLock', () => this.inner.releaseLock(name, token));
  }
  close() {
    return this.inner.close();
  }
}
