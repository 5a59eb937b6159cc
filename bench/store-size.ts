// The size of a server's store during the soak: transaction-log records (and bytes where cheap), read without slowing the server.
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { RedisKeys } from '../reference/stores/redis/redis-keys.ts';
import { openAdminPool } from 'credit402-tooling/testing/postgres';
import type { BenchChild } from './child-process.ts';
import type { PreparedStore } from './stores.ts';

/** What a probe read: log records of the funded client, and the store's bytes where they are cheap to read. */
export interface StoreSize {
  records: number;
  bytes?: number;
}

/** Reads a store's size; `describe` says what is counted. */
export interface StoreSizeProbe {
  describe: string;
  read(): Promise<StoreSize>;
  close(): Promise<void>;
}

const fileBytes = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

function sqliteProbe(path: string): StoreSizeProbe {
  const db = new Database(path, { readonly: true });
  // The log is append-only (seq is its rowid): the seq span is its row count, in O(log n), without a scan.
  const span = db.prepare<[], { n: number }>('SELECT coalesce(max(seq) - min(seq) + 1, 0) AS n FROM credit402_transactions');
  return {
    describe: 'rows of credit402_transactions (seq span); bytes: database file + WAL',
    read: async () => ({ records: span.get()?.n ?? 0, bytes: fileBytes(path) + fileBytes(`${path}-wal`) }),
    close: async () => void db.close(),
  };
}

async function redisProbe(url: string, keyPrefix: string, clientId: string): Promise<StoreSizeProbe> {
  const { createClient } = await import('redis');
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  const log = new RedisKeys(keyPrefix).log(clientId);
  return {
    describe: `XLEN of ${log}; bytes: MEMORY USAGE of that stream`,
    read: async () => ({ records: await client.xLen(log), bytes: Number((await client.memoryUsage(log)) ?? 0) }),
    close: async () => void client.destroy(),
  };
}

async function postgresProbe(url: string, schema: string): Promise<StoreSizeProbe> {
  const pool = await openAdminPool(url);
  const table = `"${schema}".transactions`;
  const sql = `SELECT coalesce(max(seq) - min(seq) + 1, 0)::text AS n, pg_total_relation_size('${table}')::text AS bytes FROM ${table}`;
  return {
    describe: `rows of ${schema}.transactions (seq span); bytes: pg_total_relation_size`,
    async read() {
      const [row] = (await pool.query<{ n: string; bytes: string }>(sql)).rows;
      return { records: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
    close: () => pool.end(),
  };
}

/** A probe of `store` (the one `child` serves from); the memory store is asked through the child. */
export async function openStoreSizeProbe(store: PreparedStore, child: BenchChild<unknown>, clientId: string): Promise<StoreSizeProbe> {
  const config = store.config;
  switch (config.kind) {
    case 'memory':
      return {
        describe: "records of the client's log (listTransactions, in the server)",
        read: () => child.request<StoreSize>('storeSize', { clientId }),
        close: async () => {},
      };
    case 'sqlite':
      return sqliteProbe(config.path);
    case 'redis':
      return redisProbe(config.url ?? '', config.keyPrefix ?? '', clientId);
    case 'postgres':
      return postgresProbe(config.url ?? '', config.schema ?? '');
  }
}
