// A store whose every method but `close` runs through one wrapper: the shape the deadline and timing wrappers share.
import { OPTIONAL_STORE_METHODS, REQUIRED_STORE_METHODS } from './capabilities.ts';
import type { Store } from './store.ts';

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/** Every store method but `close`. */
const WRAPPED = [...REQUIRED_STORE_METHODS, ...OPTIONAL_STORE_METHODS].filter((name) => name !== 'close');

/**
 * `store` with each method but `close` replaced by `wrap(name, call)`, where `call` runs the store's own method with the
 * caller's arguments. Optional methods are present exactly when `store` has them; `close` and `creditRetentionMs`
 * pass through.
 */
export function wrapStoreMethods(store: Store, wrap: (name: string, call: () => Promise<unknown>) => Promise<unknown>): Store {
  const wrapped = { close: () => store.close() } as Store;
  const methods = wrapped as unknown as Record<string, AnyMethod>;
  for (const name of WRAPPED) {
    const method = store[name] as AnyMethod | undefined;
    if (method) methods[name] = (...args: unknown[]) => wrap(name, () => method.apply(store, args));
  }
  return store.creditRetentionMs === undefined
    ? wrapped
    : Object.defineProperty(wrapped, 'creditRetentionMs', { get: () => store.creditRetentionMs, enumerable: true });
}
