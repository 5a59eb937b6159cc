// Conformance cases for the store id (CR-7.16): random per storage, kept with it across reopens.
import { describe, expect, it } from 'vitest';
import type { Store } from './store.ts';

/** How the store id cases open further stores: on new storage, and (persistent stores) on a store's own storage again. */
export interface StoreIdStorage {
  /** Opens a store on new, empty storage. */
  fresh: () => Promise<Store>;
  /** Opens another store on the storage of `store`, as a restart would; absent for a store that keeps nothing. */
  reopen?: (store: Store) => Promise<Store>;
  /** Removes what a store opened by `fresh` left behind, after it was closed. */
  cleanup?: (store: Store) => Promise<void>;
}

/** Registers the store id cases: `getStore()` is the test's store, `storage` opens the others. */
export function describeStoreIdConformance(getStore: () => Store, storage: StoreIdStorage): void {
  describe('store id (CR-7.16)', () => {
    /** Runs `test` with stores it opens, closing (and cleaning up) each afterwards. */
    async function withStores(test: (open: (make: () => Promise<Store>) => Promise<Store>) => Promise<void>): Promise<void> {
      const opened: Store[] = [];
      try {
        await test(async (make) => {
          const store = await make();
          opened.push(store);
          return store;
        });
      } finally {
        for (const store of opened) await store.close();
        for (const store of opened) await storage.cleanup?.(store);
      }
    }

    it('is a non-empty string of at most 64 characters, the same on every call', async () => {
      const store = getStore();
      const id = await store.getStoreId();
      expect(id).toMatch(/^[A-Za-z0-9-]{1,64}$/);
      expect(await store.getStoreId()).toBe(id);
    });

    it('differs between two stores on new storage', async () => {
      await withStores(async (open) => {
        const [a, b] = [await open(storage.fresh), await open(storage.fresh)];
        expect(await a.getStoreId()).not.toBe(await b.getStoreId());
      });
    });

    it('is kept with the storage: a store opened on it again has the same id', async ({ skip }) => {
      const { reopen } = storage;
      if (reopen === undefined) return skip('the store keeps nothing across instances');
      await withStores(async (open) => {
        const first = await open(storage.fresh);
        const id = await first.getStoreId();
        const again = await open(() => reopen(first));
        expect(await again.getStoreId()).toBe(id);
      });
    });
  });
}
