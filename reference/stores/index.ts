// Public entry of the stores module: the contract and the three shipped stores.
export type * from './store.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export { SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
export { RedisStore, type RedisStoreOptions, type RedisCommandClient } from './redis-store.ts';
