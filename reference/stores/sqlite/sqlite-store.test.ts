// Runs the store conformance suite against SqliteStore, plus cross-connection and cross-process atomicity and the schema migration.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { closeSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
import { describeStoreConformance } from '../conformance/store-conformance.ts';
import { balanceOf, expectFailure, newClientId, newPaymentIntentId } from '../conformance/store-conformance-helpers.ts';
import { watchEventLoop, writeLockScope } from 'credit402-tooling/testing/sqlite-lock';
import type { Store } from '../store.ts';

const dir = mkdtempSync(join(tmpdir(), 'credit402-sqlite-'));
let files = 0;
const newPath = () => join(dir, `store-${++files}.db`);
const removeDatabase = async (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Deducts `amount` units of usd without a record or request id; resolves the new balance or null. */
const deduct = async (store: Store, clientId: string, amount: number): Promise<number | null> => {
  const result = await store.deductBalance({ clientId, currency: 'usd', amount });
  return result.status === 'deducted' ? result.balance : null;
};
const usd = async (store: Store, clientId: string): Promise<number | undefined> => (await store.getClient(clientId))?.balances.usd;

const paths = new WeakMap<object, string>();
const openTracked = async (options: Partial<ConstructorParameters<typeof SqliteStore>[0]> = {}) => {
  const path = newPath();
  const store = new SqliteStore({ path, ...options });
  paths.set(store, path);
  return store;
};
const removeTracked = async (store: object) => removeDatabase(paths.get(store) ?? '');

/** Opens stores on a given file inside a describe block; each is closed after its test, or by `closeAll`. */
function useStoresOn() {
  const open: SqliteStore[] = [];
  const closeAll = async (): Promise<void> => {
    for (const store of open.splice(0)) await store.close();
  };
  afterEach(closeAll);
  const openOn = (path: string, options: Omit<SqliteStoreOptions, 'path'> = {}): SqliteStore => {
    const store = new SqliteStore({ path, ...options });
    open.push(store);
    return store;
  };
  return { openOn, closeAll };
}

/** Opens another store on the file of `store`, tracked like it (the store id cases reopen a file). */
const reopenTracked = async (store: object) => {
  const path = paths.get(store) ?? '';
  const again = new SqliteStore({ path });
  paths.set(again, path);
  return again;
};

/** Empties every table of the file of `store` but the schema version, from another connection, while the store stays open. */
const emptyTables = async (store: object): Promise<void> => {
  const db = new Database(paths.get(store) ?? '');
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'credit402%' AND name <> 'credit402_schema_version'").all();
    db.transaction(() => {
      for (const { name } of tables) db.exec(`DELETE FROM "${name}"`);
    }).immediate();
  } finally {
    db.close();
  }
};

describeStoreConformance('SqliteStore', () => openTracked(), removeTracked, { fresh: () => openTracked(), reopen: reopenTracked, cleanup: removeTracked, reset: emptyTables });
describeStoreConformance('SqliteStore without log', () => openTracked({ recordTransactions: false }), removeTracked);
describeStoreConformance('SqliteStore :memory:', async () => new SqliteStore({ path: ':memory:' }));

describe('SqliteStore on a shared file', () => {
  const { openOn, closeAll } = useStoresOn();

  it('uses WAL, 64-bit INTEGER columns and schema version 5', () => {
    const path = newPath();
    openOn(path);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const columns = (table: string) => db.prepare(`SELECT name, type FROM pragma_table_info('${table}')`).all();
    expect(columns('credit402_balances')).toContainEqual({ name: 'balance', type: 'INTEGER' });
    expect(columns('credit402_clients')).toContainEqual({ name: 'top_ups', type: 'INTEGER' });
    expect(columns('credit402_deduction_requests')).toContainEqual({ name: 'expires_at', type: 'INTEGER' });
    expect(columns('credit402_refunds')).toContainEqual({ name: 'expires_at', type: 'INTEGER' });
    expect(db.prepare('SELECT version FROM credit402_schema_version').all()).toEqual([{ version: 5 }]);
    db.close();
  });

  it('never overdraws through two connections deducting concurrently', async () => {
    const path = newPath();
    const [a, b] = [openOn(path), openOn(path)];
    const id = newClientId();
    await a.addBalance(id, 'usd', 100);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => deduct(i % 2 ? a : b, id, 1)));
    expect(results.filter((r) => r !== null)).toHaveLength(100);
    expect(await usd(b, id)).toBe(0);
  });

  it('credits a PaymentIntent once across connections and reopenings, keeping balances on disk (CR-11.10)', async () => {
    const path = newPath();
    const credit = { clientId: newClientId(), currency: 'usd', amount: 50, paymentIntentId: newPaymentIntentId() };
    expect((await openOn(path).creditTopUp(credit)).credited).toBe(true);
    expect(await openOn(path).creditTopUp(credit)).toEqual({ credited: false, balance: 50 });
    await closeAll();
    const reopened = openOn(path);
    expect(await reopened.creditTopUp(credit)).toEqual({ credited: false, balance: 50 });
    expect(await reopened.getClient(credit.clientId)).toMatchObject({ balances: { usd: 50 }, topUps: 1 });
  });

  it('never overdraws across processes', async () => {
    const path = newPath();
    const id = newClientId();
    await openOn(path).addBalance(id, 'usd', 100);
    const successes = await runWorkers(path, id, 4, 60);
    expect(successes.reduce((sum, n) => sum + n, 0)).toBe(100);
    expect(await usd(openOn(path), id)).toBe(0);
  }, 60_000);

  it('answers a request id once across connections: one deduction, one repeat, then conflicts (CR-6.9)', async () => {
    const path = newPath();
    const [a, b] = [openOn(path), openOn(path)];
    const id = newClientId();
    await a.addBalance(id, 'usd', 100);
    const request = { id: 'req-1', fingerprint: 'GET /x usd 10', ttlMs: 60_000 };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? a : b).deductBalance({ clientId: id, currency: 'usd', amount: 10, request })));
    expect(results.filter((r) => r.status === 'deducted')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'repeated')).toEqual([{ status: 'repeated', balance: 90 }]);
    expect(results.filter((r) => r.status === 'conflict')).toHaveLength(18);
    expect(await usd(a, id)).toBe(90);
  });

  it('deletes expired request ids as new ones are kept, a bounded batch at a time, using an index on expires_at', async () => {
    const path = newPath();
    const store = openOn(path);
    const id = newClientId();
    await store.addBalance(id, 'usd', 1_000);
    const keep = (requestId: string, ttlMs: number) =>
      store.deductBalance({ clientId: id, currency: 'usd', amount: 1, request: { id: requestId, fingerprint: 'f', ttlMs } });
    expect(await keep('short', 1)).toMatchObject({ status: 'deducted' });
    const db = new Database(path);
    const insert = db.prepare("INSERT INTO credit402_deduction_requests VALUES (?, ?, 'f', 0, 1, NULL, NULL)");
    db.transaction(() => { for (let i = 0; i < 249; i++) insert.run(id, `expired-${i}`); })();
    await sleep(5);
    const kept = () => (db.prepare('SELECT count(*) AS n FROM credit402_deduction_requests').get() as { n: number }).n;
    expect(kept()).toBe(250);
    // Each kept deduction first deletes at most 100 expired ids, oldest first.
    await keep('a', 60_000);
    expect(kept()).toBe(151);
    await keep('b', 60_000);
    expect(kept()).toBe(52);
    await keep('c', 60_000);
    expect(kept()).toBe(3);
    expect(await keep('short', 60_000)).toMatchObject({ status: 'deducted' }); // an expired id is free again
    expect(await keep('a', 60_000)).toEqual({ status: 'repeated', balance: 995 });
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT client_id FROM credit402_deduction_requests WHERE expires_at <= 1 ORDER BY expires_at LIMIT 100').all();
    expect(JSON.stringify(plan)).toContain('credit402_deduction_requests_by_expiry');
    db.close();
  });

  it('grants a lease to one connection at a time', async () => {
    const path = newPath();
    const [a, b] = [openOn(path), openOn(path)];
    const token = await a.acquireLock('payment:x', 10_000);
    expect(token).not.toBeNull();
    expect(await b.acquireLock('payment:x', 10_000)).toBeNull();
    expect(await b.releaseLock('payment:x', 'other')).toBe(false);
    expect(await a.releaseLock('payment:x', token!)).toBe(true);
    expect(await b.acquireLock('payment:x', 10_000)).not.toBeNull();
  });

  it('keeps table prefixes apart and rejects unsafe ones', async () => {
    const path = newPath();
    const id = newClientId();
    await openOn(path).addBalance(id, 'usd', 5);
    expect(await openOn(path, { tablePrefix: 'other_' }).getClient(id)).toBeNull();
    expect(() => new SqliteStore({ path, tablePrefix: 'x; DROP TABLE y' })).toThrow(TypeError);
  });

  it('writes no transaction rows when recordTransactions is false', async () => {
    const path = newPath();
    const store = openOn(path, { recordTransactions: false });
    expect(store.recordTransaction).toBeUndefined();
    expect(store.listTransactions).toBeUndefined();
    await store.creditTopUp({ clientId: newClientId(), currency: 'usd', amount: 1, paymentIntentId: newPaymentIntentId() });
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM credit402_transactions').get()).toEqual({ n: 0 });
    db.close();
  });

  it('rejects with a RangeError, not a rounded number, when a stored value passes 2^53 - 1', async () => {
    const path = newPath();
    await new SqliteStore({ path }).close();
    const db = new Database(path);
    db.pragma('ignore_check_constraints = ON'); // a value the CHECK would refuse, as a hand-edited file could hold
    db.prepare('INSERT INTO credit402_clients VALUES (?, 0, ?)').run('big', new Date().toISOString());
    db.prepare("INSERT INTO credit402_balances VALUES (?, 'usd', ?)").run('big', 2n ** 53n + 1n);
    db.close();
    const store = openOn(path);
    await expectFailure(() => store.getClient('big'), RangeError);
    await expect(store.deductBalance({ clientId: 'big', currency: 'usd', amount: 1 })).rejects.toThrow();
    await expect(store.creditTopUp({ clientId: 'big', currency: 'usd', amount: 1, paymentIntentId: newPaymentIntentId() })).rejects.toThrow();
    const check = new Database(path, { readonly: true });
    check.defaultSafeIntegers(true);
    expect(check.prepare("SELECT balance FROM credit402_balances WHERE client_id = 'big'").get()).toEqual({ balance: 2n ** 53n + 1n });
    check.close();
  });
});

describe('SqliteStore while another process holds the write lock (item 9: never wait inside better-sqlite3)', () => {
  const scope = writeLockScope();
  const lockedStore = async (options: Omit<SqliteStoreOptions, 'path'> = {}) => {
    const path = newPath();
    const store = scope.open(new SqliteStore({ path, ...options }));
    const id = newClientId();
    await store.addBalance(id, 'usd', 10);
    return { store, id, holder: await scope.hold(path) };
  };

  it('keeps the event loop free, then rejects with ERR_SQLITE_BUSY after busyTimeoutMs (default 250), changing nothing', async () => {
    const { store, id, holder } = await lockedStore();
    const lag = watchEventLoop();
    const started = Date.now();
    const error = await deduct(store, id, 1).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    const worstLagMs = lag.stop();
    expect(error).toMatchObject({ name: 'SqliteStoreError', code: 'ERR_SQLITE_BUSY' });
    expect(elapsed).toBeGreaterThanOrEqual(240);
    expect(elapsed).toBeLessThan(1_000);
    expect(worstLagMs).toBeLessThan(100); // was: the whole busy_timeout (5 s) in one synchronous call
    await holder.release();
    expect(await usd(store, id)).toBe(10);
  });

  it('reads while the lock is held (WAL), and a write goes through once the lock is released within busyTimeoutMs', async () => {
    const { store, id, holder } = await lockedStore({ busyTimeoutMs: 2_000 });
    expect(await usd(store, id)).toBe(10);
    const deduction = deduct(store, id, 1);
    await sleep(150);
    await holder.release();
    expect(await deduction).toBe(9);
  });
});

describe('SqliteStore checks its file (item 15)', () => {
  const open: SqliteStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('CR-11.11 refuses to open a database it cannot write (ERR_SQLITE_NOT_WRITABLE), instead of failing every write later', async () => {
    const path = newPath();
    await new SqliteStore({ path }).close();
    makeReadOnly(path);
    expect(() => open.push(new SqliteStore({ path }))).toThrow(expect.objectContaining({ code: 'ERR_SQLITE_NOT_WRITABLE' }));
  });

  it('CR-11.11 fails every call with ERR_SQLITE_FILE_LOST once its file is deleted, and reports it once', async () => {
    const path = newPath();
    const lost: Error[] = [];
    const store = new SqliteStore({ path, fileCheckIntervalMs: 20, onFileLost: (error) => lost.push(error) });
    open.push(store);
    const id = newClientId();
    await store.addBalance(id, 'usd', 10);
    await removeDatabase(path);
    await sleep(100);
    await expect(deduct(store, id, 1)).rejects.toMatchObject({ code: 'ERR_SQLITE_FILE_LOST' });
    await expect(store.getClient(id)).rejects.toMatchObject({ code: 'ERR_SQLITE_FILE_LOST' });
    expect(lost).toHaveLength(1);
    expect(lost[0]?.message).toContain(`${path} was deleted`);
    // What the connection still had is copied next to it, so the balances are not lost with the file.
    const copy = /written to (\S+):/.exec(lost[0]!.message)?.[1];
    expect(copy).toBeDefined();
    const rescued = new SqliteStore({ path: copy! });
    open.push(rescued);
    expect(await usd(rescued, id)).toBe(10);
  });

  it('notices a replaced file on the next call even between two periodic checks', async () => {
    const path = newPath();
    const store = new SqliteStore({ path, fileCheckIntervalMs: 50, onFileLost: () => {} });
    open.push(store);
    const id = newClientId();
    await store.addBalance(id, 'usd', 10);
    const other = newPath();
    await new SqliteStore({ path: other }).close();
    renameSync(other, path);
    await sleep(60);
    await expect(store.addBalance(id, 'usd', 1)).rejects.toMatchObject({ code: 'ERR_SQLITE_FILE_LOST', message: expect.stringContaining('was replaced') });
  });

  it('CR-14.13 checks the file before every credit, not only every fileCheckIntervalMs: a credit never goes to a replaced file', async () => {
    const path = newPath();
    const store = new SqliteStore({ path, fileCheckIntervalMs: 3_600_000, onFileLost: () => {} });
    open.push(store);
    const clientId = newClientId();
    const storeId = await store.getStoreId();
    await store.creditTopUp({ clientId, currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId(), storeId });
    const other = newPath();
    await new SqliteStore({ path: other }).close();
    renameSync(other, path);
    const credit = { clientId, currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId(), storeId };
    await expect(store.creditTopUp(credit)).rejects.toMatchObject({ code: 'ERR_SQLITE_FILE_LOST', message: expect.stringContaining('was replaced') });
  });

  it('CR-14.13 takes a new id when only its store row is deleted, and refuses a credit under the old one', async () => {
    const path = newPath();
    const store = new SqliteStore({ path });
    open.push(store);
    const old = await store.getStoreId();
    const admin = new Database(path);
    admin.exec('DELETE FROM credit402_store');
    admin.close();
    const credit = { clientId: newClientId(), currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId() };
    await expect(store.creditTopUp({ ...credit, storeId: old })).rejects.toMatchObject({ code: 'ERR_STORE_RESET' });
    const fresh = await store.getStoreId();
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe(old);
    const again = new SqliteStore({ path });
    open.push(again);
    expect(await again.getStoreId()).toBe(fresh);
    expect(await store.creditTopUp({ ...credit, storeId: fresh })).toEqual({ credited: true, balance: 10 });
  });

  it('does not watch an in-memory database', async () => {
    const store = new SqliteStore({ path: ':memory:', fileCheckIntervalMs: 1 });
    open.push(store);
    await sleep(5);
    await store.addBalance(newClientId(), 'usd', 1);
  });
});

/** The DDL of schema 1 (before balances per currency), as `git show HEAD:reference/stores/sqlite/sqlite-schema.ts` had it. */
const SCHEMA_1 = (p: string) => `
  CREATE TABLE IF NOT EXISTS ${p}clients (
    client_id  TEXT    NOT NULL PRIMARY KEY,
    balance    INTEGER NOT NULL CHECK (balance BETWEEN -9007199254740991 AND 9007199254740991),
    top_ups    INTEGER NOT NULL CHECK (top_ups BETWEEN 0 AND 9007199254740991),
    created_at TEXT    NOT NULL
  ) STRICT;
  CREATE TABLE IF NOT EXISTS ${p}credited_payment_intents (
    payment_intent_id TEXT    NOT NULL PRIMARY KEY,
    client_id         TEXT    NOT NULL,
    amount            INTEGER NOT NULL,
    credited_at       TEXT    NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS ${p}transactions (
    seq               INTEGER NOT NULL PRIMARY KEY,
    id                TEXT    NOT NULL,
    type              TEXT    NOT NULL CHECK (type IN ('topup', 'deduction')),
    client_id         TEXT    NOT NULL,
    amount            INTEGER NOT NULL CHECK (amount >= 0),
    created_at        TEXT    NOT NULL,
    payment_intent_id TEXT,
    resource          TEXT
  ) STRICT;
  CREATE INDEX IF NOT EXISTS ${p}transactions_by_client ON ${p}transactions (client_id, seq);
  CREATE TABLE IF NOT EXISTS ${p}reversals (
    payment_intent_id TEXT    NOT NULL,
    reversal_key      TEXT    NOT NULL,
    amount            INTEGER NOT NULL CHECK (amount BETWEEN 1 AND 9007199254740991),
    updated_at        TEXT    NOT NULL,
    PRIMARY KEY (payment_intent_id, reversal_key)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS ${p}processed_events (
    event_id     TEXT NOT NULL PRIMARY KEY,
    processed_at TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS ${p}locks (
    name       TEXT    NOT NULL PRIMARY KEY,
    token      TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
`;

/** What a schema 1 store wrote for one client: a top-up of 500 (credited marker and record), then a deduction of 20. */
interface LegacyClient { clientId: string; paymentIntentId: string; createdAt: string }

/** Creates a database file in schema 1 holding `clients` (balance 480, one top-up each) and, optionally, `extraBalance` rows. */
function writeSchema1(path: string, clients: LegacyClient[], prefix = 'credit402_'): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA_1(prefix));
  for (const { clientId, paymentIntentId, createdAt } of clients) {
    db.prepare(`INSERT INTO ${prefix}clients (client_id, balance, top_ups, created_at) VALUES (?, 480, 1, ?)`).run(clientId, createdAt);
    db.prepare(`INSERT INTO ${prefix}credited_payment_intents VALUES (?, ?, 500, ?)`).run(paymentIntentId, clientId, createdAt);
    db.prepare(`INSERT INTO ${prefix}transactions (id, type, client_id, amount, created_at, payment_intent_id, resource) VALUES (?, 'topup', ?, 500, ?, ?, NULL)`)
      .run(`t-${clientId}-1`, clientId, createdAt, paymentIntentId);
    db.prepare(`INSERT INTO ${prefix}transactions (id, type, client_id, amount, created_at, payment_intent_id, resource) VALUES (?, 'deduction', ?, 20, ?, NULL, 'GET /x')`)
      .run(`t-${clientId}-2`, clientId, createdAt);
  }
  db.close();
}

// Dated yesterday: within the log's retention (90 days), so the deductions of the tests prune none of its records.
const legacyClient = (): LegacyClient => ({ clientId: newClientId(), paymentIntentId: newPaymentIntentId(), createdAt: new Date(Date.now() - 86_400_000).toISOString() });

describe('SqliteStore migrates schema 1 (one balance per client) in place (CR-6.8)', () => {
  const { openOn } = useStoresOn();
  const version = (path: string, prefix = 'credit402_') => {
    const db = new Database(path, { readonly: true });
    try {
      const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = ?").get(`${prefix}schema_version`);
      return table === undefined ? 1 : (db.prepare(`SELECT max(version) AS version FROM ${prefix}schema_version`).get() as { version: number }).version;
    } finally {
      db.close();
    }
  };

  it('turns balances, records and credited markers into legacyCurrency ones, and keeps them working', async () => {
    const path = newPath();
    const old = legacyClient();
    writeSchema1(path, [old]);
    const store = openOn(path, { legacyCurrency: 'eur' });
    expect(version(path)).toBe(5);
    expect(await store.getStoreId()).toMatch(/^[0-9a-f]{32}$/);
    expect(await store.getClient(old.clientId)).toEqual({ balances: { eur: 480 }, topUps: 1, createdAt: old.createdAt });
    expect(await store.listTransactions?.(old.clientId)).toEqual([
      { id: `t-${old.clientId}-1`, type: 'topup', clientId: old.clientId, currency: 'eur', amount: 500, createdAt: old.createdAt, paymentIntentId: old.paymentIntentId },
      { id: `t-${old.clientId}-2`, type: 'deduction', clientId: old.clientId, currency: 'eur', amount: 20, createdAt: old.createdAt, resource: 'GET /x' },
    ]);
    expect(await store.hasCredit(old.paymentIntentId)).toBe(true);
    expect(await store.creditTopUp({ clientId: old.clientId, currency: 'eur', amount: 500, paymentIntentId: old.paymentIntentId }))
      .toEqual({ credited: false, balance: 480 });
    expect(await store.reverseTopUp({ paymentIntentId: old.paymentIntentId, key: 'refund:ch_1', amount: 100 }))
      .toEqual({ changed: true, taken: 100, clientId: old.clientId, currency: 'eur', balance: 380 });
    // New money in another currency lives beside the migrated balance; the old one is not usd.
    expect(await store.deductBalance({ clientId: old.clientId, currency: 'usd', amount: 1 })).toEqual({ status: 'insufficient' });
    await store.creditTopUp({ clientId: old.clientId, currency: 'usd', amount: 7, paymentIntentId: newPaymentIntentId() });
    expect(await store.deductBalance({ clientId: old.clientId, currency: 'eur', amount: 80 })).toEqual({ status: 'deducted', balance: 300 });
    expect(await store.getClient(old.clientId)).toEqual({ balances: { eur: 300, usd: 7 }, topUps: 2, createdAt: old.createdAt });
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT name FROM pragma_table_info('credit402_clients')").all()).toEqual([
      { name: 'client_id' }, { name: 'top_ups' }, { name: 'created_at' },
    ]);
    db.close();
  });

  it('migrates once: a later legacyCurrency changes nothing, and usd is the default', async () => {
    const [eurPath, usdPath] = [newPath(), newPath()];
    const [a, b] = [legacyClient(), legacyClient()];
    writeSchema1(eurPath, [a]);
    writeSchema1(usdPath, [b]);
    await new SqliteStore({ path: eurPath, legacyCurrency: 'eur' }).close();
    expect(await openOn(eurPath, { legacyCurrency: 'gbp' }).getClient(a.clientId)).toMatchObject({ balances: { eur: 480 } });
    expect(await openOn(usdPath).getClient(b.clientId)).toMatchObject({ balances: { usd: 480 } });
    expect(() => new SqliteStore({ path: newPath(), legacyCurrency: 'EUR' })).toThrow(TypeError);
  });

  it('migrates each table prefix on its own, leaving a zero balance absent', async () => {
    const path = newPath();
    const [a, b] = [legacyClient(), legacyClient()];
    writeSchema1(path, [a], 'one_');
    writeSchema1(path, [b], 'two_');
    const db = new Database(path);
    db.prepare('UPDATE two_clients SET balance = 0').run();
    db.close();
    expect(await openOn(path, { tablePrefix: 'one_', legacyCurrency: 'eur' }).getClient(a.clientId)).toMatchObject({ balances: { eur: 480 } });
    expect(version(path, 'two_')).toBe(1);
    const two = openOn(path, { tablePrefix: 'two_', legacyCurrency: 'chf' });
    expect(await two.getClient(b.clientId)).toMatchObject({ balances: {}, topUps: 1 });
    expect(await two.reverseTopUp({ paymentIntentId: b.paymentIntentId, key: 'dispute:dp_1', amount: 30 }))
      .toEqual({ changed: true, taken: 30, clientId: b.clientId, currency: 'chf', balance: -30 });
  });

  it('is safe when several processes open an old file at once: migrated once, then no overdraw', async () => {
    const path = newPath();
    const old = legacyClient();
    writeSchema1(path, [old]);
    const successes = await runWorkers(path, old.clientId, 6, 100); // each worker opens (and may migrate) at start
    expect(successes.reduce((sum, n) => sum + n, 0)).toBe(480);
    expect(version(path)).toBe(5);
    const store = openOn(path);
    expect(await store.getClient(old.clientId)).toMatchObject({ balances: { usd: 0 }, topUps: 1 });
    expect(await store.listTransactions?.(old.clientId)).toHaveLength(2);
  }, 60_000);

  it('rolls a failed migration back entirely and refuses a newer schema', async () => {
    const path = newPath();
    writeSchema1(path, [legacyClient()]);
    const db = new Database(path);
    db.exec('CREATE TABLE credit402_balances (x INTEGER) STRICT'); // makes the migration fail half-way
    db.close();
    expect(() => new SqliteStore({ path })).toThrow(/already exists/);
    expect(version(path)).toBe(1);
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT name FROM pragma_table_info('credit402_clients') WHERE name = 'balance'").all()).toHaveLength(1);
    check.close();

    const newer = newPath();
    await new SqliteStore({ path: newer }).close();
    const raise = new Database(newer);
    raise.prepare('UPDATE credit402_schema_version SET version = 6').run();
    raise.close();
    expect(() => new SqliteStore({ path: newer })).toThrow(/schema 6, newer/);
  });

  it('gives a schema 2 file a store id of its own, kept from then on (CR-7.16)', async () => {
    const path = newPath();
    const before = new SqliteStore({ path });
    const clientId = newClientId();
    await before.addBalance(clientId, 'usd', 40);
    await before.close();
    const downgrade = new Database(path);
    downgrade.exec(`DROP TABLE credit402_store; DROP TABLE credit402_refunds; ${DROP_CLAIMS} UPDATE credit402_schema_version SET version = 2`);
    downgrade.close();
    const store = openOn(path);
    expect(version(path)).toBe(5);
    const id = await store.getStoreId();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 40 } });
    expect(await openOn(path).getStoreId()).toBe(id);
  });

  it('gives a schema 3 file the table of refund ids: balances and store id as they were, each refund applied once', async () => {
    const path = newPath();
    const before = new SqliteStore({ path });
    const clientId = newClientId();
    await before.addBalance(clientId, 'usd', 40);
    const id = await before.getStoreId();
    await before.close();
    const downgrade = new Database(path);
    downgrade.exec(`DROP TABLE credit402_refunds; ${DROP_CLAIMS} UPDATE credit402_schema_version SET version = 3`);
    downgrade.close();
    const store = openOn(path);
    expect(version(path)).toBe(5);
    expect(await store.getStoreId()).toBe(id);
    expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 40 } });
    const refund = { clientId, currency: 'usd', amount: 2, refundId: 'refund-after-migration' };
    expect(await store.refundDeduction(refund)).toEqual({ status: 'refunded', balance: 42 });
    expect(await openOn(path).refundDeduction(refund)).toEqual({ status: 'refunded', balance: 42 });
    expect(await balanceOf(store, clientId)).toBe(42);
  });

  it('gives a schema 4 file repeat claims: a request id kept before answers its repeat once claimed and confirmed (CR-6.9)', async () => {
    const path = newPath();
    const before = new SqliteStore({ path });
    const clientId = newClientId();
    await before.addBalance(clientId, 'usd', 40);
    const request = { id: 'kept-before-5', fingerprint: 'GET /x usd 10', ttlMs: 60_000 };
    expect(await before.deductBalance({ clientId, currency: 'usd', amount: 10, request })).toEqual({ status: 'deducted', balance: 30 });
    await before.close();
    const downgrade = new Database(path);
    downgrade.exec(`${DROP_CLAIMS} UPDATE credit402_schema_version SET version = 4`);
    downgrade.close();
    const store = openOn(path);
    expect(version(path)).toBe(5);
    const claimed = { ...request, claim: { id: 'claim-1', leaseMs: 60_000 } };
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: 10, request: claimed })).toEqual({ status: 'repeated', balance: 30 });
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: 10, request: { ...request, claim: { id: 'claim-2', leaseMs: 60_000 } } })).toEqual({ status: 'busy' });
    await store.confirmRepeat?.({ clientId, requestId: request.id, claimId: 'claim-1' });
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: 10, request: claimed })).toEqual({ status: 'conflict' });
  });

  it('refuses an old file it cannot write with ERR_SQLITE_NOT_WRITABLE, leaving it as it was', () => {
    const path = newPath();
    writeSchema1(path, [legacyClient()]);
    makeReadOnly(path);
    expect(() => new SqliteStore({ path })).toThrow(expect.objectContaining({ code: 'ERR_SQLITE_NOT_WRITABLE' }));
    expect(version(path)).toBe(1);
  });
});

/** What takes a schema 5 file's deduction_requests back to schema 4 (no repeat claims). */
const DROP_CLAIMS = 'ALTER TABLE credit402_deduction_requests DROP COLUMN claim_id; ALTER TABLE credit402_deduction_requests DROP COLUMN claim_until;';

/** Marks a closed database file as written by a newer SQLite (write version 3): SQLite then opens it read-only, even for root. */
function makeReadOnly(path: string): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.from([3]), 0, 1, 18);
  closeSync(fd);
}

/** Starts `count` worker processes, releases them together, and resolves each one's success count. */
async function runWorkers(path: string, clientId: string, count: number, attempts: number, currency = 'usd'): Promise<number[]> {
  const worker = fileURLToPath(new URL('./sqlite-deduct-worker.ts', import.meta.url));
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', tsx, worker, path, clientId, String(attempts), currency], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const outputs = children.map((child) => {
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { child, lines, exited };
  });
  for (const { lines } of outputs) expect((await lines.next()).value).toBe('ready');
  for (const { child } of outputs) child.stdin.write('go\n');
  const counts: number[] = [];
  for (const { lines, exited } of outputs) {
    counts.push(Number((await lines.next()).value));
    expect(await exited).toBe(0);
  }
  return counts;
}
