// Runs the store conformance suite against SqliteStore, plus cross-connection and cross-process atomicity.
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
import { describeStoreConformance } from './store-conformance.ts';
import { expectFailure, newClientId, newPaymentIntentId } from './store-conformance-helpers.ts';
import { holdWriteLock, watchEventLoop } from '../testing/sqlite-lock.ts';

const dir = mkdtempSync(join(tmpdir(), 'credit402-sqlite-'));
let files = 0;
const newPath = () => join(dir, `store-${++files}.db`);
const removeDatabase = async (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const paths = new WeakMap<object, string>();
const openTracked = async (options: Partial<ConstructorParameters<typeof SqliteStore>[0]> = {}) => {
  const path = newPath();
  const store = new SqliteStore({ path, ...options });
  paths.set(store, path);
  return store;
};
const removeTracked = async (store: object) => removeDatabase(paths.get(store) ?? '');

describeStoreConformance('SqliteStore', () => openTracked(), removeTracked);
describeStoreConformance('SqliteStore without log', () => openTracked({ recordTransactions: false }), removeTracked);
describeStoreConformance('SqliteStore :memory:', async () => new SqliteStore({ path: ':memory:' }));

describe('SqliteStore on a shared file', () => {
  const open: SqliteStore[] = [];
  const openOn = (path: string, options: Omit<SqliteStoreOptions, 'path'> = {}) => {
    const store = new SqliteStore({ path, ...options });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('uses WAL and 64-bit INTEGER columns', () => {
    const path = newPath();
    openOn(path);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const types = db.prepare("SELECT name, type FROM pragma_table_info('credit402_clients')").all();
    expect(types).toContainEqual({ name: 'balance', type: 'INTEGER' });
    expect(types).toContainEqual({ name: 'top_ups', type: 'INTEGER' });
    db.close();
  });

  it('never overdraws through two connections deducting concurrently', async () => {
    const path = newPath();
    const [a, b] = [openOn(path), openOn(path)];
    const id = newClientId();
    await a.addBalance(id, 100);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).deductBalance(id, 1)));
    expect(results.filter((r) => r !== null)).toHaveLength(100);
    expect((await b.getClient(id))?.balance).toBe(0);
  });

  it('credits a PaymentIntent once across connections and reopenings, keeping balances on disk (CR-11.10)', async () => {
    const path = newPath();
    const credit = { clientId: newClientId(), amount: 50, paymentIntentId: newPaymentIntentId() };
    expect((await openOn(path).creditTopUp(credit)).credited).toBe(true);
    expect(await openOn(path).creditTopUp(credit)).toEqual({ credited: false, balance: 50 });
    for (const store of open.splice(0)) await store.close();
    const reopened = openOn(path);
    expect(await reopened.creditTopUp(credit)).toEqual({ credited: false, balance: 50 });
    expect(await reopened.getClient(credit.clientId)).toMatchObject({ balance: 50, topUps: 1 });
  });

  it('never overdraws across processes', async () => {
    const path = newPath();
    const id = newClientId();
    await openOn(path).addBalance(id, 100);
    const successes = await runWorkers(path, id, 4, 60);
    expect(successes.reduce((sum, n) => sum + n, 0)).toBe(100);
    expect((await openOn(path).getClient(id))?.balance).toBe(0);
  }, 60_000);

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
    await openOn(path).addBalance(id, 5);
    expect(await openOn(path, { tablePrefix: 'other_' }).getClient(id)).toBeNull();
    expect(() => new SqliteStore({ path, tablePrefix: 'x; DROP TABLE y' })).toThrow(TypeError);
  });

  it('writes no transaction rows when recordTransactions is false', async () => {
    const path = newPath();
    const store = openOn(path, { recordTransactions: false });
    expect(store.recordTransaction).toBeUndefined();
    expect(store.listTransactions).toBeUndefined();
    await store.creditTopUp({ clientId: newClientId(), amount: 1, paymentIntentId: newPaymentIntentId() });
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM credit402_transactions').get()).toEqual({ n: 0 });
    db.close();
  });

  it('rejects with a RangeError, not a rounded number, when a stored value passes 2^53 - 1', async () => {
    const path = newPath();
    const db = new Database(path);
    db.exec('CREATE TABLE legacy_clients (client_id TEXT PRIMARY KEY, balance INTEGER NOT NULL, top_ups INTEGER NOT NULL, created_at TEXT NOT NULL) STRICT');
    db.prepare('INSERT INTO legacy_clients VALUES (?, ?, 0, ?)').run('big', 2n ** 53n + 1n, new Date().toISOString());
    db.close();
    const store = openOn(path, { tablePrefix: 'legacy_' });
    await expectFailure(() => store.getClient('big'), RangeError);
    await expectFailure(() => store.deductBalance('big', 1), RangeError);
  });
});

describe('SqliteStore while another process holds the write lock (item 9: never wait inside better-sqlite3)', () => {
  const open: SqliteStore[] = [];
  const holders: Array<{ release(): Promise<void> }> = [];
  afterEach(async () => {
    for (const holder of holders.splice(0)) await holder.release();
    for (const store of open.splice(0)) await store.close();
  });
  const lockedStore = async (options: Omit<SqliteStoreOptions, 'path'> = {}) => {
    const path = newPath();
    const store = new SqliteStore({ path, ...options });
    open.push(store);
    const id = newClientId();
    await store.addBalance(id, 10);
    const holder = await holdWriteLock(path);
    holders.push(holder);
    return { store, id, holder };
  };

  it('keeps the event loop free, then rejects with ERR_SQLITE_BUSY after busyTimeoutMs (default 250), changing nothing', async () => {
    const { store, id, holder } = await lockedStore();
    const lag = watchEventLoop();
    const started = Date.now();
    const error = await store.deductBalance(id, 1).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    const worstLagMs = lag.stop();
    expect(error).toMatchObject({ name: 'SqliteStoreError', code: 'ERR_SQLITE_BUSY' });
    expect(elapsed).toBeGreaterThanOrEqual(240);
    expect(elapsed).toBeLessThan(1_000);
    expect(worstLagMs).toBeLessThan(100); // was: the whole busy_timeout (5 s) in one synchronous call
    await holder.release();
    expect((await store.getClient(id))?.balance).toBe(10);
  });

  it('reads while the lock is held (WAL), and a write goes through once the lock is released within busyTimeoutMs', async () => {
    const { store, id, holder } = await lockedStore({ busyTimeoutMs: 2_000 });
    expect((await store.getClient(id))?.balance).toBe(10);
    const deduction = store.deductBalance(id, 1);
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
    await store.addBalance(id, 10);
    await removeDatabase(path);
    await sleep(100);
    await expect(store.deductBalance(id, 1)).rejects.toMatchObject({ code: 'ERR_SQLITE_FILE_LOST' });
    await expect(store.getClient(id)).rejects.toMatchObject({ code: 'ERR_SQLITE_FILE_LOST' });
    expect(lost).toHaveLength(1);
    expect(lost[0]?.message).toContain(`${path} was deleted`);
    // What the connection still had is copied next to it, so the balances are not lost with the file.
    const copy = /written to (\S+):/.exec(lost[0]!.message)?.[1];
    expect(copy).toBeDefined();
    const rescued = new SqliteStore({ path: copy! });
    open.push(rescued);
    expect((await rescued.getClient(id))?.balance).toBe(10);
  });

  it('notices a replaced file on the next call even between two periodic checks', async () => {
    const path = newPath();
    const store = new SqliteStore({ path, fileCheckIntervalMs: 50, onFileLost: () => {} });
    open.push(store);
    const id = newClientId();
    await store.addBalance(id, 10);
    const other = newPath();
    await new SqliteStore({ path: other }).close();
    renameSync(other, path);
    await sleep(60);
    await expect(store.addBalance(id, 1)).rejects.toMatchObject({ code: 'ERR_SQLITE_FILE_LOST', message: expect.stringContaining('was replaced') });
  });

  it('does not watch an in-memory database', async () => {
    const store = new SqliteStore({ path: ':memory:', fileCheckIntervalMs: 1 });
    open.push(store);
    await sleep(5);
    await store.addBalance(newClientId(), 1);
  });
});

/** Marks a closed database file as written by a newer SQLite (write version 3): SQLite then opens it read-only, even for root. */
function makeReadOnly(path: string): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.from([3]), 0, 1, 18);
  closeSync(fd);
}

/** Starts `count` worker processes, releases them together, and resolves each one's success count. */
async function runWorkers(path: string, clientId: string, count: number, attempts: number): Promise<number[]> {
  const worker = fileURLToPath(new URL('./sqlite-deduct-worker.ts', import.meta.url));
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', tsx, worker, path, clientId, String(attempts)], { stdio: ['pipe', 'pipe', 'inherit'] }));
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
