// What the batching store mutants share: deductions collected for a window, per batch key, then made together by the mutant's flush.
import type { Deduction, DeductionResult, Store } from 'credit402/stores';
import { wrapStoreMethods } from 'credit402/internal/stores/wrap-store';

/** One deduction waiting for its batch. */
export interface Waiting {
  deduction: Deduction;
  resolve: (result: DeductionResult) => void;
  reject: (reason: unknown) => void;
}

/** How a mutant batches: which deductions, together with which, for how long, and how a batch is made. */
export interface Batching {
  /** How long a batch collects deductions. */
  windowMs: number;
  /** The batch a deduction joins: the deductions of one key are made together. */
  keyOf: (deduction: Deduction) => string;
  /** Whether a deduction is made at once, outside any batch; by default none is. */
  unbatched?: (deduction: Deduction) => boolean;
  /** Makes a batch's deductions and settles each; a flush that fails rejects those of its batch. */
  flush: (calls: Waiting[]) => Promise<void>;
}

/** `store` with its deductions batched as `batching` says; its other methods as they are. */
export function batchingStore(store: Store, batching: Batching): Store {
  const batches = new Map<string, Waiting[]>();
  return Object.assign(wrapStoreMethods(store, (_name, call) => call()), {
    deductBalance: (deduction: Deduction) => {
      if (batching.unbatched?.(deduction)) return store.deductBalance(deduction);
      return new Promise<DeductionResult>((resolve, reject) => {
        const key = batching.keyOf(deduction);
        let batch = batches.get(key);
        if (batch === undefined) {
          const calls: Waiting[] = [];
          batch = calls;
          batches.set(key, calls);
          setTimeout(() => {
            batches.delete(key);
            void batching.flush(calls).catch((error: unknown) => { for (const call of calls) call.reject(error); });
          }, batching.windowMs);
        }
        batch.push({ deduction, resolve, reject });
      });
    },
  } satisfies Partial<Store>);
}
