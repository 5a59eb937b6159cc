// The stores `credit402 serve` and `credit402 gateway` can open: one descriptor each, in the order usage and messages list them.
import type { ConfigOf, StoreDescriptor, StoreFlag } from './descriptor.ts';
import { memoryStoreDescriptor } from './memory-descriptor.ts';
import { postgresStoreDescriptor } from './postgres-descriptor.ts';
import { redisStoreDescriptor } from './redis-descriptor.ts';
import { sqliteStoreDescriptor } from './sqlite-descriptor.ts';

const DESCRIPTORS = [memoryStoreDescriptor, sqliteStoreDescriptor, redisStoreDescriptor, postgresStoreDescriptor] as const;

/** The configuration of any of the server's stores (`store` of the server's configuration), told apart by `kind`. */
export type StoreConfig = ConfigOf<(typeof DESCRIPTORS)[number]>;

/** Every store descriptor. */
export const STORE_DESCRIPTORS: readonly StoreDescriptor<StoreConfig>[] = DESCRIPTORS;

/** The store kinds, as `store.kind` and CREDIT402_STORE name them. */
export const STORE_KINDS: readonly string[] = STORE_DESCRIPTORS.map((descriptor) => descriptor.kind);

/** The descriptor of `kind`, if it is a store kind. */
export function storeDescriptor(kind: unknown): StoreDescriptor<StoreConfig> | undefined {
  return STORE_DESCRIPTORS.find((descriptor) => descriptor.kind === kind);
}

/** The flags of `credit402 serve` that act as store variables, of every store. */
export const STORE_FLAGS: readonly StoreFlag[] = STORE_DESCRIPTORS.flatMap((descriptor) => descriptor.flags ?? []);
