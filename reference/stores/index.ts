// Public entry of the stores module: the contract, the memory store, and the guarded layer and backend contract a new store builds on. The SQLite, Redis and Postgres stores have entries of
// their own (`credit402/stores/sqlite`, `credit402/stores/redis`, `credit402/stores/postgres`), so that only the driver in use has to be installed.
export type * from './store.ts';
export { REFUND_ID_TTL_MS } from './store.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory/memory-store.ts';
export { GuardedStore, type GuardedStoreOptions } from './guarded-store.ts';
export type { StoreBackend, BackendDeduction, BackendRefund } from './store-backend.ts';
export { withStoreDeadlines, StoreTimeoutError, DEFAULT_STORE_TIMEOUT_MS } from './store-deadline.ts';
export { LockTokenError, MAX_LOCK_TOKEN_LENGTH, MAX_REFUND_ID_LENGTH } from './validate.ts';
export { LateDeductionError } from './deduction-deadline.ts';
export { StoreIdentityError, isStoreReset } from './store-identity.ts';
export { StoreOptionError, type StoreOptionCode } from './store-errors.ts';
