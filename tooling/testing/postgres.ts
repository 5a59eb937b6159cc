// Test helper: the PostgreSQL of a test run (DATABASE_URL, else the local default), a fresh schema per run, dropped after.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_POSTGRES_URL } from 'credit402/internal/stores/postgres/postgres-options';
import { quoteIdentifier } from 'credit402/internal/stores/postgres/postgres-schema';

/** The server a run uses: DATABASE_URL, else `postgres://postgres@127.0.0.1:5432/postgres`. */
export function postgresUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL || DEFAULT_POSTGRES_URL;
}

/** A schema name nobody else uses: `credit402_test_<12 hex digits>`. */
export function freshSchema(): string {
  return `credit402_test_${randomBytes(6).toString('hex')}`;
}

/**
 * A small pool on `url` after checking that the server answers; rejects with a message saying what is needed
 * (CI starts PostgreSQL, so a test file fails rather than skips without one).
 */
export async function openAdminPool(url: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000 });
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
    return pool;
  } catch (error) {
    await pool.end().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the Postgres store needs a PostgreSQL server at ${url} (set DATABASE_URL to point elsewhere): ${reason}`, { cause: error });
  }
}

/** Drops `schema` and everything in it, when it exists. */
export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
}

/** The PostgreSQL a run uses. */
export interface RunPostgres {
  url: string;
  /** The schema the run's store creates; dropped by `release`. */
  schema: string;
  /** Drops the run's schema. */
  release(): Promise<void>;
}

/** Checks the server at DATABASE_URL (or the default) and names a fresh schema for the run; `release()` drops it. */
export async function provisionPostgres(env: NodeJS.ProcessEnv = process.env): Promise<RunPostgres> {
  const url = postgresUrlFromEnv(env);
  const schema = freshSchema();
  await (await openAdminPool(url)).end();
  return {
    url,
    schema,
    async release() {
      const pool = await openAdminPool(url);
      try {
        await dropSchema(pool, schema);
      } finally {
        await pool.end();
      }
    },
  };
}
