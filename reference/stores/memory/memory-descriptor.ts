// The memory store's descriptor: no settings, nothing kept past the process.
import type { StoreDescriptor } from '../descriptor.ts';

/** The memory store's configuration. */
export interface MemoryStoreConfig {
  kind: 'memory';
}

/** The memory store (CREDIT402_STORE=memory). */
export const memoryStoreDescriptor: StoreDescriptor<MemoryStoreConfig> = {
  kind: 'memory',
  usage: 'memory (in the process, lost when it exits)',
  fromEnv: () => ({ kind: 'memory' }),
  check: () => undefined,
  open: async () => new (await import('./memory-store.ts')).MemoryStore(),
};
