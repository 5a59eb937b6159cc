// Runs the store conformance suite against MemoryStore, with and without a transaction log, plus its own bounds.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from './memory-store.ts';
import { describeStoreConformance } from '../conformance/store-conformance.ts';

describeStoreConformance('MemoryStore', async () => new MemoryStore());
describeStoreConformance('MemoryStore without log', async () => new MemoryStore({ recordTransactions: false }));

describe('MemoryStore options', () => {
  it('has no transaction log methods when recordTransactions is false', () => {
    const store = new MemoryStore({ recordTransactions: false });
    expect(store.recordTransaction).toBeUndefined();
    expect(store.listTransactions).toBeUndefined();
    expect(new MemoryStore().recordTransaction).toBeTypeOf('function');
  });

  it('keeps at most maxTransactionsPerClient records per client, dropping the oldest', async () => {
    const store = new MemoryStore({ maxTransactionsPerClient: 10 });
    await store.addBalance('c', 'usd', 1_000);
    for (let i = 0; i < 25; i++) {
      const record = { id: `id-${i}`, type: 'deduction' as const, clientId: 'c', currency: 'usd', amount: 1, createdAt: new Date().toISOString(), resource: 'GET /a' };
      await store.deductBalance({ clientId: 'c', currency: 'usd', amount: 1, record });
    }
    const log = (await store.listTransactions?.('c')) ?? [];
    expect(log.length).toBeGreaterThanOrEqual(10);
    expect(log.length).toBeLessThanOrEqual(11);
    expect(log.at(-1)?.id).toBe('id-24');
    expect(() => new MemoryStore({ maxTransactionsPerClient: 0 })).toThrow(RangeError);
  });
});

describe('MemoryStore request ids', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps expired request ids, so kept ids never pass twice the most live at once (at least 1024)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryStore({ recordTransactions: false });
    await store.addBalance('c', 'usd', 100_000);
    const deduct = (id: string, ttlMs: number) =>
      store.deductBalance({ clientId: 'c', currency: 'usd', amount: 1, request: { id, fingerprint: 'f', ttlMs } });
    for (let i = 0; i < 5_000; i++) expect(await deduct(`short-${i}`, 10)).toMatchObject({ status: 'deducted' });
    expect(store.keptRequestIds).toBe(5_000); // all live: sweeps at 1024, 2048 and 4096 dropped nothing
    vi.advanceTimersByTime(20);
    expect(await deduct('short-0', 10)).toMatchObject({ status: 'deducted' }); // expired: deducts again
    expect(store.keptRequestIds).toBe(5_000);
    for (let i = 0; i < 3_200; i++) await deduct(`live-${i}`, 60_000);
    // The sweep at 8192 kept ids dropped the 4999 expired ones; the next runs at 2 × 3193.
    expect(store.keptRequestIds).toBe(3_201);
    expect(await deduct('live-0', 60_000)).toEqual({ status: 'repeated', balance: 100_000 - 8_201 });
    vi.advanceTimersByTime(60_000);
    for (let i = 0; i < 3_185; i++) await deduct(`later-${i}`, 10);
    expect(store.keptRequestIds).toBe(6_386);
    await deduct('last', 10);
    expect(store.keptRequestIds).toBe(3_186); // the 3201 expired ones swept
  });

  it('keeps request ids per client: two clients may use one id', async () => {
    const store = new MemoryStore();
    await store.addBalance('a', 'usd', 10);
    await store.addBalance('ab', 'usd', 10);
    const request = { id: 'bc', fingerprint: 'f', ttlMs: 60_000 };
    expect(await store.deductBalance({ clientId: 'a', currency: 'usd', amount: 1, request })).toEqual({ status: 'deducted', balance: 9 });
    expect(await store.deductBalance({ clientId: 'ab', currency: 'usd', amount: 1, request: { ...request, id: 'c' } }))
      .toEqual({ status: 'deducted', balance: 9 });
  });
});
