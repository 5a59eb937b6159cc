// Runs the store conformance suite against PostgresStore (DATABASE_URL or local PostgreSQL), plus round trips, two pools, migration, integers, timeouts and options.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { dropSchema, freshSchema, openAdminPool, postgresUrlFromEnv } from 'credit402-tooling/testing/postgres';
import { PostgresStore, PostgresStoreError, type PostgresStoreOptions } from './postgres-store.ts';
import { DEFAULT_POSTGRES_URL, postgresSettings } from './postgres-options.ts';
import { integerOf } from './postgres-rows.ts';
import { POSTGRES_SCHEMA_VERSION, quoteIdentifier } from './postgres-schema.ts';
import { deductFunction } from './postgres-functions.ts';
import type { Store } from '../store.ts';
import { describeStoreConformance } from '../conformance/store-conformance.ts';
import { deductionRecord, expectFailure, newClientId, newPaymentIntentId } from '../conformance/store-conformance-helpers.ts';

const url = postgresUrlFromEnv();
// Fails the whole file, loudly, when there is no server: CI starts PostgreSQL, so a skip would hide a gap.
const admin = await openAdminPool(url);

/** Every schema this file creates; dropped when it ends. */
const schemas = new Set<string>();
const newSchema = (): string => {
  const schema = freshSchema();
  schemas.add(schema);
  return schema;
};
const schema = newSchema();
/** Every schema version, as a migrated schema lists them. */
const ALL_VERSIONS = Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1);
const s = quoteIdentifier(schema);

afterAll(async () => {
  for (const name of schemas) await dropSchema(admin, name);
  await admin.end();
});

const connect = (options: PostgresStoreOptions = {}): Promise<PostgresStore> =>
  PostgresStore.connect({ connectionString: url, schema, ...options });

/** Deducts `amount` usd without record or request id; resolves the new balance or null. */
const deduct = async (store: Store, clientId: string, amount: number): Promise<number | null> => {
  const result = await store.deductBalance({ clientId, currency: 'usd', amount });
  return result.status === 'deducted' ? result.balance : null;
};

/** The one text column `column` of `sql`'s rows (run by the admin pool). */
const column = async (sql: string, values: unknown[], name: string): Promise<unknown[]> =>
  (await admin.query<Record<string, unknown>>(sql, values)).rows.map((row) => row[name]);

/**
 * A store migrated from schema `version`: one on a new schema where client `client-v<version>` holds 40 usd and
 * `before` (when given) did more, closed, taken back to `version` (`undo(q)`, the DDL that removes what later
 * versions made in the schema quoted `q`, and their schema_version rows), then opened again. Resolves it, its schema,
 * and what `before` resolved.
 */
async function migratedFrom<T>(version: number, undo: (q: string) => string, before?: (first: PostgresStore) => Promise<T>) {
  const older = newSchema();
  const q = quoteIdentifier(older);
  const first = await connect({ schema: older });
  await first.addBalance(`client-v${version}`, 'usd', 40);
  const made = await before?.(first);
  await first.close();
  await admin.query(`${undo(q)}
      DELETE FROM ${q}.schema_version WHERE version > ${version}`);
  return { migrated: await connect({ schema: older }), older, before: made };
}

/** A request id `id` kept for a minute, and a deduction of 10 usd by `clientId` with it, claiming its repeat under `claimId`. */
function keptRequest(clientId: string, id: string) {
  const request = { id, fingerprint: 'GET /x usd 10', ttlMs: 60_000 };
  const claimed = (claimId: string) => ({ clientId, currency: 'usd', amount: 10, request: { ...request, claim: { id: claimId, leaseMs: 60_000 } } });
  return { request, claimed };
}

/** Closes `store`, then expects its schema `name` to list every schema version, as a migrated one does. */
async function closeListingEveryVersion(store: Store, name: string): Promise<void> {
  await store.close();
  expect(await column(`SELECT version FROM ${quoteIdentifier(name)}.schema_version ORDER BY version`, [], 'version')).toEqual(ALL_VERSIONS);
}

/** The store id cases' storage: a fresh schema is new storage; the same schema, reopened. */
const schemaOf = new WeakMap<Store, string>();
const connectOn = async (on: string): Promise<Store> => {
  const store = await connect({ schema: on });
  schemaOf.set(store, on);
  return store;
};
/** Empties every table of the store's schema but the schema version (TRUNCATE), while the store stays open. */
const truncateSchema = async (store: Store): Promise<void> => {
  const name = schemaOf.get(store);
  if (name === undefined) throw new Error('truncateSchema: not a store of connectOn');
  const tables = await column("SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_version'", [name], 'tablename');
  await admin.query(`TRUNCATE ${tables.map((table) => `${quoteIdentifier(name)}.${quoteIdentifier(String(table))}`).join(', ')}`);
};
const storeIdStorage = {
  fresh: () => connectOn(newSchema()),
  reopen: (store: Store) => connectOn(schemaOf.get(store) ?? schema),
  reset: truncateSchema,
};

describeStoreConformance('PostgresStore', () => connect(), undefined, storeIdStorage);
describeStoreConformance('PostgresStore without log', () => connect({ recordTransactions: false }), undefined, storeIdStorage);

describe('PostgresStore specifics', () => {
  it('CR-14.13 sees its schema recreated under it: a credit under the old id is refused, and the store reads the new id', async () => {
    const own = newSchema();
    const store = await connect({ schema: own });
    try {
      const old = await store.getStoreId();
      await dropSchema(admin, own);
      const recreated = await connect({ schema: own });
      const fresh = await recreated.getStoreId();
      await recreated.close();
      expect(fresh).not.toBe(old);
      const credit = { clientId: newClientId(), currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId() };
      await expect(store.creditTopUp({ ...credit, storeId: old })).rejects.toMatchObject({ code: 'ERR_STORE_RESET' });
      expect(await store.getClient(credit.clientId)).toBeNull();
      expect(await store.getStoreId()).toBe(fresh);
      expect(await store.creditTopUp({ ...credit, storeId: fresh })).toEqual({ credited: true, balance: 10 });
    } finally {
      await store.close();
    }
  });

  it('deducts with its record and request id, credits (checking the store id) and reverses in one round trip each', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    let roundTrips = 0;
    pool.on('connect', (client) => void client.connection.on('readyForQuery', () => roundTrips++));
    const store = await PostgresStore.connect({ pool, schema });
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 10);
    const counted = async <T>(call: () => Promise<T>): Promise<T> => {
      roundTrips = 0;
      const result = await call();
      expect(roundTrips).toBe(1);
      return result;
    };
    const request = { id: 'req-one', fingerprint: 'f', ttlMs: 60_000 };
    const deduction = { clientId, currency: 'usd', amount: 2, record: deductionRecord(clientId, 2), request };
    expect(await counted(() => store.deductBalance(deduction))).toEqual({ status: 'deducted', balance: 8 });
    expect(await counted(() => store.deductBalance(deduction))).toEqual({ status: 'repeated', balance: 8 });
    expect(await counted(() => store.deductBalance({ clientId, currency: 'usd', amount: 1 }))).toEqual({ status: 'deducted', balance: 7 });
    expect(await counted(() => store.deductBalance({ clientId, currency: 'usd', amount: 100 }))).toEqual({ status: 'insufficient' });
    const paymentIntentId = newPaymentIntentId();
    expect(await counted(() => store.creditTopUp({ clientId, currency: 'usd', amount: 5, paymentIntentId }))).toEqual({ credited: true, balance: 12 });
    expect((await counted(() => store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 3 }))).balance).toBe(9);
    expect(await counted(() => store.addBalance(clientId, 'usd', 1))).toBe(10);
    // The charge path's store id read, and a credit that checks it in the same statement (CR-14.13).
    const storeId = await counted(() => store.getStoreId());
    expect(await counted(() => store.creditTopUp({ clientId, currency: 'usd', amount: 5, paymentIntentId: newPaymentIntentId(), storeId }))).toEqual({ credited: true, balance: 15 });
    expect(await store.listTransactions!(clientId)).toHaveLength(3);
    await store.close();
    await pool.end();
  });

  it('never overdraws, and credits a PaymentIntent once, across two pools on one schema', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const clientId = newClientId();
    await a.addBalance(clientId, 'usd', 100);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => deduct(i % 2 ? a : b, clientId, 1)));
    expect(results.filter((r) => r !== null)).toHaveLength(100);
    expect(new Set(results.filter((r) => r !== null))).toEqual(new Set(Array.from({ length: 100 }, (_, i) => i)));
    expect((await b.getClient(clientId))?.balances).toEqual({ usd: 0 });
    const credit = { clientId, currency: 'usd', amount: 50, paymentIntentId: newPaymentIntentId() };
    const credits = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).creditTopUp(credit)));
    expect(credits.filter((r) => r.credited)).toHaveLength(1);
    expect(await a.getClient(clientId)).toMatchObject({ balances: { usd: 50 }, topUps: 1 });
    await Promise.all([a.close(), b.close()]);
  });

  it('creates a new schema once when several stores connect to it at once, and leaves it on later connects', async () => {
    const fresh = newSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => connect({ schema: fresh })));
    await Promise.all(stores.map((store, i) => store.addBalance(`client-${i}`, 'usd', i + 1)));
    await Promise.all(stores.map((store) => store.close()));
    const again = await connect({ schema: fresh });
    expect(await again.getClient('client-3')).toMatchObject({ balances: { usd: 4 } });
    await again.close();
    const versions = await column(`SELECT version FROM ${quoteIdentifier(fresh)}.schema_version`, [], 'version');
    expect(versions).toEqual(ALL_VERSIONS);
  });

  it('migrates a version 2 schema to the current version: a store id of its own, kept from then on, balances as they were (CR-7.16)', async () => {
    const { migrated, older } = await migratedFrom(2, (q) => `
      DROP TABLE ${q}.store; DROP FUNCTION ${q}.refund_deduction; DROP FUNCTION ${q}.within_budget;
      DROP TABLE ${q}.refunds; DROP FUNCTION ${q}.refund_deduction_once; DROP FUNCTION ${q}.deduct_batch_claiming; DROP FUNCTION ${q}.deduct_claiming; DROP FUNCTION ${q}.confirm_repeat;
      ALTER TABLE ${q}.deduction_requests DROP COLUMN claim_id, DROP COLUMN claim_until;`);
    const id = await migrated.getStoreId();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await migrated.getClient('client-v2')).toMatchObject({ balances: { usd: 40 } });
    expect(await migrated.refundDeduction({ clientId: 'client-v2', currency: 'usd', amount: 2, refundId: 'refund-v2' })).toEqual({ status: 'refunded', balance: 42 });
    await migrated.close();
    const again = await connect({ schema: older });
    expect(await again.getStoreId()).toBe(id);
    await closeListingEveryVersion(again, older);
  });

  it('migrates a version 3 schema to the current version: refund ids kept from then on, store id and balances as they were', async () => {
    const { migrated, older, before: id } = await migratedFrom(3, (q) => `
      DROP TABLE ${q}.refunds; DROP FUNCTION ${q}.refund_deduction_once; DROP FUNCTION ${q}.deduct_batch_claiming; DROP FUNCTION ${q}.deduct_claiming; DROP FUNCTION ${q}.confirm_repeat;
      ALTER TABLE ${q}.deduction_requests DROP COLUMN claim_id, DROP COLUMN claim_until;`, (first) => first.getStoreId());
    expect(await migrated.getStoreId()).toBe(id);
    expect(await migrated.getClient('client-v3')).toMatchObject({ balances: { usd: 40 } });
    const refund = { clientId: 'client-v3', currency: 'usd', amount: 2, refundId: 'refund-v3' };
    expect(await migrated.refundDeduction(refund)).toEqual({ status: 'refunded', balance: 42 });
    expect(await migrated.refundDeduction(refund)).toEqual({ status: 'refunded', balance: 42 });
    await closeListingEveryVersion(migrated, older);
  });

  it('migrates a version 4 schema to the current version: a request id kept before answers its repeat once claimed and confirmed (CR-6.9)', async () => {
    const { request, claimed } = keptRequest('client-v4', 'kept-before-5');
    const { migrated, older } = await migratedFrom(4, (q) => `
      DROP FUNCTION ${q}.deduct_batch_claiming; DROP FUNCTION ${q}.deduct_claiming; DROP FUNCTION ${q}.confirm_repeat;
      ALTER TABLE ${q}.deduction_requests DROP COLUMN claim_id, DROP COLUMN claim_until;`, async (first) => {
      expect(await first.deductBalance({ clientId: 'client-v4', currency: 'usd', amount: 10, request })).toEqual({ status: 'deducted', balance: 30 });
    });
    expect(await migrated.deductBalance(claimed('claim-1'))).toEqual({ status: 'repeated', balance: 30 });
    expect(await migrated.deductBalance(claimed('claim-2'))).toEqual({ status: 'busy' });
    await migrated.confirmRepeat?.({ clientId: 'client-v4', requestId: request.id, claimId: 'claim-1' });
    expect(await migrated.deductBalance(claimed('claim-3'))).toEqual({ status: 'conflict' });
    await closeListingEveryVersion(migrated, older);
  });

  it('migrates a version 7 schema to the current version: a refund after the repeat was claimed gives nothing back (CR-6.9)', async () => {
    const { request, claimed } = keptRequest('client-v7', 'kept-before-8');
    const undo = (q: string) => `DROP FUNCTION ${q}.refund_deduction_unless_repeated; ${deductFunction(q, 'CREATE OR REPLACE', false)}`;
    const { migrated, older } = await migratedFrom(7, undo, async (first) => {
      expect(await first.deductBalance(claimed('claim-0'))).toEqual({ status: 'deducted', balance: 30 });
      expect(await first.deductBalance(claimed('claim-1'))).toEqual({ status: 'repeated', balance: 30 });
    });
    const refund = { clientId: 'client-v7', currency: 'usd', amount: 10, requestId: request.id, refundId: 'refund-v7' };
    expect(await migrated.refundDeduction(refund)).toEqual({ status: 'superseded', balance: 30 });
    expect(await migrated.deductBalance(claimed('claim-2'))).toEqual({ status: 'busy' });
    expect(await migrated.getClient('client-v7')).toMatchObject({ balances: { usd: 30 } });
    await closeListingEveryVersion(migrated, older);
  });

  it('refuses a schema newer than this code, with ERR_PG_SCHEMA', async () => {
    const newer = newSchema();
    await (await connect({ schema: newer })).close();
    await admin.query(`INSERT INTO ${quoteIdentifier(newer)}.schema_version (version) VALUES ($1)`, [POSTGRES_SCHEMA_VERSION + 1]);
    const error = await connect({ schema: newer }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect(error).toMatchObject({ code: 'ERR_PG_SCHEMA', message: expect.stringMatching(/newer than this code/) });
  });

  it('keeps money in BIGINT columns, exact near 2^53, with CHECKs on range and currency', async () => {
    const store = await connect();
    const clientId = newClientId();
    const max = Number.MAX_SAFE_INTEGER;
    expect(await store.addBalance(clientId, 'usd', max - 1)).toBe(max - 1);
    expect(await store.addBalance(clientId, 'usd', 1)).toBe(max);
    expect(await column(`SELECT balance::text AS b FROM ${s}.balances WHERE client_id = $1`, [clientId], 'b')).toEqual(['9007199254740991']);
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: max - 2 })).toEqual({ status: 'deducted', balance: 2 });
    const types = await column(
      `SELECT table_name || '.' || column_name || ' ' || data_type AS t FROM information_schema.columns
       WHERE table_schema = $1 AND column_name IN ('balance', 'amount', 'top_ups') ORDER BY 1`, [schema], 't');
    expect(types).toEqual([
      'balances.balance bigint', 'clients.top_ups bigint', 'credited_payment_intents.amount bigint', 'reversals.amount bigint', 'transactions.amount bigint',
    ]);
    await expect(admin.query(`UPDATE ${s}.balances SET balance = 9007199254740992 WHERE client_id = $1`, [clientId])).rejects.toMatchObject({ code: '23514' });
    await expect(admin.query(`INSERT INTO ${s}.balances VALUES ($1, 'USD', 1)`, [clientId])).rejects.toMatchObject({ code: '23514' });
    expect(() => integerOf({ v: '9007199254740992' }, 'v')).toThrow(RangeError);
    expect(() => integerOf({ v: 1 }, 'v')).toThrow(TypeError);
    expect(integerOf({ v: '-9007199254740991' }, 'v')).toBe(-max);
    await store.close();
  });

  it('reads every integer exactly whatever type parsers the caller\'s pool has', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2, types: { getTypeParser: () => () => 'not what the server sent' } });
    const store = await PostgresStore.connect({ pool, schema });
    const clientId = newClientId();
    expect(await store.addBalance(clientId, 'usd', Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
    expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: Number.MAX_SAFE_INTEGER }, topUps: 0 });
    await store.close();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 'not what the server sent' }]); // still open: the caller's
    await pool.end();
  });

  it('rejects a deduction that waits on a locked row past statementTimeoutMs with ERR_PG_TIMEOUT, changing nothing', async () => {
    const store = await connect({ statementTimeoutMs: 200 });
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 10);
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT balance FROM ${s}.balances WHERE client_id = $1 FOR UPDATE`, [clientId]);
      const started = Date.now();
      const error = await store.deductBalance({ clientId, currency: 'usd', amount: 1 }).catch((caught: unknown) => caught);
      const waited = Date.now() - started;
      expect(error).toBeInstanceOf(PostgresStoreError);
      expect(error).toMatchObject({ code: 'ERR_PG_TIMEOUT' });
      expect(waited).toBeGreaterThanOrEqual(150);
      expect(waited).toBeLessThan(1000);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await deduct(store, clientId, 1)).toBe(9);
    await store.close();
  });

  it('forgets expired request ids as later ones are kept', async () => {
    const store = await connect();
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 10);
    for (const id of ['a', 'b', 'c']) await store.deductBalance({ clientId, currency: 'usd', amount: 1, request: { id, fingerprint: 'f', ttlMs: 1 } });
    await sleep(20);
    await store.deductBalance({ clientId, currency: 'usd', amount: 1, request: { id: 'd', fingerprint: 'f', ttlMs: 60_000 } });
    expect(await column(`SELECT request_id FROM ${s}.deduction_requests WHERE client_id = $1`, [clientId], 'request_id')).toEqual(['d']);
    await store.close();
  });

  it('leaves a caller\'s pool open on close', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const store = await PostgresStore.connect({ pool, schema });
    await store.close();
    await store.close();
    await expectFailure(() => store.getClient(newClientId()), Error);
    expect((await pool.query('SELECT 1 AS one')).rows).toHaveLength(1);
    await pool.end();
  });

  it('rejects invalid options with a TypeError or RangeError before connecting', async () => {
    const nowhere = 'postgres://postgres@127.0.0.1:1/none';
    const bad = (options: unknown) => PostgresStore.connect({ connectionString: nowhere, ...(options as PostgresStoreOptions) });
    for (const schemaName of ['Credit402', 'credit-402', '1credit', 'pg_credit', 'a'.repeat(64), '', 5]) {
      await expectFailure(() => bad({ schema: schemaName }), TypeError);
    }
    for (const size of [0, -1, 1.5, Number.NaN, '10']) await expectFailure(() => bad({ poolSize: size }), RangeError);
    for (const timeout of [0, -1, 2.5, Infinity]) await expectFailure(() => bad({ statementTimeoutMs: timeout }), RangeError);
    await expectFailure(() => bad({ recordTransactions: 'yes' }), TypeError);
    await expectFailure(() => bad({ pool: {} }), TypeError);
    const stray = new pg.Pool();
    await expectFailure(() => bad({ pool: stray }), TypeError); // with connectionString
    await stray.end();
    await expectFailure(() => bad({ connectionString: '' }), TypeError);
    await expectFailure(() => PostgresStore.connect(null as unknown as PostgresStoreOptions), TypeError);
  });

  it('fills in the defaults: DATABASE_URL, else the local server; schema credit402, 10 connections, 450 ms, a 90-day log', () => {
    expect(postgresSettings({}, {})).toEqual({
      connectionString: DEFAULT_POSTGRES_URL, pool: undefined, schema: 'credit402', poolSize: 10, statementTimeoutMs: 450, record: true,
      transactionTtlMs: 90 * 86_400_000,
    });
    expect(postgresSettings({}, { DATABASE_URL: 'postgres://db/x' }).connectionString).toBe('postgres://db/x');
    expect(postgresSettings({ connectionString: 'postgres://other/y' }, { DATABASE_URL: 'postgres://db/x' }).connectionString).toBe('postgres://other/y');
  });

  it('rejects connect with ERR_PG_CONNECT naming an unreachable server, without its password', async () => {
    const error = await PostgresStore.connect({ connectionString: 'postgres://user:secret@127.0.0.1:1/none', schema }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect(error).toMatchObject({ code: 'ERR_PG_CONNECT', message: expect.stringContaining('postgres://user:***@127.0.0.1:1/none') });
    expect(String(error)).not.toContain('secret');
  });
});
