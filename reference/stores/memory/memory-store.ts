// In-process store: the guarded-store layer around Maps held in this process (memory-backend.ts).
import { randomUUID } from 'node:crypto';
import { GuardedStore } from '../guarded-store.ts';
import { MemoryBackend } from './memory-backend.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
  /** Records kept per client, the oldest dropped first, so a long-running process stays bounded; default 10000. */
  maxTransactionsPerClient?: number;
  /**
   * The store's id (CR-7.16); default a random UUID, new with every instance, as the store keeps nothing. Give one only
   * in tests that need to know it: two stores with one id send the same charge idempotency keys.
   */
  storeId?: string;
}

/**
 * A store held in this process's memory, for tests and single-process servers.
 * Nothing survives a restart and nothing is shared between processes. Kept request ids of idempotent
 * deductions expire after their `ttlMs`: an expired one is dropped when looked up, and all expired ones are
 * swept whenever the kept ids reach twice their number after the last sweep (at least 1024), so they never
 * pass twice the most ids live at once.
 */
export class MemoryStore extends GuardedStore {
  readonly #backend: MemoryBackend;

  /** Throws a RangeError when `maxTransactionsPerClient` is not a positive safe integer, a TypeError for an empty `storeId`. */
  constructor(options: MemoryStoreOptions = {}) {
    const backend = new MemoryBackend(options.maxTransactionsPerClient ?? 10_000, options.storeId ?? randomUUID());
    super(backend, { name: 'MemoryStore', recordTransactions: options.recordTransactions ?? true });
    this.#backend = backend;
  }

  /** Request ids kept now, expired ones not swept yet included (diagnostics: the count stays bounded). */
  get keptRequestIds(): number {
    return this.#backend.keptRequestIds;
  }
}
