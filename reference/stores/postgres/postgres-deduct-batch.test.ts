// Group commit of PostgresStore's deductions: one statement and one transaction per turn, answers as if one at a time.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchema, openAdminPool, postgresUrlFromEnv } from 'credit402-tooling/testing/postgres';
import { PostgresStore } from './postgres-store.ts';
import { isPerDeductionFailure, isRetryableBatchFailure, lockOrder } from './postgres-deduct-batch.ts';
import { quoteIdentifier } from './postgres-schema.ts';
import type { Deduction } from '../store.ts';
import { deducted, deductionRecord, INSUFFICIENT, newClientId, newRequestId } from '../conformance/store-conformance-helpers.ts';

const url = postgresUrlFromEnv();
const admin = await openAdminPool(url);
const schema = freshSchema();
const s = quoteIdentifier(schema);
const stores: PostgresStore[] = [];

afterAll(async () => {
  for (const store of stores) await store.close();
  await dropSchema(admin, schema);
  await admin.end();
});

/** A store on the test schema whose pool counts round trips (answers of the server). */
async function countingStore(): Promise<{ store: PostgresStore; roundTrips: () => number }> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let roundTrips = 0;
  pool.on('connect', (client) => void client.connection.on('readyForQuery', () => roundTrips++));
  const store = await PostgresStore.connect({ pool, schema });
  stores.push(store);
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await pool.end();
  };
  return { store, roundTrips: () => roundTrips };
}

const recorded = (clientId: string, amount: number, resource = 'GET /x'): Deduction =>
  ({ clientId, currency: 'usd', amount, record: deductionRecord(clientId, amount, 'usd', resource) });

/** The log records of `clientId`, oldest first. */
const logOf = async (store: PostgresStore, clientId: string) => (await store.listTransactions?.(clientId)) ?? [];

/** The transaction ids (xmin) that wrote the log records of `clients`. */
async function writers(clients: string[]): Promise<unknown[]> {
  const { rows } = await admin.query<{ xmin: string }>(`SELECT DISTINCT xmin::text AS xmin FROM ${s}.transactions WHERE client_id = ANY($1)`, [clients]);
  return rows.map((row) => row.xmin);
}

describe('PostgresStore group commit', () => {
  it('sends the deductions of one turn in one statement, committed in one transaction with their records', async () => {
    const { store, roundTrips } = await countingStore();
    const clients = Array.from({ length: 12 }, newClientId);
    for (const clientId of clients) await store.addBalance(clientId, 'usd', 20);
    const before = roundTrips();
    const results = await Promise.all(clients.map((clientId, i) => store.deductBalance(recorded(clientId, i))));
    expect(results).toEqual(clients.map((_, i) => deducted(20 - i)));
    expect(roundTrips() - before).toBe(1);
    expect(await writers(clients)).toHaveLength(1);
    for (const clientId of clients) expect((await logOf(store, clientId)).map((r) => r.type)).toEqual(['deduction']);
  });

  it("answers one client's deductions of a turn in the order asked, as if sent one at a time", async () => {
    const { store } = await countingStore();
    const [a, b] = [newClientId(), newClientId()];
    await store.addBalance(a, 'usd', 5);
    await store.addBalance(b, 'usd', 3);
    // Interleaved, and b sorts before or after a: the lock order must not change either client's answers.
    const asked = [a, b, a, b, a, b, a, b, a, a, a].map((clientId) => store.deductBalance(recorded(clientId, 1)));
    expect(await Promise.all(asked)).toEqual([
      deducted(4), deducted(2), deducted(3), deducted(1), deducted(2), deducted(0), deducted(1), INSUFFICIENT,
      deducted(0), INSUFFICIENT, INSUFFICIENT,
    ]);
    expect((await logOf(store, a)).filter((r) => r.type === 'deduction')).toHaveLength(5);
    expect((await logOf(store, b)).filter((r) => r.type === 'deduction')).toHaveLength(3);
  });

  it('keeps request ids within a batch: the first repeat is answered repeated, another fingerprint conflicts', async () => {
    const { store } = await countingStore();
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 10);
    const request = { id: newRequestId(), fingerprint: 'GET /x', ttlMs: 60_000 };
    const results = await Promise.all([
      store.deductBalance({ ...recorded(clientId, 2), request }),
      store.deductBalance({ ...recorded(clientId, 2), request }),
      store.deductBalance({ ...recorded(clientId, 2), request: { ...request, fingerprint: 'GET /y' } }),
      store.deductBalance({ ...recorded(clientId, 2), request }),
    ]);
    expect(results).toEqual([deducted(8), { status: 'repeated', balance: 8 }, { status: 'conflict' }, { status: 'conflict' }]);
    expect((await logOf(store, clientId)).filter((r) => r.type === 'deduction')).toHaveLength(1);
  });

  it('fails only the deduction whose data the server refuses; the others of its batch are applied once', async () => {
    const { store } = await countingStore();
    const clients = [newClientId(), newClientId(), newClientId()];
    for (const clientId of clients) await store.addBalance(clientId, 'usd', 10);
    // Postgres text cannot hold NUL: the batch is refused (22021), then each deduction runs alone.
    const settled = await Promise.allSettled(clients.map((clientId, i) => store.deductBalance(recorded(clientId, 1, i === 1 ? 'GET /\u0000' : 'GET /x'))));
    expect(settled.map((one) => one.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await Promise.all(clients.map(async (clientId) => (await store.getClient(clientId))?.balances?.usd))).toEqual([9, 10, 9]);
  });

  it('sends the deductions queued when closed, and answers them before the pool ends', async () => {
    const { store } = await countingStore();
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 4);
    const pending = [store.deductBalance(recorded(clientId, 1)), store.deductBalance(recorded(clientId, 1))];
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    expect(await Promise.all(pending)).toEqual([deducted(3), deducted(2)]);
    const { rows } = await admin.query(`SELECT balance::text FROM ${s}.balances WHERE client_id = $1`, [clientId]);
    expect(rows).toEqual([{ balance: '2' }]);
  });
});

describe('deduct_batch helpers', () => {
  const d = (clientId: string, currency: 'usd' | 'eur' = 'usd'): Deduction => ({ clientId, currency, amount: 1 });

  it('orders a batch by client and currency, keeping the order asked within each', () => {
    expect(lockOrder([d('b'), d('a', 'usd'), d('b'), d('a', 'eur'), d('a', 'usd')])).toEqual([3, 1, 4, 0, 2]);
  });

  it('retries deadlock victims and serialization failures only; runs data errors one by one', () => {
    const serverError = (code: string) => Object.assign(new Error(code), { code, severity: 'ERROR' });
    expect(isRetryableBatchFailure(serverError('40P01'))).toBe(true);
    expect(isRetryableBatchFailure(serverError('40001'))).toBe(true);
    expect(isRetryableBatchFailure(serverError('57014'))).toBe(false);
    expect(isPerDeductionFailure(serverError('22021'))).toBe(true);
    expect(isPerDeductionFailure(new RangeError('overflow', { cause: serverError('22003') }))).toBe(true);
    expect(isPerDeductionFailure(serverError('57014'))).toBe(false);
    expect(isPerDeductionFailure(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});
