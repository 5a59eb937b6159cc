// Unit tests of the store deadline wrapper: a call that does not answer in time rejects, a late lease is given back.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory/memory-store.ts';
import type { Deduction, DeductionRefund, Store } from './store.ts';
import { StoreTimeoutError, withDeadline, withStoreDeadlines } from './store-deadline.ts';

/** A MemoryStore whose calls wait until `resume()` while `frozen`, like a Redis stopped with SIGSTOP. */
class FreezableStore extends MemoryStore {
  frozen = false;
  #waiting: Array<() => void> = [];
  resume(): void {
    this.frozen = false;
    for (const go of this.#waiting.splice(0)) go();
  }
  async #gate(): Promise<void> {
    if (this.frozen) await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }
  override async deductBalance(...args: Parameters<MemoryStore['deductBalance']>) {
    await this.#gate();
    return super.deductBalance(...args);
  }
  override async acquireLock(name: string, ttlMs: number, token?: string) {
    await this.#gate();
    return super.acquireLock(name, ttlMs, token);
  }
}

/** The `timeoutMs` of every call of `method` that reaches `store`, in order (the list grows as calls come). */
function timeoutsSeen(store: MemoryStore, method: 'deductBalance' | 'refundDeduction'): Array<number | undefined> {
  const seen: Array<number | undefined> = [];
  const original = store[method].bind(store) as (given: Deduction | DeductionRefund) => Promise<unknown>;
  Object.assign(store, {
    [method]: (given: Deduction | DeductionRefund) => {
      seen.push(given.timeoutMs);
      return original(given);
    },
  });
  return seen;
}

describe('withDeadline', () => {
  it('settles like the call when it answers in time, and rejects with StoreTimeoutError when it does not', async () => {
    expect(await withDeadline('getClient', 50, Promise.resolve(7))).toBe(7);
    await expect(withDeadline('getClient', 50, Promise.reject(new Error('down')))).rejects.toThrow('down');
    const started = Date.now();
    const error = await withDeadline('deductBalance', 50, new Promise(() => {})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect(error).toMatchObject({ code: 'ERR_STORE_TIMEOUT', operation: 'deductBalance', timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('hands a value that comes after the deadline to `late`, and drops a late failure', async () => {
    const late: number[] = [];
    const slow = sleep(60).then(() => 1);
    await expect(withDeadline('x', 10, slow, (value) => late.push(value))).rejects.toBeInstanceOf(StoreTimeoutError);
    await sleep(80);
    expect(late).toEqual([1]);
    await expect(withDeadline('x', 10, sleep(30).then(() => Promise.reject(new Error('late'))))).rejects.toBeInstanceOf(StoreTimeoutError);
    await sleep(50); // an unhandled rejection would fail the run
  });
});

describe('withStoreDeadlines', () => {
  it('keeps exactly the methods of the store and its credit retention', () => {
    const plain = withStoreDeadlines(new MemoryStore({ recordTransactions: false }), 100);
    expect(plain.recordTransaction).toBeUndefined();
    expect(plain.listTransactions).toBeUndefined();
    expect(typeof plain.acquireLock).toBe('function');
    const retaining: Store = Object.defineProperty(new MemoryStore(), 'creditRetentionMs', { value: 5 });
    expect(withStoreDeadlines(retaining, 100).creditRetentionMs).toBe(5);
    expect(withStoreDeadlines(new MemoryStore(), 100).creditRetentionMs).toBeUndefined();
  });

  it('rejects a call of a frozen store after the deadline; the call still takes effect when the store resumes', async () => {
    const store = new FreezableStore();
    const timed = withStoreDeadlines(store, 50);
    const usd = async () => (await store.getClient('c'))?.balances.usd;
    await store.addBalance('c', 'usd', 10);
    store.frozen = true;
    await expect(timed.deductBalance({ clientId: 'c', currency: 'usd', amount: 3 })).rejects.toBeInstanceOf(StoreTimeoutError);
    expect(await usd()).toBe(10);
    store.resume();
    await sleep(0);
    expect(await usd()).toBe(7); // why a 503 after a deadline must not say "nothing was deducted"
    expect(await timed.deductBalance({ clientId: 'c', currency: 'usd', amount: 1 })).toEqual({ status: 'deducted', balance: 6 });
  });

  it('tells the store the deadline: each deduction carries timeoutMs, unless it has its own', async () => {
    const store = new MemoryStore();
    const seen = timeoutsSeen(store, 'deductBalance');
    const timed = withStoreDeadlines(store, 80);
    await timed.deductBalance({ clientId: 'c', currency: 'usd', amount: 1 });
    await timed.deductBalance({ clientId: 'c', currency: 'usd', amount: 1, timeoutMs: 20 });
    expect(seen).toEqual([80, 20]);
  });

  it('tells the store the deadline of a refund too, unless it has its own', async () => {
    const store = new MemoryStore();
    const seen = timeoutsSeen(store, 'refundDeduction');
    const timed = withStoreDeadlines(store, 80);
    expect(await timed.refundDeduction({ clientId: 'c', currency: 'usd', amount: 1, refundId: 'r1' })).toEqual({ status: 'refunded', balance: 1 });
    expect(await timed.refundDeduction({ clientId: 'c', currency: 'usd', amount: 1, refundId: 'r2', timeoutMs: 20 })).toEqual({ status: 'refunded', balance: 2 });
    expect(seen).toEqual([80, 20]);
  });

  it('turns a synchronous throw into a rejection', async () => {
    const store = new MemoryStore();
    (store as unknown as { getClient: () => never }).getClient = () => {
      throw new TypeError('sync');
    };
    await expect(withStoreDeadlines(store, 50).getClient('c')).rejects.toThrow('sync');
  });

  it('passes the caller\'s token on: the lease is taken under it, and released by it (issue 25 item 4)', async () => {
    const store = new MemoryStore();
    const timed = withStoreDeadlines(store, 100);
    expect(await timed.acquireLock!('payment:t', 60_000, 'the-callers-token')).toBe('the-callers-token');
    expect(await store.releaseLock('payment:t', 'the-callers-token')).toBe(true);
    expect(await timed.acquireLock!('payment:t', 60_000)).toEqual(expect.any(String)); // none given: the store's own
  });

  it('gives back a lease taken after the deadline, so nobody waits for it', async () => {
    const store = new FreezableStore();
    const timed = withStoreDeadlines(store, 30);
    store.frozen = true;
    await expect(timed.acquireLock!('payment:x', 60_000)).rejects.toBeInstanceOf(StoreTimeoutError);
    store.resume();
    await sleep(10);
    expect(await store.acquireLock('payment:x', 60_000)).not.toBeNull();
  });

  it('gives back a lease taken under the caller\'s token after the deadline', async () => {
    const store = new FreezableStore();
    const timed = withStoreDeadlines(store, 30);
    store.frozen = true;
    await expect(timed.acquireLock!('payment:z', 60_000, 'sent-token')).rejects.toBeInstanceOf(StoreTimeoutError);
    store.resume();
    await sleep(10);
    expect(await store.releaseLock('payment:z', 'sent-token')).toBe(false); // already given back
    expect(await store.acquireLock('payment:z', 60_000)).not.toBeNull();
  });
});
