// Late deductions: the time after which a store must not apply a deduction any more, and the error it then rejects with.

/**
 * A deduction (or a refund of one) the store did not apply because its caller had stopped waiting (its `timeoutMs` had passed, by the
 * store's clock and margin): nothing was deducted and no request id was kept or repeated. The caller, if it still
 * waits, may say so; usually it has answered 503 already and nobody reads this.
 */
export class LateDeductionError extends Error {
  readonly code = 'ERR_STORE_LATE';
  /** `operation`: what was late, a deduction (nothing was deducted) or a refund (nothing was given back, its id not kept). */
  constructor(store: string, operation: 'deduction' | 'refund' = 'deduction') {
    const nothing = operation === 'deduction' ? 'nothing was deducted' : 'nothing was given back';
    super(`${store}: the ${operation} reached the store after its caller's deadline; ${nothing}`);
    this.name = 'LateDeductionError';
  }
}

/** The latest `performance.now()` at which a deduction asked for now with `timeoutMs` may be applied; undefined without one. */
export function notAfter(timeoutMs: number | undefined, now: number = performance.now()): number | undefined {
  return timeoutMs === undefined ? undefined : now + timeoutMs;
}

/**
 * How much earlier than its caller's deadline a store on another host must apply a deduction: its answer still has
 * to travel back and be read before the caller's timer fires, and the clocks are only known within bounds. A fifth
 * of the timeout, at most 100 ms (500 ms: applied within 400 ms or not at all).
 */
export function remoteMarginMs(timeoutMs: number): number {
  return Math.min(100, Math.floor(timeoutMs / 5));
}
