// Deadlines on store calls: a Store wrapper whose every call rejects with StoreTimeoutError when the store is too slow.
import type { Store } from './store.ts';
import { deadlineQueue, type DeadlineQueue } from './deadline-queue.ts';
import { wrapStoreMethods } from './wrap-store.ts';

/** Default deadline of one store call, in ms: far above a healthy store's latency, far below a client's patience. */
export const DEFAULT_STORE_TIMEOUT_MS = 500;

/**
 * A store call that did not answer within its deadline. Its outcome is unknown: the call may still take effect
 * later (a frozen Redis runs the queued command when it resumes), so the caller must not say that nothing changed.
 */
export class StoreTimeoutError extends Error {
  readonly code = 'ERR_STORE_TIMEOUT';
  constructor(
    /** The store method, e.g. `deductBalance`. */
    readonly operation: string,
    readonly timeoutMs: number,
  ) {
    super(`store ${operation} did not answer within ${timeoutMs} ms; it may still take effect`);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * Settles like `call`, or rejects with a {@link StoreTimeoutError} after `timeoutMs`, whichever comes first. A value
 * that arrives after the deadline is handed to `late` (a failure after it is dropped: the caller already failed).
 */
export function withDeadline<T>(operation: string, timeoutMs: number, call: Promise<T>, late?: (value: T) => void): Promise<T> {
  return watched(deadlineQueue(timeoutMs), operation, call, late);
}

/** {@link withDeadline} on the queue of its timeout. */
function watched<T>(queue: DeadlineQueue, operation: string, call: Promise<T>, late?: (value: T) => void): Promise<T> {
  const { timeoutMs } = queue;
  return new Promise<T>((resolve, reject) => {
    const entry = queue.watch(() => reject(new StoreTimeoutError(operation, timeoutMs)));
    call.then(
      (value) => {
        if (!queue.settle(entry)) return late?.(value);
        resolve(value);
      },
      (error: unknown) => {
        if (queue.settle(entry)) reject(error);
      },
    );
  });
}

/** Calls `method`, turning a synchronous throw into a rejection. */
function invoke<T>(run: () => Promise<T>): Promise<T> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Calls `method` on `store` with `argument`, turning a synchronous throw into a rejection. */
function invoke1<A, T>(method: (argument: A) => Promise<T>, store: Store, argument: A): Promise<T> {
  try {
    return method.call(store, argument);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * `store` with a deadline of `timeoutMs` on every call but `close`: a call still pending then rejects with
 * {@link StoreTimeoutError}. Optional methods are present exactly when `store` has them. A lease that
 * `acquireLock` takes after its deadline is released at once (nobody holds its token), so a slow store leaves no
 * lease behind for longer than it stays slow.
 */
export function withStoreDeadlines(store: Store, timeoutMs: number): Store {
  const queue = deadlineQueue(timeoutMs);
  const wrapped = wrapStoreMethods(store, (name, call) => watched(queue, name, invoke(call)));
  // The paid path's call, without the generic wrapper's argument array and closures.
  const { deductBalance } = store;
  wrapped.deductBalance = (deduction) => watched(queue, 'deductBalance', invoke1(deductBalance, store, deduction));
  const { acquireLock, releaseLock } = store;
  if (acquireLock && releaseLock) {
    wrapped.acquireLock = (name: string, ttlMs: number) =>
      withDeadline('acquireLock', timeoutMs, invoke(() => acquireLock.call(store, name, ttlMs)), (token) => {
        if (token !== null) releaseLock.call(store, name, token).catch(() => {}); // else it expires after ttlMs
      });
  } else {
    delete wrapped.acquireLock; // half a lock pair: no lease without a way to release it
  }
  return wrapped;
}
