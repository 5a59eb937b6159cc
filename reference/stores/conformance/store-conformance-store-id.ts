// Conformance cases for the store id (CR-7.16): random per storage, kept with it across reopens, and checked by credits (CR-14.13).
import { describe, expect, it } from 'vitest';
import type { Store } from '../store.ts';
import { newClientId, newPaymentIntentId } from './store-conformance-helpers.ts';

/** How the store id cases open further stores: on new storage, and (persistent stores) on a store's own storage again. */
export interface StoreIdStorage {
  /** Opens a store on new, empty storage. */
  fresh: () => Promise<Store>;
  /** Opens another store on the storage of `store`, as a restart would; absent for a store that keeps nothing. */
  reopen?: (store: Store) => Promise<Store>;
  /** Removes what a store opened by `fresh` left behind, after it was closed. */
  cleanup?: (store: Store) => Promise<void>;
  /**
   * Empties the storage of a store opened by `fresh` while the store stays open, as a flush or a restart without
   * persistence would (Redis: every key of its prefix deleted; SQLite, Postgres: every table emptied, the store id's
   * too); absent for a store whose storage cannot be reset under it.
   */
  reset?: (store: Store) => Promise<void>;
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

    it('a credit naming another store id is refused with ERR_STORE_RESET, changing nothing, credited or not (CR-14.13)', async () => {
      const store = getStore();
      const clientId = newClientId();
      const paymentIntentId = newPaymentIntentId();
      const credit = { clientId, currency: 'usd', amount: 10, paymentIntentId };
      const refused = { name: 'StoreIdentityError', code: 'ERR_STORE_RESET' };
      await expect(store.creditTopUp({ ...credit, storeId: 'another-store' })).rejects.toMatchObject(refused);
      expect(await store.getClient(clientId)).toBeNull();
      if (store.hasCredit) expect(await store.hasCredit(paymentIntentId)).toBe(false);
      const id = await store.getStoreId();
      expect(await store.creditTopUp({ ...credit, storeId: id })).toEqual({ credited: true, balance: 10 });
      await expect(store.creditTopUp({ ...credit, storeId: 'another-store' })).rejects.toMatchObject(refused);
      expect(await store.creditTopUp({ ...credit, storeId: id })).toEqual({ credited: false, balance: 10 });
      expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 10 }, topUps: 1 });
    });

    it('storage reset under the store: a credit under the old id is refused, changing nothing, and the store takes a new id (CR-14.13)', async ({ skip }) => {
      const { reset } = storage;
      if (reset === undefined) return skip('the storage cannot be reset under the store');
      await withStores(async (open) => {
        const store = await open(storage.fresh);
        const old = await store.getStoreId();
        const clientId = newClientId();
        const credit = { clientId, currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId() };
        expect(await store.creditTopUp({ ...credit, storeId: old })).toEqual({ credited: true, balance: 10 });
        await reset(store);
        // The charge's key repeats (topUps is 0 again) and the processor replays the PaymentIntent: it is not credited again.
        const refused = { name: 'StoreIdentityError', code: 'ERR_STORE_RESET' };
        await expect(store.creditTopUp({ ...credit, storeId: old })).rejects.toMatchObject(refused);
        expect(await store.getClient(clientId)).toBeNull();
        if (store.hasCredit) expect(await store.hasCredit(credit.paymentIntentId)).toBe(false);
        const fresh = await store.getStoreId();
        expect(fresh).toMatch(/^[A-Za-z0-9-]{1,64}$/);
        expect(fresh).not.toBe(old);
        expect(await store.getStoreId()).toBe(fresh);
        if (storage.reopen) expect(await (await open(() => storage.reopen!(store))).getStoreId()).toBe(fresh);
        await expect(store.creditTopUp({ ...credit, storeId: old })).rejects.toMatchObject(refused);
        expect(await store.creditTopUp({ ...credit, paymentIntentId: newPaymentIntentId(), storeId: fresh })).toEqual({ credited: true, balance: 10 });
        expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 10 }, topUps: 1 });
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
