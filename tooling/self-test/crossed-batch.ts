// Mutant target: a batched store that crosses outcomes: the deductions that arrive within one batching window are
// made together, and neighbours of different clients get each other's result (breaks CR-6.2, CR-6.3).
import { pathToFileURL } from 'node:url';
import type { Deduction, DeductionResult, Store } from 'credit402/stores';
import { wrapStoreMethods } from 'credit402/internal/stores/wrap-store';
import { serveStoreMutant } from './serve-store-mutant.ts';

/** The outcome of one deduction of a batch. */
type Settled = PromiseSettledResult<DeductionResult>;

/** How long a batch collects deductions. */
const WINDOW_MS = 100;

/** One deduction waiting for its batch. */
interface Waiting {
  deduction: Deduction;
  resolve: (result: DeductionResult) => void;
  reject: (reason: unknown) => void;
}

/**
 * `store` whose deductions are collected for {@link WINDOW_MS} and then made together, each on its own client, as a
 * pipelining store sends them in one round trip (a window rather than one event-loop turn, so that requests sent
 * together meet in one batch even on a loaded machine); the bug: the results go back crossed, the first and
 * second of each pair of neighbours from different clients getting each other's.
 */
export function crossedBatch(store: Store): Store {
  let batch: Waiting[] | undefined;
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
  return Object.assign(wrapStoreMethods(store, (_name, call) => call()), {
    deductBalance: (deduction: Deduction) =>
      new Promise<DeductionResult>((resolve, reject) => {
        if (batch === undefined) {
          const calls: Waiting[] = [];
          batch = calls;
          setTimeout(() => {
            batch = undefined;
            void flush(calls);
          }, WINDOW_MS);
        }
        batch.push({ deduction, resolve, reject });
      }),
  } satisfies Partial<Store>);
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await serveStoreMutant('crossed-batch', crossedBatch);
