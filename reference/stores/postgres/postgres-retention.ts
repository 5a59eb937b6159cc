// Retention of the Postgres store's transaction log: the pruning piggy-backed on writes (the option is checked in log-retention.ts).

/** Log appends between two prunes. */
export const PRUNE_EVERY = 256;

/** Runs one prune: of the `limit` oldest records, deletes those created before `before` (ISO 8601). */
export type PruneLog = (limit: number, before: string) => Promise<unknown>;

/**
 * Counts log appends and, every {@link PRUNE_EVERY}, prunes in the background (one statement; never awaited by the
 * write that triggered it, one at a time): of the oldest records (twice the appends since the last prune, so a
 * backlog shrinks), those created more than the TTL ago. A failed prune is left to the next one.
 */
export class LogPruner {
  readonly #prune: PruneLog;
  readonly #ttlMs: number;
  #appends = 0;
  #running: Promise<void> | undefined;

  constructor(prune: PruneLog, ttlMs: number) {
    this.#prune = prune;
    this.#ttlMs = ttlMs;
  }

  /** Notes one append; starts a prune when one is due and none is running. */
  appended(): void {
    if (++this.#appends < PRUNE_EVERY || this.#running !== undefined) return;
    const limit = 2 * this.#appends;
    this.#appends = 0;
    this.#running = this.#prune(limit, new Date(Date.now() - this.#ttlMs).toISOString()).then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      this.#running = undefined;
    });
  }

  /** Resolves when no prune is running (before the pool ends). */
  async settled(): Promise<void> {
    await this.#running;
  }
}
