// Opens the store named by the server configuration, through its descriptor (reference/stores/descriptors.ts).
import { Credit402ConfigError } from '../config/config-error.ts';
import { storeDescriptor, type StoreConfig } from '../stores/descriptors.ts';
import type { Store } from '../stores/store.ts';

/** Creates (and for Redis and Postgres connects) the configured store; only that store's driver is loaded. */
export async function buildStore(config: StoreConfig): Promise<Store> {
  const descriptor = storeDescriptor(config.kind);
  if (descriptor === undefined) throw new Credit402ConfigError('ERR_SERVER_CONFIG', `store.kind ${String(config.kind)} is not a store kind`);
  return descriptor.open(config);
}
