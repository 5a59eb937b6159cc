// Conformance cases for the store id (CR-7.16): random per storage, kept with it across reopens, and checked by credits (CR-14.13).
import { describe, expect, it } from 'vitest';
import type { Store, TopUpCredit } from '../store.ts';
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

/** How a store answers a credit naming another store id than its own (CR-14.13). */
const REFUSED = { name: 'StoreIdentityError', code: 'ERR_STORE_RESET' };

/** A credit of 10 usd to a new client under a fresh PaymentIntent. */
const newCredit = (): TopUpCredit => ({ clientId: newClientId(), currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId() });

/** Expects `credit` under `storeId`, not the store's id, refused with ERR_STORE_RESET, and nothing credited: no client, no credit marker. */
async function expectRefusedUncredited(store: Store, credit: TopUpCredit, storeId: string): Promise<void> {
  await expect(store.creditTopUp({ ...credit, storeId })).rejects.toMatchObject(REFUSED);
  expect(await store.getClient(credit.clientId)).toBeNull();
  if (store.hasCredit) expect(await store.hasCredit(credit.paymentIntentId)).toBe(false);
}

/** The store's id, checked: a non-empty string of at most 64 characters, the same on a second call. */
async function stableStoreId(store: Store): Promise<string> {
  const id = await store.getStoreId();
  expect(id).toMatch(/^[A-Za-z0-9-]{1,64}$/);
  expect(await store.getStoreId()).toBe(id);
  return id;
}

/** Registers the store id cases: `getStore()` is the test's store, `storage` opens the others. */
export function describeStoreIdConformance(getStore: () => Store, storage: StoreIdStorage): void {
  describe('store id (CR-7.16)', () => {
    /** Runs `test` with a store on new storage and `open` for more, closing (and cleaning up) each afterwards. */
    async function withFreshStore(test: (store: Store, open: (make: () => Promise<Store>) => Promise<Store>) => Promise<void>): Promise<void> {
      const opened: Store[] = [];
      const open = async (make: () => Promise<Store>): Promise<Store> => {
        const store = await make();
        opened.push(store);
        return store;
      };
      try {
        await test(await open(storage.fresh), open);
      } finally {
        for (const store of opened) await store.close();
        for (const store of opened) await storage.cleanup?.(store);
      }
    }

    it('is a non-empty string of at most 64 characters, the same on every call', async () => {
      await stableStoreId(getStore());
    });

    it('differs between two stores on new storage', async () => {
      await withFreshStore(async (a, open) => {
        const b = await open(storage.fresh);
        expect(await a.getStoreId()).not.toBe(await b.getStoreId());
      });
    });

    it('a credit naming another store id is refused with ERR_STORE_RESET, changing nothing, credited or not (CR-14.13)', async () => {
      const store = getStore();
      const credit = newCredit();
      await expectRefusedUncredited(store, credit, 'another-store');
      const id = await store.getStoreId();
      expect(await store.creditTopUp({ ...credit, storeId: id })).toEqual({ credited: true, balance: 10 });
      await expect(store.creditTopUp({ ...credit, storeId: 'another-store' })).rejects.toMatchObject(REFUSED);
      expect(await store.creditTopUp({ ...credit, storeId: id })).toEqual({ credited: false, balance: 10 });
      expect(await store.getClient(credit.clientId)).toMatchObject({ balances: { usd: 10 }, topUps: 1 });
    });

    it('storage reset under the store: a credit under the old id is refused, changing nothing, and the store takes a new id (CR-14.13)', async ({ skip }) => {
      const reset = storage.reset ?? skip('the storage cannot be reset under the store');
      await withFreshStore(async (store, open) => {
        const old = await store.getStoreId();
        const credit = newCredit();
        expect(await store.creditTopUp({ ...credit, storeId: old })).toEqual({ credited: true, balance: 10 });
        await reset(store);
        // The charge's key repeats (topUps is 0 again) and the processor replays the PaymentIntent: it is not credited again.
        await expectRefusedUncredited(store, credit, old);
        const fresh = await stableStoreId(store);
        expect(fresh).not.toBe(old);
        if (storage.reopen) expect(await (await open(() => storage.reopen!(store))).getStoreId()).toBe(fresh);
        await expect(store.creditTopUp({ ...credit, storeId: old })).rejects.toMatchObject(REFUSED);
        expect(await store.creditTopUp({ ...credit, paymentIntentId: newPaymentIntentId(), storeId: fresh })).toEqual({ credited: true, balance: 10 });
        expect(await store.getClient(credit.clientId)).toMatchObject({ balances: { usd: 10 }, topUps: 1 });
      });
    });

    it('is kept with the storage: a store opened on it again has the same id', async ({ skip }) => {
      const reopen = storage.reopen ?? skip('the store keeps nothing across instances');
      await withFreshStore(async (first, open) => {
        const id = await first.getStoreId();
        const again = await open(() => reopen(first));
        expect(await again.getStoreId()).toBe(id);
      });
    });
  });
}
