// Public entry of the stores module: the contract and the memory store. The SQLite, Redis and Postgres stores have entries of
// their own (`credit402/stores/sqlite`, `credit402/stores/redis`, `credit402/stores/postgres`), so that only the driver in use has to be installed.
export type * from './store.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export { withStoreDeadlines, StoreTimeoutError, DEFAULT_STORE_TIMEOUT_MS } from './store-deadline.ts';
export { LockTokenError, MAX_LOCK_TOKEN_LENGTH } from './validate.ts';
