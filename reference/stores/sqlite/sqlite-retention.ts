// Retention of the SQLite store's transaction log: when a deduction batch prunes (the option is checked in log-retention.ts).
import type { LogPrune } from './sqlite-transactions.ts';

/** Deductions between two prunes of the log. */
export const PRUNE_EVERY = 64;

/**
 * Counts deductions and, every {@link PRUNE_EVERY} or more, asks the batch then being committed to delete, of the
 * oldest log records (twice as many as deductions since the last prune, so a backlog shrinks), those created
 * more than the TTL ago: a bounded step on the primary key (`seq`), so the log stays about what the TTL holds
 * without a timer or a scan.
 */
export class LogRetention {
  readonly #ttlMs: number;
  #sincePrune = 0;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  /** What the batch of `count` deductions committed at `nowMs` prunes, if anything. */
  next(count: number, nowMs: number): LogPrune | undefined {
    this.#sincePrune += count;
    if (this.#sincePrune < PRUNE_EVERY) return undefined;
    const limit = 2 * this.#sincePrune;
    this.#sincePrune = 0;
    return { limit, before: new Date(nowMs - this.#ttlMs).toISOString() };
  }
}
