// The error of a credit refused because the store's storage no longer holds the store id the top-up was charged under.
import type { Store } from './store.ts';

/**
 * A credit ({@link Store.creditTopUp} with `storeId`) that the store refused, changing nothing: its storage holds another
 * store id, or none, than the one the top-up was charged under. Either the storage was reset since (a Redis flushed or
 * restarted without persistence, a table emptied), so that the charge's idempotency key may have replayed a
 * PaymentIntent credited before the reset, or the PaymentIntent belongs to another store on the same processor account.
 * The next {@link Store.getStoreId} reads (or pins) the storage's current id, so the next charge gets a new key.
 */
export class StoreIdentityError extends Error {
  readonly code = 'ERR_STORE_RESET';

  /** `store` names the store (`RedisStore`, …); `expected` is the id the credit named. */
  constructor(store: string, expected: string, options?: { cause?: unknown }) {
    super(
      `${store}: the storage no longer holds the store id ${expected} this top-up was charged under (it was reset, ` +
        'or the PaymentIntent is of another store); nothing was credited',
      options,
    );
    this.name = 'StoreIdentityError';
  }
}

/**
 * True for a credit refused because the store no longer holds the store id it named: a {@link StoreIdentityError}, or any
 * error coded `ERR_STORE_RESET` (another copy of this package, or a store of its own).
 */
export function isStoreReset(error: unknown): boolean {
  return typeof error === 'object' && error !== null && Reflect.get(error, 'code') === 'ERR_STORE_RESET';
}
