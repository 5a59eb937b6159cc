// The stores `credit402 serve` and `credit402 gateway` can open: the shipped descriptors, then those the program registers.
import { Credit402ConfigError } from '../config/config-error.ts';
import type { ConfigOf, StoreDescriptor, StoreFlag } from './descriptor.ts';
import { memoryStoreDescriptor } from './memory/memory-descriptor.ts';
import { postgresStoreDescriptor } from './postgres/postgres-descriptor.ts';
import { redisStoreDescriptor } from './redis/redis-descriptor.ts';
import { sqliteStoreDescriptor } from './sqlite/sqlite-descriptor.ts';

const SHIPPED = [memoryStoreDescriptor, sqliteStoreDescriptor, redisStoreDescriptor, postgresStoreDescriptor] as const;

/**
 * The configurations of the store kinds a program registers ({@link registerStoreDescriptor}), by kind: a program that
 * wants them typed in {@link StoreConfig} adds them by declaration merging
 * (`declare module 'credit402/server' { interface RegisteredStores { toy: ToyStoreConfig } }`). Empty here.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface RegisteredStores {}

/** The configuration of any of the server's stores (`store` of the server's configuration), told apart by `kind`. */
export type StoreConfig = ConfigOf<(typeof SHIPPED)[number]> | RegisteredStores[keyof RegisteredStores];

/** Any descriptor, as the list holds it: the server reads a kind's configuration only through its own descriptor. */
type AnyStoreDescriptor = StoreDescriptor<{ kind: string }>;

const descriptors: AnyStoreDescriptor[] = [...SHIPPED];

/** A store kind's shape: lowercase letters, digits and dashes, starting with a letter. */
const KIND = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * Adds a kind of store to `credit402 serve`, `credit402 gateway`, `loadServerConfig` and `startReferenceServer` in this
 * process: CREDIT402_STORE=`descriptor.kind` (or `store.kind` in a file) then opens it through `descriptor.open`.
 * Throws Credit402ConfigError `ERR_STORE` when the kind is not a kind's shape or is taken.
 */
export function registerStoreDescriptor<C extends { kind: string }>(descriptor: StoreDescriptor<C>): void {
  const { kind } = descriptor;
  if (typeof kind !== 'string' || !KIND.test(kind)) throw new Credit402ConfigError('ERR_STORE', `a store kind is lowercase letters, digits and dashes starting with a letter (at most 32), got ${JSON.stringify(kind)}`);
  if (storeDescriptor(kind) !== undefined) throw new Credit402ConfigError('ERR_STORE', `a store of kind ${kind} is already known: ${storeKinds().join(', ')}`);
  descriptors.push(descriptor);
}

/** Every store descriptor: the shipped ones, then the registered ones. */
export function storeDescriptors(): readonly AnyStoreDescriptor[] {
  return descriptors;
}

/** The store kinds, as `store.kind` and CREDIT402_STORE name them. */
export function storeKinds(): string[] {
  return descriptors.map((descriptor) => descriptor.kind);
}

/** The descriptor of `kind`, if it is a store kind. */
export function storeDescriptor(kind: unknown): AnyStoreDescriptor | undefined {
  return descriptors.find((descriptor) => descriptor.kind === kind);
}

/** The flags of `credit402 serve` that act as store variables, of every store. */
export function storeFlags(): StoreFlag[] {
  return descriptors.flatMap((descriptor) => descriptor.flags ?? []);
}
