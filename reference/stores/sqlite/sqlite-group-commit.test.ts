// Group commit of SqliteStore's deductions: one transaction per turn, savepoints per deduction, answers only after COMMIT.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Deduction } from '../store.ts';
import { SqliteStore } from './sqlite-store.ts';
import { deductionRecord, newClientId } from '../conformance/store-conformance-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'credit402-sqlite-group-'));
let files = 0;
const newPath = () => join(dir, `store-${++files}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const deduction = (clientId: string, amount = 1, resource = 'GET /x'): Deduction =>
  ({ clientId, currency: 'usd', amount, record: deductionRecord(clientId, amount, 'usd', resource) });

describe('SqliteStore group commit', () => {
  const open: SqliteStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });
  const openStore = (path = newPath()): SqliteStore => {
    const store = new SqliteStore({ path });
    open.push(store);
    return store;
  };
  /** A trigger, made on a second connection, that fails inserting a log record of `resource`. */
  const failOn = (path: string, resource: string, raise: 'ABORT' | 'ROLLBACK') => {
    const db = new Database(path);
    db.exec(`CREATE TRIGGER fail_${raise} BEFORE INSERT ON credit402_transactions WHEN NEW.resource = '${resource}'
      BEGIN SELECT RAISE(${raise}, 'refused by the test'); END`);
    db.close();
  };

  it('rolls back only the deduction SQLite fails in a batch; the others commit with their records', async () => {
    const path = newPath();
    const store = openStore(path);
    const [a, b, c] = [newClientId(), newClientId(), newClientId()];
    for (const id of [a, b, c]) await store.addBalance(id, 'usd', 10);
    failOn(path, 'GET /fail', 'ABORT');
    const results = await Promise.allSettled([
      store.deductBalance(deduction(a, 1)), store.deductBalance(deduction(b, 2, 'GET /fail')), store.deductBalance(deduction(c, 3)),
      store.deductBalance(deduction(a, 4)),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([
      { status: 'deducted', balance: 9 }, 'rejected', { status: 'deducted', balance: 7 }, { status: 'deducted', balance: 5 },
    ]);
    expect((await store.getClient(b))?.balances.usd).toBe(10);
    expect(await store.listTransactions?.(b)).toEqual([]);
    expect((await store.listTransactions?.(a))?.map((r) => r.amount)).toEqual([1, 4]);
  });

  it('rejects every deduction of a batch whose transaction SQLite rolled back, and applies none', async () => {
    const path = newPath();
    const store = openStore(path);
    const [a, b] = [newClientId(), newClientId()];
    for (const id of [a, b]) await store.addBalance(id, 'usd', 10);
    failOn(path, 'GET /rollback', 'ROLLBACK');
    const results = await Promise.allSettled([
      store.deductBalance(deduction(a, 1)), store.deductBalance(deduction(b, 2, 'GET /rollback')), store.deductBalance(deduction(a, 3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((await store.getClient(a))?.balances.usd).toBe(10);
    expect((await store.getClient(b))?.balances.usd).toBe(10);
    expect(await store.listTransactions?.(a)).toEqual([]);
    // The store goes on: the next batch commits.
    expect(await store.deductBalance(deduction(a, 1))).toEqual({ status: 'deducted', balance: 9 });
  });

  it('lets an operation asked after deductions in the same turn see them', async () => {
    const store = openStore();
    const id = newClientId();
    await store.addBalance(id, 'usd', 10);
    const deductions = [store.deductBalance(deduction(id, 2)), store.deductBalance(deduction(id, 3))];
    const client = store.getClient(id);
    const credit = store.addBalance(id, 'usd', 100);
    expect((await client)?.balances.usd).toBe(5);
    expect(await credit).toBe(105);
    expect(await Promise.all(deductions)).toEqual([{ status: 'deducted', balance: 8 }, { status: 'deducted', balance: 5 }]);
  });

  it('commits deductions already asked for when closed, so a reopened file has them', async () => {
    const path = newPath();
    const store = openStore(path);
    const id = newClientId();
    await store.addBalance(id, 'usd', 10);
    const pending = store.deductBalance(deduction(id, 4));
    await store.close();
    expect(await pending).toEqual({ status: 'deducted', balance: 6 });
    expect((await openStore(path).getClient(id))?.balances.usd).toBe(6);
  });

  it('answers a deduction only after its COMMIT: another connection already sees it', async () => {
    const path = newPath();
    const store = openStore(path);
    const id = newClientId();
    await store.addBalance(id, 'usd', 10);
    const reader = new Database(path, { readonly: true });
    const seen = await Promise.all([1, 2].map(async (amount) => {
      await store.deductBalance(deduction(id, amount));
      return reader.prepare('SELECT balance FROM credit402_balances WHERE client_id = ?').pluck().get(id);
    }));
    reader.close();
    expect(seen).toEqual([7, 7]);
  });
});

describe('SqliteStore group commit under SIGKILL', () => {
  const worker = fileURLToPath(new URL('./sqlite-group-commit-worker.ts', import.meta.url));
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const FUNDS = 1_000_000;

  /** Runs the worker on `path` until it answered a few hundred deductions more, plus a random delay, then SIGKILLs it; resolves all answers so far. */
  const runAndKill = async (path: string, clientId: string, before: number): Promise<number> => {
    const answersPath = `${path}.answers`;
    const answered = () => (existsSync(answersPath) ? statSync(answersPath).size / 3 : 0);
    const child = spawn(process.execPath, ['--import', tsx, worker, path, clientId, answersPath], { stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    while (answered() < before + 200 && child.exitCode === null) await sleep(5);
    await sleep(Math.random() * 50);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL'); // killed, not crashed
    return answered();
  };

  it('never answers a deduction that is not on disk, and never keeps one without its record', async () => {
    const path = newPath();
    const clientId = newClientId();
    const setup = new SqliteStore({ path });
    await setup.addBalance(clientId, 'usd', FUNDS);
    await setup.close();
    let answered = 0;
    for (let kill = 0; kill < 5; kill++) {
      answered = await runAndKill(path, clientId, answered);
      const db = new Database(path, { readonly: true });
      const balance = Number(db.prepare('SELECT balance FROM credit402_balances WHERE client_id = ?').pluck().get(clientId));
      const records = Number(db.prepare('SELECT count(*) FROM credit402_transactions WHERE client_id = ?').pluck().get(clientId));
      db.close();
      const deducted = FUNDS - balance;
      expect(records).toBe(deducted); // each deduction with its record, or neither
      expect(deducted).toBeGreaterThanOrEqual(answered); // every answer was committed
      expect(deducted - answered).toBeLessThanOrEqual(64 * (kill + 1)); // at most the batch in flight per kill
    }
  }, 60_000);
});
