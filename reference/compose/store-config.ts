// The server's `store` from the environment and its checks, over the store descriptors (reference/stores/descriptors.ts).
import { Credit402ConfigError } from '../config/config-error.ts';
import { storeDescriptor, storeDescriptors, storeKinds } from '../stores/descriptors.ts';

export type { StoreConfig } from '../stores/descriptors.ts';

/**
 * The store the environment configures: CREDIT402_STORE's kind from its variables, and the fields every store's
 * variables set on the store configured so far (`current`, from the files) whatever its kind.
 */
export function storeFromEnv(env: NodeJS.ProcessEnv, current: unknown): unknown {
  const kind = env.CREDIT402_STORE;
  let store: { kind: string } | undefined;
  if (kind !== undefined) {
    const descriptor = storeDescriptor(kind);
    if (descriptor === undefined) throw new Credit402ConfigError('ERR_SERVER_CONFIG', `CREDIT402_STORE must be ${storeKinds().join(', ')}, got ${kind}`);
    store = descriptor.fromEnv(env, current);
  }
  const overlay: Record<string, unknown> = Object.assign({}, ...storeDescriptors().map((descriptor) => descriptor.envOverlay?.(env) ?? {}));
  const target = store ?? current;
  if (Object.keys(overlay).length > 0 && typeof target === 'object') return { ...target, ...overlay };
  return store;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Refuses a field that only other kinds of store take (a descriptor's `exclusiveFields`). */
function checkExclusiveFields(store: Record<string, unknown>): void {
  const seen = new Set<string>();
  for (const { exclusiveFields = [] } of storeDescriptors()) {
    for (const { key, variable } of exclusiveFields) {
      if (seen.has(key)) continue;
      seen.add(key);
      if (store[key] === undefined) continue;
      const owners = storeDescriptors().filter((descriptor) => descriptor.exclusiveFields?.some((field) => field.key === key)).map((descriptor): string => descriptor.kind);
      if (owners.includes(String(store.kind))) continue;
      const named = variable === undefined ? `store.${key}` : `store.${key} (${variable})`;
      throw new Credit402ConfigError('ERR_SERVER_CONFIG', `${named} applies to the ${listed(owners)} ${owners.length === 1 ? 'store' : 'stores'}, not ${String(store.kind)}`);
    }
  }
}

/** Checks the server's `store`: a known kind, that kind's fields, no field of another kind, the legacy currency. */
export function checkStoreConfig(store: unknown): void {
  const fields = (typeof store === 'object' && store !== null ? store : {}) as Record<string, unknown>;
  const descriptor = storeDescriptor(fields.kind);
  if (descriptor === undefined) throw new Credit402ConfigError('ERR_SERVER_CONFIG', `store.kind must be ${storeKinds().join(', ')}`);
  descriptor.check(fields);
  checkExclusiveFields(fields);
  const { legacyCurrency } = fields;
  if (legacyCurrency !== undefined && (typeof legacyCurrency !== 'string' || !/^[a-z]{3}$/.test(legacyCurrency))) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `store.legacyCurrency (CREDIT402_LEGACY_CURRENCY) must be a lowercase three-letter currency code, got ${String(legacyCurrency)}`);
  }
}
