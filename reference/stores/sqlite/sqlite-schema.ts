// DDL of the SQLite store (64-bit INTEGER columns, STRICT tables) and its versioned, in-place migration at open.
import type Database from 'better-sqlite3';

/** Table names for one prefix. */
export interface SqliteTables {
  /** One row per prefix: the schema version of this prefix's tables. */
  schemaVersion: string;
  clients: string;
  /** Balance per (client, currency) (schema 2). */
  balances: string;
  creditedPaymentIntents: string;
  transactions: string;
  reversals: string;
  processedEvents: string;
  locks: string;
  /** Kept deductions per (client, request id), for idempotent deductions (schema 2). */
  deductionRequests: string;
  /** One row: the store's id, random, made with the tables (schema 3). */
  store: string;
  /** Applied refunds per (client, refund id), kept until they expire, so that a refund applies once (schema 4). */
  refunds: string;
}

/**
 * The schema this code reads and writes: 2 = balances per currency and kept request ids (schema 1 had one balance per
 * client); 3 = the store's id; 4 = applied refund ids; 5 = claims of a kept request id's repeat.
 */
export const SQLITE_SCHEMA_VERSION = 5;

const PREFIX_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX = '9007199254740991';
const CURRENCY_CHECK = "CHECK (currency GLOB '[a-z][a-z][a-z]')";

/** Table names for `prefix`; throws a TypeError when the prefix is not a plain SQL identifier. */
export function sqliteTables(prefix: string): SqliteTables {
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new TypeError(`tablePrefix must match ${PREFIX_PATTERN}, got ${JSON.stringify(prefix)}`);
  }
  return {
    schemaVersion: `${prefix}schema_version`,
    clients: `${prefix}clients`,
    balances: `${prefix}balances`,
    creditedPaymentIntents: `${prefix}credited_payment_intents`,
    transactions: `${prefix}transactions`,
    reversals: `${prefix}reversals`,
    processedEvents: `${prefix}processed_events`,
    locks: `${prefix}locks`,
    deductionRequests: `${prefix}deduction_requests`,
    store: `${prefix}store`,
    refunds: `${prefix}refunds`,
  };
}

/** Tables that schema 2 adds, and that the migration from schema 1 creates as they are. */
function addedInVersion2(t: SqliteTables): string {
  return `
    CREATE TABLE ${t.schemaVersion} (
      version INTEGER NOT NULL PRIMARY KEY
    ) STRICT;
    CREATE TABLE ${t.balances} (
      client_id TEXT    NOT NULL,
      currency  TEXT    NOT NULL ${CURRENCY_CHECK},
      balance   INTEGER NOT NULL CHECK (balance BETWEEN -${MAX} AND ${MAX}),
      PRIMARY KEY (client_id, currency)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE ${t.deductionRequests} (
      client_id   TEXT    NOT NULL,
      request_id  TEXT    NOT NULL,
      fingerprint TEXT    NOT NULL,
      repeated    INTEGER NOT NULL CHECK (repeated IN (0, 1)),
      expires_at  INTEGER NOT NULL,
      PRIMARY KEY (client_id, request_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX ${t.deductionRequests}_by_expiry ON ${t.deductionRequests} (expires_at);
  `;
}

/** What schema 3 adds: the store's id, 32 random hex digits made here, once (CR-7.16). */
function addedInVersion3(t: SqliteTables): string {
  return `
    CREATE TABLE ${t.store} (
      id TEXT NOT NULL PRIMARY KEY
    ) STRICT;
    INSERT INTO ${t.store} (id) VALUES (lower(hex(randomblob(16))));
  `;
}

/** What schema 4 adds: the ids of applied refunds, each kept until `expires_at` (ms since the epoch). */
function addedInVersion4(t: SqliteTables): string {
  return `
    CREATE TABLE ${t.refunds} (
      client_id  TEXT    NOT NULL,
      refund_id  TEXT    NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (client_id, refund_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX ${t.refunds}_by_expiry ON ${t.refunds} (expires_at);
  `;
}

/**
 * What schema 5 adds: the claim of a kept request id's one repeat (CR-6.9), the claiming call's id and until when the
 * claim holds (ms since the epoch); both null while nobody claimed it.
 */
function addedInVersion5(t: SqliteTables): string {
  return `
    ALTER TABLE ${t.deductionRequests} ADD COLUMN claim_id TEXT;
    ALTER TABLE ${t.deductionRequests} ADD COLUMN claim_until INTEGER;
  `;
}

/** Schema 5 from scratch. SQLite INTEGER is a signed 64-bit value. */
export function sqliteSchema(t: SqliteTables): string {
  return `
    CREATE TABLE ${t.clients} (
      client_id  TEXT    NOT NULL PRIMARY KEY,
      top_ups    INTEGER NOT NULL CHECK (top_ups BETWEEN 0 AND ${MAX}),
      created_at TEXT    NOT NULL
    ) STRICT;
    CREATE TABLE ${t.creditedPaymentIntents} (
      payment_intent_id TEXT    NOT NULL PRIMARY KEY,
      client_id         TEXT    NOT NULL,
      amount            INTEGER NOT NULL,
      credited_at       TEXT    NOT NULL,
      currency          TEXT    NOT NULL ${CURRENCY_CHECK}
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE ${t.transactions} (
      seq               INTEGER NOT NULL PRIMARY KEY,
      id                TEXT    NOT NULL,
      type              TEXT    NOT NULL CHECK (type IN ('topup', 'deduction')),
      client_id         TEXT    NOT NULL,
      amount            INTEGER NOT NULL CHECK (amount >= 0),
      created_at        TEXT    NOT NULL,
      payment_intent_id TEXT,
      resource          TEXT,
      currency          TEXT    NOT NULL ${CURRENCY_CHECK}
    ) STRICT;
    CREATE INDEX ${t.transactions}_by_client ON ${t.transactions} (client_id, seq);
    CREATE TABLE ${t.reversals} (
      payment_intent_id TEXT    NOT NULL,
      reversal_key      TEXT    NOT NULL,
      amount            INTEGER NOT NULL CHECK (amount BETWEEN 1 AND ${MAX}),
      updated_at        TEXT    NOT NULL,
      PRIMARY KEY (payment_intent_id, reversal_key)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE ${t.processedEvents} (
      event_id     TEXT NOT NULL PRIMARY KEY,
      processed_at TEXT NOT NULL
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE ${t.locks} (
      name       TEXT    NOT NULL PRIMARY KEY,
      token      TEXT    NOT NULL,
      expires_at INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;
    ${addedInVersion2(t)}
    ${addedInVersion3(t)}
    ${addedInVersion4(t)}
    ${addedInVersion5(t)}
    INSERT INTO ${t.schemaVersion} (version) VALUES (${SQLITE_SCHEMA_VERSION});
  `;
}

/**
 * Schema 1 → 2, in place: each client's one balance becomes its balance in `legacyCurrency` (a zero balance is
 * left absent, which reads the same), and the transaction records and credited markers written so far get that
 * currency (`ADD COLUMN … DEFAULT`: existing rows are not rewritten, so a long log migrates at once).
 * `legacyCurrency` was validated as three lowercase letters, so it is safe inside the DDL.
 */
function migrateFrom1(t: SqliteTables, legacyCurrency: string): string {
  const currency = `currency TEXT NOT NULL DEFAULT '${legacyCurrency}' ${CURRENCY_CHECK}`;
  return `
    ${addedInVersion2(t)}
    INSERT INTO ${t.balances} (client_id, currency, balance)
      SELECT client_id, '${legacyCurrency}', balance FROM ${t.clients} WHERE balance <> 0;
    ALTER TABLE ${t.clients} DROP COLUMN balance;
    ALTER TABLE ${t.creditedPaymentIntents} ADD COLUMN ${currency};
    ALTER TABLE ${t.transactions} ADD COLUMN ${currency};
    INSERT INTO ${t.schemaVersion} (version) VALUES (2);
  `;
}

/** Schema 2 → 3: the store's id, made now (a store that had none gets one; charges made before it keep their keys). */
function migrateFrom2(t: SqliteTables): string {
  return `
    ${addedInVersion3(t)}
    INSERT INTO ${t.schemaVersion} (version) VALUES (3);
  `;
}

/** Schema 3 → 4: the table of applied refund ids, empty (no refund before it had an id). */
function migrateFrom3(t: SqliteTables): string {
  return `
    ${addedInVersion4(t)}
    INSERT INTO ${t.schemaVersion} (version) VALUES (4);
  `;
}

/** Schema 4 → 5: the claim columns of kept request ids, null (a repeat answered before it was used at once). */
function migrateFrom4(t: SqliteTables): string {
  return `
    ${addedInVersion5(t)}
    INSERT INTO ${t.schemaVersion} (version) VALUES (5);
  `;
}

/**
 * Brings the tables of `t` to {@link SQLITE_SCHEMA_VERSION}: creates them when there are none, migrates schema 1
 * (the tables without a version table, created before balances had a currency), schema 2 (no store id), schema 3
 * (no refund ids) and schema 4 (no repeat claims) in place, and leaves schema 5 as it is. Everything happens in one IMMEDIATE transaction that first reads the version, so two processes opening
 * the file at once agree: the second waits for the first's write lock, then finds the tables current. A failed
 * migration rolls back entirely and the constructor throws. A newer schema than this code knows is refused.
 */
export function openSqliteSchema(db: Database.Database, t: SqliteTables, legacyCurrency: string): void {
  db.transaction(() => {
    const version = schemaVersion(db, t);
    if (version === SQLITE_SCHEMA_VERSION) return;
    if (version > SQLITE_SCHEMA_VERSION) {
      throw new Error(`SqliteStore: the tables ${t.clients}… are at schema ${version}, newer than this code's ${SQLITE_SCHEMA_VERSION}; upgrade credit402`);
    }
    if (version === 0) {
      db.exec(sqliteSchema(t));
      return;
    }
    if (version === 1) {
      completeVersion1(db, t);
      db.exec(migrateFrom1(t, legacyCurrency));
    }
    if (version <= 2) db.exec(migrateFrom2(t));
    if (version <= 3) db.exec(migrateFrom3(t));
    db.exec(migrateFrom4(t));
  }).immediate();
}

/** 0 when there are no tables, 1 for the tables before versioning (a clients table and no version table), else the stored version. */
function schemaVersion(db: Database.Database, t: SqliteTables): number {
  const exists = (name: string) =>
    db.prepare<[string], { one: bigint | number }>("SELECT 1 AS one FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
  if (exists(t.schemaVersion)) {
    const row = db.prepare<[], { version: bigint | number }>(`SELECT max(version) AS version FROM ${t.schemaVersion}`).get();
    return Number(row?.version ?? 0);
  }
  return exists(t.clients) ? 1 : 0;
}

/** Creates the schema 1 tables a schema 1 database lacks (all were created together, but be lenient), so the migration finds them. */
function completeVersion1(db: Database.Database, t: SqliteTables): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${t.creditedPaymentIntents} (
      payment_intent_id TEXT NOT NULL PRIMARY KEY, client_id TEXT NOT NULL, amount INTEGER NOT NULL, credited_at TEXT NOT NULL
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.transactions} (
      seq INTEGER NOT NULL PRIMARY KEY, id TEXT NOT NULL, type TEXT NOT NULL CHECK (type IN ('topup', 'deduction')),
      client_id TEXT NOT NULL, amount INTEGER NOT NULL CHECK (amount >= 0), created_at TEXT NOT NULL,
      payment_intent_id TEXT, resource TEXT
    ) STRICT;
    CREATE INDEX IF NOT EXISTS ${t.transactions}_by_client ON ${t.transactions} (client_id, seq);
    CREATE TABLE IF NOT EXISTS ${t.reversals} (
      payment_intent_id TEXT NOT NULL, reversal_key TEXT NOT NULL,
      amount INTEGER NOT NULL CHECK (amount BETWEEN 1 AND ${MAX}), updated_at TEXT NOT NULL,
      PRIMARY KEY (payment_intent_id, reversal_key)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.processedEvents} (event_id TEXT NOT NULL PRIMARY KEY, processed_at TEXT NOT NULL) STRICT, WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.locks} (name TEXT NOT NULL PRIMARY KEY, token TEXT NOT NULL, expires_at INTEGER NOT NULL) STRICT, WITHOUT ROWID;
  `);
}
