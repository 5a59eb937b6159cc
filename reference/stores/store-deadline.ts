// Deadlines on store calls: a Store wrapper whose every call rejects with StoreTimeoutError when the store is too slow.
import type { Deduction, DeductionRefund, Store } from './store.ts';
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

/** `call` (a deduction or a refund) with `timeoutMs` when it carries none (anything else is passed on as it is, for the store to refuse). */
function withTimeout<T extends Deduction | DeductionRefund>(call: T, timeoutMs: number): T {
  return typeof call === 'object' && call !== null && call.timeoutMs === undefined ? { ...call, timeoutMs } : call;
}

/**
 * `store` with a deadline of `timeoutMs` on every call but `close`: a call still pending then rejects with
 * {@link StoreTimeoutError}. A deduction or a refund is handed to the store with that `timeoutMs` (unless it carries its
 * own), so that the store refuses to apply it later. Optional methods are present exactly when `store` has them. A lease that
 * `acquireLock` takes after its deadline is released at once (nobody holds its token), so a slow store leaves no
 * lease behind for longer than it stays slow.
 */
export function withStoreDeadlines(store: Store, timeoutMs: number): Store {
  const queue = deadlineQueue(timeoutMs);
  const wrapped = wrapStoreMethods(store, (name, call) => watched(queue, name, invoke(call)));
  // The paid path's call, without the generic wrapper's argument array and closures. The store is told the deadline
  // too (`timeoutMs`), so that a deduction it would apply after this wrapper gave up does nothing (a late command
  // would otherwise take money, or a request id's one repeat, from a request already answered 503).
  const { deductBalance } = store;
  wrapped.deductBalance = (deduction) =>
    watched(queue, 'deductBalance', invoke1(deductBalance, store, withTimeout(deduction, timeoutMs)));
  // A refund too: one its caller stopped waiting for applies nothing, so the caller's retry (same refund id) is the only one left.
  const { refundDeduction } = store;
  wrapped.refundDeduction = (refund) => watched(queue, 'refundDeduction', invoke1(refundDeduction, store, withTimeout(refund, timeoutMs)));
  const { acquireLock, releaseLock } = store;
  if (acquireLock && releaseLock) {
    // The caller's token, when given, is passed on: the store takes the lease under it (else under a token of its own).
    wrapped.acquireLock = (name: string, ttlMs: number, token?: string) => {
      const call = invoke(() => (token === undefined ? acquireLock.call(store, name, ttlMs) : acquireLock.call(store, name, ttlMs, token)));
      return withDeadline('acquireLock', timeoutMs, call, (taken) => {
        if (taken !== null) releaseLock.call(store, name, taken).catch(() => {}); // else it expires after ttlMs
      });
    };
  } else {
    delete wrapped.acquireLock; // half a lock pair: no lease without a way to release it
  }
  return wrapped;
}
