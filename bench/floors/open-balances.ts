// Opens the floor store a bench store configuration names (only that store's driver is loaded).
import type { StoreConfig } from '../../reference/compose/engine-config.ts';
import type { FloorBalances } from './balances.ts';

/** The floor balances on the store of `config`: a Map, a SQLite file, a Redis key prefix or a Postgres schema. */
export async function openBalances(config: StoreConfig): Promise<FloorBalances> {
  switch (config.kind) {
    case 'memory':
      return (await import('./memory-balances.ts')).memoryBalances();
    case 'sqlite':
      return (await import('./sqlite-balances.ts')).sqliteBalances(config.path);
    case 'redis':
      if (config.url === undefined || config.keyPrefix === undefined) throw new Error('the Redis floor needs a url and a keyPrefix');
      return (await import('./redis-balances.ts')).redisBalances(config.url, config.keyPrefix);
    case 'postgres':
      if (config.url === undefined || config.schema === undefined) throw new Error('the Postgres floor needs a url and a schema');
      return (await import('./postgres-balances.ts')).postgresBalances(config.url, config.schema);
  }
}
