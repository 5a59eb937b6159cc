// Runs the store conformance suite against MemoryStore, with and without a transaction log.
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.ts';
import { describeStoreConformance } from './store-conformance.ts';

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
    await store.addBalance('c', 1_000);
    for (let i = 0; i < 25; i++) {
      const record = { id: `id-${i}`, type: 'deduction' as const, clientId: 'c', amount: 1, createdAt: new Date().toISOString(), resource: 'GET /a' };
      await store.deductBalance('c', 1, record);
    }
    const log = (await store.listTransactions?.('c')) ?? [];
    expect(log.length).toBeGreaterThanOrEqual(10);
    expect(log.length).toBeLessThanOrEqual(11);
    expect(log.at(-1)?.id).toBe('id-24');
    expect(() => new MemoryStore({ maxTransactionsPerClient: 0 })).toThrow(RangeError);
  });
});
