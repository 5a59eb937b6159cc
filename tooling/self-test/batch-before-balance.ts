// Mutant target: a batched store that checks each deduction of a batch against the balance before the batch, so that
// spends arriving together overdraw the balance (breaks CR-6.7).
import { pathToFileURL } from 'node:url';
import type { Store } from 'credit402/stores';
import { batchingStore, type Waiting } from './batching-store.ts';
import { serveStoreMutant } from './serve-store-mutant.ts';

/** How long a batch of one client's deductions collects. */
const WINDOW_MS = 50;

/**
 * `store` whose deductions without a request id are collected per client and currency for {@link WINDOW_MS} and then
 * made together; the bug: each is checked against the balance read before the batch rather than what the batch's
 * earlier deductions left, so all of them are served, answered with the balance running below zero.
 */
export function batchBeforeBalance(store: Store): Store {
  const flush = async (calls: Waiting[]): Promise<void> => {
    const { clientId, currency } = (calls[0] as Waiting).deduction;
    const before = (await store.getClient(clientId))?.balances[currency];
    let running = before ?? 0;
    for (const { deduction, resolve, reject } of calls) {
      if (before === undefined || before < deduction.amount) {
        resolve({ status: 'insufficient' });
        continue;
      }
      running -= deduction.amount;
      // Made where the balance still covers it; the answer is the batch's running balance either way.
      await store.deductBalance(deduction).then(() => resolve({ status: 'deducted', balance: running }), reject);
    }
  };
  return batchingStore(store, {
    windowMs: WINDOW_MS,
    keyOf: (deduction) => `${deduction.clientId} ${deduction.currency}`,
    unbatched: (deduction) => deduction.request !== undefined,
    flush,
  });
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await serveStoreMutant('batch-before-balance', batchBeforeBalance);
