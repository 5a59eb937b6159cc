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
});
