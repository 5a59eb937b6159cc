// DDL of the SQLite store: 64-bit INTEGER columns in STRICT tables, created when missing.

/** Table names for one prefix. */
export interface SqliteTables {
  clients: string;
  creditedPaymentIntents: string;
  transactions: string;
}

const PREFIX_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Table names for `prefix`; throws a TypeError when the prefix is not a plain SQL identifier. */
export function sqliteTables(prefix: string): SqliteTables {
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new TypeError(`tablePrefix must match ${PREFIX_PATTERN}, got ${JSON.stringify(prefix)}`);
  }
  return {
    clients: `${prefix}clients`,
    creditedPaymentIntents: `${prefix}credited_payment_intents`,
    transactions: `${prefix}transactions`,
  };
}

/** `CREATE … IF NOT EXISTS` statements for the tables. SQLite INTEGER is a signed 64-bit value. */
export function sqliteSchema(t: SqliteTables): string {
  return `
    CREATE TABLE IF NOT EXISTS ${t.clients} (
      client_id  TEXT    NOT NULL PRIMARY KEY,
      balance    INTEGER NOT NULL CHECK (balance BETWEEN 0 AND 9007199254740991),
      top_ups    INTEGER NOT NULL CHECK (top_ups BETWEEN 0 AND 9007199254740991),
      created_at TEXT    NOT NULL
    ) STRICT;
    CREATE TABLE IF NOT EXISTS ${t.creditedPaymentIntents} (
      payment_intent_id TEXT    NOT NULL PRIMARY KEY,
      client_id         TEXT    NOT NULL,
      amount            INTEGER NOT NULL,
      credited_at       TEXT    NOT NULL
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.transactions} (
      seq               INTEGER NOT NULL PRIMARY KEY,
      id                TEXT    NOT NULL UNIQUE,
      type              TEXT    NOT NULL CHECK (type IN ('topup', 'deduction')),
      client_id         TEXT    NOT NULL,
      amount            INTEGER NOT NULL CHECK (amount >= 0),
      created_at        TEXT    NOT NULL,
      payment_intent_id TEXT,
      resource          TEXT
    ) STRICT;
    CREATE INDEX IF NOT EXISTS ${t.transactions}_by_client ON ${t.transactions} (client_id, seq);
  `;
}
