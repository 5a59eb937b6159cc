// Retention of SqliteStore's transaction log: the option's validation, and pruning that spares credited markers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PRUNE_EVERY } from './sqlite-retention.ts';
import { SqliteStore, type SqliteStoreOptions, StoreOptionError } from './sqlite-store.ts';
import { deductMany, newClientId, newPaymentIntentId, recordAgedDeductions } from '../conformance/store-conformance-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'credit402-sqlite-retention-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SqliteStore transactionTtlSeconds', () => {
  const open: SqliteStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });
  const openStore = (options: Omit<SqliteStoreOptions, 'path'> = {}): SqliteStore => {
    const store = new SqliteStore({ path: join(dir, `store-${++files}.db`), ...options });
    open.push(store);
    return store;
  };

  it('refuses a value that is not a positive safe integer with a StoreOptionError (a RangeError) coded ERR_SQLITE_OPTION', () => {
    const message = /^SqliteStore: transactionTtlSeconds must be a positive safe integer \(seconds\), got /;
    for (const transactionTtlSeconds of [0, -1, 1.5, Number.MAX_SAFE_INTEGER, '60' as unknown as number]) {
      expect(() => openStore({ transactionTtlSeconds })).toThrow(expect.objectContaining({ name: 'StoreOptionError', code: 'ERR_SQLITE_OPTION', message: expect.stringMatching(message) }));
      expect(() => openStore({ transactionTtlSeconds })).toThrow(StoreOptionError);
      expect(() => openStore({ transactionTtlSeconds })).toThrow(RangeError);
    }
  });

  it('prunes records older than the TTL (90 days by default) as deductions commit, oldest first', async () => {
    const store = openStore();
    const id = newClientId();
    const kept = await recordAgedDeductions(store, id);
    await deductMany(store, id, PRUNE_EVERY, 8);
    const log = (await store.listTransactions?.(id)) ?? [];
    expect(log).toHaveLength(1 + PRUNE_EVERY);
    expect(log[0]).toEqual(kept);
  });

  it('with a tiny TTL, drops the topup record but keeps the credited marker: the PaymentIntent is not credited twice', async () => {
    const store = openStore({ transactionTtlSeconds: 1 });
    const id = newClientId();
    const credit = { clientId: id, currency: 'usd', amount: 500, paymentIntentId: newPaymentIntentId() };
    expect((await store.creditTopUp(credit)).credited).toBe(true);
    await sleep(1100);
    await deductMany(store, id, PRUNE_EVERY, 8);
    const log = (await store.listTransactions?.(id)) ?? [];
    expect(log.map((r) => r.type)).toEqual(Array(PRUNE_EVERY).fill('deduction'));
    expect(await store.hasCredit(credit.paymentIntentId)).toBe(true);
    expect(await store.creditTopUp(credit)).toEqual({ credited: false, balance: 500 - PRUNE_EVERY });
    expect('creditRetentionMs' in store).toBe(false);
  });

  it('keeps records younger than the TTL however many deductions run', async () => {
    const store = openStore({ transactionTtlSeconds: 3600 });
    const id = newClientId();
    await store.addBalance(id, 'usd', 1000);
    await deductMany(store, id, 3 * PRUNE_EVERY, 8);
    expect(await store.listTransactions?.(id)).toHaveLength(3 * PRUNE_EVERY);
  });
});
