// The store each bench configuration runs on: a fresh temp SQLite file, a unique Redis prefix or a fresh Postgres schema, removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreConfig } from '../reference/compose/engine-config.ts';
import { redactUrl } from '../reference/stores/redact-url.ts';
import { dropSchema, freshSchema, openAdminPool, postgresUrlFromEnv } from 'credit402-tooling/testing/postgres';
import { deleteKeys, pingRedis, redisUrlFromEnv } from 'credit402-tooling/testing/redis';
import type { StoreKind } from './options.ts';

/** A store configuration for one server, and how to remove what it left. */
export interface PreparedStore {
  config: StoreConfig;
  /** Where it lives, for the report: a file path, a Redis key prefix or a Postgres schema. */
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

/** Resolves to null when PostgreSQL (DATABASE_URL, else the local default) answers, else to the reason it does not. */
export async function postgresUnavailable(): Promise<string | null> {
  try {
    await (await openAdminPool(postgresUrlFromEnv())).end();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Why `kind`'s server cannot be reached (Redis, PostgreSQL), or null when it can or needs none. */
export function storeUnavailable(kind: StoreKind): Promise<string | null> {
  if (kind === 'redis') return redisUnavailable();
  if (kind === 'postgres') return postgresUnavailable();
  return Promise.resolve(null);
}

/** Drops the Postgres `schema` at `url`. */
async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const pool = await openAdminPool(url);
  try {
    await dropSchema(pool, schema);
  } finally {
    await pool.end();
  }
}

/** Prepares an empty store of `kind`, unique to this run (`runId`) and configuration (`name`). */
export async function prepareStore(kind: StoreKind, runId: string, name: string): Promise<PreparedStore> {
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
    case 'postgres': {
      // The server creates the schema at start; the name is fresh, so the store starts empty.
      const url = postgresUrlFromEnv();
      const schema = freshSchema();
      return { config: { kind, url, schema }, location: `${redactUrl(url)} schema ${schema}`, cleanup: () => dropPostgresSchema(url, schema) };
    }
  }
}
