// The store each bench configuration runs on: a fresh temp SQLite file or a unique Redis prefix, removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreConfig } from '../reference/server/server-config.ts';
import { deleteKeys, pingRedis, redisUrlFromEnv } from '../reference/testing/redis.ts';
import type { StoreKind } from './options.ts';

/** A store configuration for one server, and how to remove what it left. */
export interface PreparedStore {
  config: StoreConfig;
  /** Where it lives, for the report: a file path or a Redis key prefix. */
  location: string;
  cleanup(): Promise<void>;
}

/** Resolves to null when Redis answers PING, else to the reason it does not. */
export async function redisUnavailable(): Promise<string | null> {
  try {
    await pingRedis(redisUrlFromEnv(), 2000);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Prepares an empty store of `kind`, unique to this run (`runId`) and configuration (`name`). */
export function prepareStore(kind: StoreKind, runId: string, name: string): PreparedStore {
  switch (kind) {
    case 'memory':
      return { config: { kind }, location: 'server memory', cleanup: async () => {} };
    case 'sqlite': {
      const dir = mkdtempSync(join(tmpdir(), 'credit402-bench-'));
      const path = join(dir, `${name}.db`);
      return { config: { kind, path }, location: path, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    }
    case 'redis': {
      const keyPrefix = `credit402-bench:${runId}:${name}:`;
      return { config: { kind, url: redisUrlFromEnv(), keyPrefix }, location: `${redisUrlFromEnv()} ${keyPrefix}*`, cleanup: async () => void (await deleteKeys(redisUrlFromEnv(), keyPrefix)) };
    }
  }
}
