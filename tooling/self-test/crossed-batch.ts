// Mutant target: a batched store that crosses outcomes: the deductions that arrive within one batching window are
// made together, and neighbours of different clients get each other's result (breaks CR-6.2, CR-6.3).
import { pathToFileURL } from 'node:url';
import type { DeductionResult, Store } from 'credit402/stores';
import { batchingStore, type Waiting } from './batching-store.ts';
import { serveStoreMutant } from './serve-store-mutant.ts';

/** The outcome of one deduction of a batch. */
type Settled = PromiseSettledResult<DeductionResult>;

/** How long a batch collects deductions. */
const WINDOW_MS = 100;

/**
 * `store` whose deductions are collected for {@link WINDOW_MS} and then made together, each on its own client, as a
 * pipelining store sends them in one round trip (a window rather than one event-loop turn, so that requests sent
 * together meet in one batch even on a loaded machine); the bug: the results go back crossed, the first and
 * second of each pair of neighbours from different clients getting each other's.
 */
export function crossedBatch(store: Store): Store {
  const flush = async (calls: Waiting[]): Promise<void> => {
    const results: Settled[] = await Promise.allSettled(calls.map(({ deduction }) => store.deductBalance(deduction)));
    for (let i = 0; i + 1 < calls.length; i += 2) {
      const [first, second] = [results[i] as Settled, results[i + 1] as Settled];
      if (calls[i]?.deduction.clientId === calls[i + 1]?.deduction.clientId) continue;
      results[i] = second;
      results[i + 1] = first;
    }
    calls.forEach((call, i) => {
      const result = results[i] as Settled;
      if (result.status === 'fulfilled') call.resolve(result.value);
      else call.reject(result.reason);
    });
  };
  // One batch for every client and currency: a pipelining store's round trip carries them all.
  return batchingStore(store, { windowMs: WINDOW_MS, keyOf: () => 'all', flush });
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await serveStoreMutant('crossed-batch', crossedBatch);
