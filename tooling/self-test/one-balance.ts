// Mutant target: its store keeps one balance per client for every currency, as the stripe402 source does (breaks CR-6.8, CR-13.40).
import { pathToFileURL } from 'node:url';
import type { Store } from 'credit402/stores';
import { wrapStoreMethods } from 'credit402/internal/stores/wrap-store';
import { serveStoreMutant } from './serve-store-mutant.ts';

/** The currency under which the one balance is kept: every currency reads and writes it. */
const SHARED = 'usd';

/** `store` with every balance, credit, deduction (and its record) and refund moved to the one shared currency. */
export function oneBalance(store: Store): Store {
  return Object.assign(wrapStoreMethods(store, (_name, call) => call()), {
    deductBalance: ({ record, ...deduction }) =>
      store.deductBalance({ ...deduction, currency: SHARED, ...(record ? { record: { ...record, currency: SHARED } } : {}) }),
    addBalance: (clientId, _currency, amount) => store.addBalance(clientId, SHARED, amount),
    creditTopUp: (credit) => store.creditTopUp({ ...credit, currency: SHARED }),
    refundDeduction: (refund) => store.refundDeduction({ ...refund, currency: SHARED }),
  } satisfies Partial<Store>);
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await serveStoreMutant('one-balance', oneBalance);
