// Mutant target: a non-atomic deduction: the balance is read, and the balance less the price written a moment later, so
// that concurrent deductions of one client overwrite each other and one price is lost (breaks CR-6.7, CR-6.2).
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { Deduction, DeductionResult, Store } from 'credit402/stores';
import { wrapStoreMethods } from 'credit402/internal/stores/wrap-store';
import { serveStoreMutant } from './serve-store-mutant.ts';

/** How long the mutant waits between its read and its write: long enough for requests sent together to meet. */
const GAP_MS = 30;

/**
 * `store` whose deductions without a request id read the balance, wait, and then set it to what they read less the
 * price (through the store's own atomic calls, so only the read-modify-write is broken); with a request id they go
 * through unchanged.
 */
export function nonAtomicDeduction(store: Store): Store {
  return Object.assign(wrapStoreMethods(store, (_name, call) => call()), {
    deductBalance: async (deduction: Deduction): Promise<DeductionResult> => {
      if (deduction.request !== undefined) return store.deductBalance(deduction);
      const read = (await store.getClient(deduction.clientId))?.balances[deduction.currency];
      if (read === undefined || read < deduction.amount) return { status: 'insufficient' };
      await sleep(GAP_MS);
      const wanted = read - deduction.amount;
      const now = (await store.getClient(deduction.clientId))?.balances[deduction.currency] ?? 0;
      if (now > wanted) await store.deductBalance({ clientId: deduction.clientId, currency: deduction.currency, amount: now - wanted });
      else if (now < wanted) await store.addBalance(deduction.clientId, deduction.currency, wanted - now);
      return { status: 'deducted', balance: wanted };
    },
  } satisfies Partial<Store>);
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await serveStoreMutant('non-atomic-deduction', nonAtomicDeduction);
