// Opens the store named by the server configuration.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryStore } from '../stores/memory-store.ts';
import { RedisStore } from '../stores/redis-store.ts';
import { SqliteStore } from '../stores/sqlite-store.ts';
import type { Store } from '../stores/store.ts';
import type { StoreConfig } from './server-config.ts';

/** Creates (and for Redis connects) the configured store. */
export async function buildStore(config: StoreConfig): Promise<Store> {
  switch (config.kind) {
    case 'memory':
      return new MemoryStore();
    case 'sqlite':
      if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
      return new SqliteStore({ path: config.path });
    case 'redis':
      return RedisStore.connect({
        ...(config.url ? { url: config.url } : {}),
        ...(config.keyPrefix ? { keyPrefix: config.keyPrefix } : {}),
      });
  }
}
