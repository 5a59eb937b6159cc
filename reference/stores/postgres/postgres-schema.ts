// DDL of the Postgres store (BIGINT money with range CHECKs) and its versioned migration at connect, serialised by an advisory lock.
import type { PoolClient } from 'pg';
import { deductBatchFunction } from './postgres-deduct-batch.ts';
import { postgresFunctions } from './postgres-functions.ts';
import { integerOf, RAW_TEXT } from './postgres-rows.ts';
import { version3 } from './postgres-version3.ts';
import { version4 } from './postgres-version4.ts';
import { version5 } from './postgres-version5.ts';
import { version6 } from './postgres-version6.ts';
import { version7 } from './postgres-version7.ts';
import { version8 } from './postgres-version8.ts';

/** The schema version this code reads and writes. */
export const POSTGRES_SCHEMA_VERSION = 8;

/** How long the migration at connect may wait for another process's migration (it holds the advisory lock). */
const MIGRATION_TIMEOUT_MS = 60_000;

const MAX = '9007199254740991';
const CURRENCY = "text NOT NULL CHECK (currency ~ '^[a-z]{3}$')";

/** `name` as a quoted identifier; names are validated identifiers already, this keeps them exact. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Version 1: the tables and the functions (see postgres-functions.ts). Timestamps the store hands out are ISO text. */
function version1(s: string, name: string): string {
  return `
CREATE TABLE ${s}.clients (
  client_id  text   NOT NULL PRIMARY KEY,
  top_ups    bigint NOT NULL CHECK (top_ups BETWEEN 0 AND ${MAX}),
  created_at text   NOT NULL
);
CREATE TABLE ${s}.balances (
  client_id text   NOT NULL,
  currency  ${CURRENCY},
  balance   bigint NOT NULL CHECK (balance BETWEEN -${MAX} AND ${MAX}),
  PRIMARY KEY (client_id, currency)
);
CREATE TABLE ${s}.credited_payment_intents (
  payment_intent_id text        NOT NULL PRIMARY KEY,
  client_id         text        NOT NULL,
  currency          ${CURRENCY},
  amount            bigint      NOT NULL CHECK (amount BETWEEN 1 AND ${MAX}),
  credited_at       timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${s}.transactions (
  seq               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id                text   NOT NULL,
  type              text   NOT NULL CHECK (type IN ('topup', 'deduction')),
  client_id         text   NOT NULL,
  currency          ${CURRENCY},
  amount            bigint NOT NULL CHECK (amount BETWEEN 0 AND ${MAX}),
  created_at        text   NOT NULL,
  payment_intent_id text,
  resource          text
);
CREATE INDEX transactions_by_client ON ${s}.transactions (client_id, seq);
CREATE TABLE ${s}.reversals (
  payment_intent_id text        NOT NULL,
  reversal_key      text        NOT NULL,
  amount            bigint      NOT NULL CHECK (amount BETWEEN 1 AND ${MAX}),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (payment_intent_id, reversal_key)
);
CREATE TABLE ${s}.processed_events (
  event_id     text        NOT NULL PRIMARY KEY,
  processed_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${s}.locks (
  name       text   NOT NULL PRIMARY KEY,
  token      text   NOT NULL,
  expires_at bigint NOT NULL
);
CREATE TABLE ${s}.deduction_requests (
  client_id   text    NOT NULL,
  request_id  text    NOT NULL,
  fingerprint text    NOT NULL,
  repeated    boolean NOT NULL,
  expires_at  bigint  NOT NULL,
  PRIMARY KEY (client_id, request_id)
);
CREATE INDEX deduction_requests_by_expiry ON ${s}.deduction_requests (expires_at);
${postgresFunctions(s, name)}
`;
}

/** Version 2: `deduct_batch`, the group commit of deductions (postgres-deduct-batch.ts). */
function version2(s: string): string {
  return deductBatchFunction(s);
}

/** The migrations in order: entry i brings the schema from version i to version i + 1. */
const MIGRATIONS: ReadonlyArray<(s: string, name: string) => string> = [version1, version2, version3, version4, version5, version6, version7, version8];

/**
 * Brings the schema `name` to {@link POSTGRES_SCHEMA_VERSION} on `client`, in one transaction that first takes an
 * advisory lock on the schema's name: processes starting together queue there, and each later one finds the schema
 * current. Creates the schema when missing, records each applied version in `schema_version`, and refuses a schema
 * newer than this code. A failure rolls everything back.
 */
export async function migratePostgresSchema(client: PoolClient, name: string): Promise<void> {
  const s = quoteIdentifier(name);
  const query = (text: string, values: unknown[] = []) => client.query<Record<string, unknown>>({ text, values, types: RAW_TEXT });
  await query('BEGIN');
  try {
    await query(`SET LOCAL statement_timeout = ${MIGRATION_TIMEOUT_MS}`);
    await query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`credit402:migrate:${name}`]);
    const exists = await query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name]);
    if (exists.rows.length === 0) await query(`CREATE SCHEMA ${s}`);
    await query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (
      version    integer     NOT NULL PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const [row] = (await query(`SELECT COALESCE(max(version), 0)::bigint AS version FROM ${s}.schema_version`)).rows;
    const version = row === undefined ? 0 : integerOf(row, 'version');
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new Error(`PostgresStore: the schema ${name} is at version ${version}, newer than this code's ${POSTGRES_SCHEMA_VERSION}; upgrade credit402`);
    }
    for (let next = version; next < POSTGRES_SCHEMA_VERSION; next++) {
      const migration = MIGRATIONS[next];
      if (migration === undefined) throw new Error(`PostgresStore: no migration from schema version ${next}`);
      await query(migration(s, name));
      await query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [next + 1]);
    }
    await query('COMMIT');
  } catch (error) {
    await query('ROLLBACK').catch(() => {});
    throw error;
  }
}
