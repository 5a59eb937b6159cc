// Test helper: a store wrapper whose next calls of a chosen method fail, to test outages.
import { MemoryStore } from '../stores/memory-store.ts';
import type { Deduction, Store, TopUpCredit, TopUpReversal, TransactionRecord } from '../stores/store.ts';

type Method =
  | 'deductBalance' | 'addBalance' | 'ensureClient' | 'getClient' | 'creditTopUp' | 'recordTransaction' | 'listTransactions'
  | 'hasCredit' | 'reverseTopUp' | 'hasProcessedEvent' | 'markEventProcessed' | 'acquireLock' | 'releaseLock';

/** Delegates to a MemoryStore; `failNext(method, n)` makes the next n calls of `method` reject. */
export class FlakyStore implements Store {
  readonly inner = new MemoryStore();
  readonly #failures = new Map<Method, number>();

  failNext(method: Method, count = 1): void {
    this.#failures.set(method, count);
  }

  async #call<T>(method: Method, run: () => Promise<T>): Promise<T> {
    const left = this.#failures.get(method) ?? 0;
    if (left > 0) {
      this.#failures.set(method, left - 1);
      throw new Error(`injected ${method} failure`);
    }
    return run();
  }

  deductBalance(deduction: Deduction) {
    return this.#call('deductBalance', () => this.inner.deductBalance(deduction));
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
  acquireLock(name: string, ttlMs: number) {
    return this.#call('acquireLock', () => this.inner.acquireLock(name, ttlMs));
  }
  releaseLock(name: string, token: string) {
    return this.#call('releaseLock', () => this.inner.releaseLock(name, token));
  }
  close() {
    return this.inner.close();
  }
}
