// Retention of PostgresStore's transaction log: the option's validation, and background pruning that spares credited markers.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchema, openAdminPool, postgresUrlFromEnv } from 'credit402-tooling/testing/postgres';
import { PRUNE_EVERY } from './postgres-retention.ts';
import { PostgresStore, type PostgresStoreOptions, StoreOptionError } from './postgres-store.ts';
import { deductMany, newClientId, newPaymentIntentId, recordAgedDeductions } from '../conformance/store-conformance-helpers.ts';

const url = postgresUrlFromEnv();
// Fails the whole file, loudly, when there is no server: CI starts PostgreSQL, so a skip would hide a gap.
const admin = await openAdminPool(url);
const schemas = new Set<string>();
afterAll(async () => {
  for (const name of schemas) await dropSchema(admin, name);
  await admin.end();
});

/** A store on a fresh schema, and a way to reopen that schema (closing the first store awaits its running prune). */
async function fresh(options: PostgresStoreOptions = {}) {
  const schema = freshSchema();
  schemas.add(schema);
  const open = () => PostgresStore.connect({ connectionString: url, schema, ...options });
  return { store: await open(), open };
}

describe('PostgresStore transactionTtlSeconds', () => {
  it('refuses a value that is not a positive safe integer with a StoreOptionError (a RangeError) coded ERR_PG_OPTION, before connecting', async () => {
    const message = /^PostgresStore: transactionTtlSeconds must be a positive safe integer \(seconds\), got /;
    for (const transactionTtlSeconds of [0, -1, 1.5, Number.MAX_SAFE_INTEGER, '60' as unknown as number]) {
      const connecting = PostgresStore.connect({ connectionString: 'postgres://postgres@127.0.0.1:1/none', transactionTtlSeconds });
      await expect(connecting).rejects.toBeInstanceOf(RangeError);
      await expect(connecting).rejects.toBeInstanceOf(StoreOptionError);
      await expect(connecting).rejects.toMatchObject({ name: 'StoreOptionError', code: 'ERR_PG_OPTION', message: expect.stringMatching(message) });
    }
  });

  it(`prunes records older than the TTL (90 days by default), oldest first, every ${PRUNE_EVERY} appends`, async () => {
    const { store, open } = await fresh();
    const id = newClientId();
    const kept = await recordAgedDeductions(store, id);
    await deductMany(store, id, PRUNE_EVERY, 32);
    await store.close();
    const reopened = await open();
    const log = (await reopened.listTransactions?.(id)) ?? [];
    await reopened.close();
    expect(log).toHaveLength(1 + PRUNE_EVERY);
    expect(log[0]).toEqual(kept);
  });

  it('with a tiny TTL, drops the topup record but keeps the credited marker: the PaymentIntent is not credited twice', async () => {
    const { store, open } = await fresh({ transactionTtlSeconds: 1 });
    const id = newClientId();
    const credit = { clientId: id, currency: 'usd', amount: 500, paymentIntentId: newPaymentIntentId() };
    expect((await store.creditTopUp(credit)).credited).toBe(true);
    await sleep(1100);
    await deductMany(store, id, PRUNE_EVERY, 32);
    await store.close();
    const reopened = await open();
    const log = (await reopened.listTransactions?.(id)) ?? [];
    expect(log.map((r) => r.type)).toEqual(Array(PRUNE_EVERY).fill('deduction'));
    expect(await reopened.hasCredit(credit.paymentIntentId)).toBe(true);
    expect(await reopened.creditTopUp(credit)).toEqual({ credited: false, balance: 500 - PRUNE_EVERY });
    expect('creditRetentionMs' in reopened).toBe(false);
    await reopened.close();
  });
});
