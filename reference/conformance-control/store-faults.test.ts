// StoreFaults and withStoreFaults: faults scoped by clientId and operation, skip and count, records as writes, pass-through.
import { describe, expect, it } from 'vitest';
import { LateDeductionError } from '../stores/deduction-deadline.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import type { TransactionRecord } from '../stores/store.ts';
import { InjectedStoreOutage, StoreFaults, withStoreFaults } from './store-faults.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const deduction = (clientId: string, amount = 1): TransactionRecord => ({
  id: '00000000-0000-4000-8000-000000000000', type: 'deduction', clientId, currency: 'usd', amount, createdAt: new Date(0).toISOString(), resource: 'GET /x',
});

function setup(options: { recordTransactions?: boolean } = {}) {
  const inner = new MemoryStore(options);
  const faults = new StoreFaults();
  return { inner, faults, store: withStoreFaults(inner, faults) };
}

describe('withStoreFaults', () => {
  it('fails the armed operation of one client only, and changes nothing', async () => {
    const { inner, faults, store } = setup();
    await inner.addBalance(A, 'usd', 100);
    await inner.addBalance(B, 'usd', 100);
    faults.arm({ clientId: A, operation: 'deductBalance', skip: 0 });
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 10 })).rejects.toBeInstanceOf(InjectedStoreOutage);
    await expect(store.deductBalance({ clientId: B, currency: 'usd', amount: 10 })).resolves.toEqual({ status: 'deducted', balance: 90 });
    await expect(store.getClient(A)).resolves.toMatchObject({ balances: { usd: 100 } });
    expect(faults.list(A)).toEqual([{ clientId: A, operation: 'deductBalance', skip: 0, fired: 1 }]);
  });

  it('lets `skip` calls through, then fails `count` calls, then lets calls through again', async () => {
    const { inner, faults, store } = setup();
    await inner.addBalance(A, 'usd', 100);
    faults.arm({ clientId: A, operation: 'deductBalance', skip: 1, count: 2 });
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 1 })).resolves.toEqual({ status: 'deducted', balance: 99 });
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 1 })).rejects.toThrow(/injected store outage/);
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 1 })).rejects.toThrow(/injected store outage/);
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 1 })).resolves.toEqual({ status: 'deducted', balance: 98 });
    expect(faults.list()[0]?.fired).toBe(2);
  });

  it('counts a deduction carrying its record and a top-up credit as writes of a transaction record', async () => {
    const { inner, faults, store } = setup();
    await inner.addBalance(A, 'usd', 100);
    faults.arm({ clientId: A, operation: 'recordTransaction', skip: 0 });
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 1, record: deduction(A) })).rejects.toThrow(InjectedStoreOutage);
    await expect(store.creditTopUp({ clientId: A, currency: 'usd', amount: 5, paymentIntentId: 'pi_1' })).rejects.toThrow(InjectedStoreOutage);
    await expect(store.recordTransaction?.(deduction(A))).rejects.toThrow(InjectedStoreOutage);
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 1 })).resolves.toEqual({ status: 'deducted', balance: 99 });
    await expect(inner.listTransactions?.(A)).resolves.toEqual([]);
  });

  it('fails every client operation with `any`, and none of another client', async () => {
    const { faults, store } = setup();
    faults.arm({ clientId: A, operation: 'any', skip: 0 });
    for (const call of [() => store.getClient(A), () => store.ensureClient(A), () => store.addBalance(A, 'usd', 1), () => store.listTransactions?.(A)]) {
      await expect(call()).rejects.toThrow(InjectedStoreOutage);
    }
    await expect(store.addBalance(B, 'usd', 1)).resolves.toBe(1);
  });

  it('with replyLost, applies the call and then fails it, as a reply lost after the store applied it (CR-8.12)', async () => {
    const { inner, faults, store } = setup();
    await inner.addBalance(A, 'usd', 100);
    faults.arm({ clientId: A, operation: 'deductBalance', skip: 0, count: 1, replyLost: true });
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 10, record: deduction(A, 10) })).rejects.toThrow(/injected store reply loss/);
    await expect(inner.getClient(A)).resolves.toMatchObject({ balances: { usd: 90 } });
    await expect(inner.listTransactions?.(A)).resolves.toHaveLength(1);
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 10 })).resolves.toEqual({ status: 'deducted', balance: 80 });
    expect(faults.list(A)).toEqual([{ clientId: A, operation: 'deductBalance', skip: 0, count: 1, replyLost: true, fired: 1 }]);
  });

  it('with delayMs, holds the call that long, then fails it without touching the store', async () => {
    const { inner, faults, store } = setup();
    await inner.addBalance(A, 'usd', 100);
    faults.arm({ clientId: A, operation: 'deductBalance', skip: 0, count: 1, delayMs: 60 });
    const started = performance.now();
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 10 })).rejects.toThrow(/injected store outage after a hold of 60 ms/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    await expect(inner.getClient(A)).resolves.toMatchObject({ balances: { usd: 100 } });
    expect(faults.list(A)).toEqual([{ clientId: A, operation: 'deductBalance', skip: 0, count: 1, delayMs: 60, fired: 1 }]);
  });

  it('with delayMs and proceed, holds the call and then makes it, a deduction only within its caller\'s deadline (CR-6.9, CR-8.12)', async () => {
    const { inner, faults, store } = setup();
    await inner.addBalance(A, 'usd', 100);
    faults.arm({ clientId: A, operation: 'any', skip: 0, count: 3, delayMs: 40, proceed: true });
    // In time: made, with what is left of its caller's wait.
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 10, timeoutMs: 5_000 })).resolves.toEqual({ status: 'deducted', balance: 90 });
    // Late: the caller stopped waiting during the hold; the store refuses it, as a store refuses a deduction past its deadline.
    await expect(store.deductBalance({ clientId: A, currency: 'usd', amount: 10, timeoutMs: 20 })).rejects.toBeInstanceOf(LateDeductionError);
    await expect(store.addBalance(A, 'usd', 5)).resolves.toBe(95);
    await expect(inner.getClient(A)).resolves.toMatchObject({ balances: { usd: 95 } });
    expect(faults.list(A)[0]?.fired).toBe(3);
  });

  it('has the optional methods exactly when the store has them, and passes the others through', async () => {
    const { store } = setup({ recordTransactions: false });
    expect(store.recordTransaction).toBeUndefined();
    expect(store.listTransactions).toBeUndefined();
    expect(typeof store.acquireLock).toBe('function');
    const token = await store.acquireLock?.('payment:x', 1_000);
    expect(await store.releaseLock?.('payment:x', token as string)).toBe(true);
    expect(setup().store.listTransactions).toBeTypeOf('function');
  });

  it('removes the faults of one client, reporting how often each fired; arms at most `limit`', () => {
    const faults = new StoreFaults(2);
    faults.arm({ clientId: A, operation: 'getClient', skip: 0 });
    faults.arm({ clientId: B, operation: 'getClient', skip: 0, count: 1 });
    expect(() => faults.arm({ clientId: B, operation: 'any', skip: 0 })).toThrow(RangeError);
    expect(faults.clear(A)).toEqual([{ clientId: A, operation: 'getClient', skip: 0, fired: 0 }]);
    expect(faults.list().map((fault) => fault.clientId)).toEqual([B]);
    expect(faults.clear()).toHaveLength(1);
    expect(faults.list()).toEqual([]);
  });
});
