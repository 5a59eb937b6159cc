// A retry whose request id is being kept by an uncommitted deduction claims the repeat once that commits, never uses it up (CR-6.9).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchema, openAdminPool, postgresUrlFromEnv } from 'credit402-tooling/testing/postgres';
import { POSTGRES_SCHEMA_VERSION, quoteIdentifier } from './postgres-schema.ts';
import { PostgresStore } from './postgres-store.ts';
import { deductClaimingFunction } from './postgres-version5.ts';
import { newClientId } from '../conformance/store-conformance-helpers.ts';

const url = postgresUrlFromEnv();
const admin = await openAdminPool(url);
const schemas: string[] = [];

afterAll(async () => {
  for (const name of schemas) await dropSchema(admin, name);
  await admin.end();
});

/** Statements of `schema` waiting on a lock (row, transaction or advisory). */
async function lockWaiters(schema: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND position($1 in query) > 0`,
    [`${quoteIdentifier(schema)}.deduct_claiming`],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Resolves once `count` statements of `schema` wait on a lock; fails after 5 s. */
async function untilWaiting(schema: string, count: number): Promise<void> {
  for (let waited = 0; (await lockWaiters(schema)) < count; waited += 20) {
    if (waited > 5_000) throw new Error(`fewer than ${count} deductions of ${schema} ever waited on a lock`);
    await sleep(20);
  }
}

/**
 * The first attempt keeps the request id and then waits on the balance row another transaction holds; the retry
 * comes meanwhile. Once the holder commits, the first is deducted and the retry claims the repeat (`repeated`): the
 * repeat stays unused until confirmed, so a third attempt while the claim holds is `busy`, and after its
 * confirmation `conflict`. Version 5 answered the third attempt `conflict` at once: the racing retry had used it up.
 */
async function expectRaceClaimsTheRepeat(schema: string): Promise<void> {
  const store = await PostgresStore.connect({ connectionString: url, schema, statementTimeoutMs: 10_000 });
  try {
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 40);
    const request = { id: 'raced', fingerprint: 'POST /api/translate usd 10', ttlMs: 60_000 };
    const attempt = (claim: string) => store.deductBalance({ clientId, currency: 'usd', amount: 10, request: { ...request, claim: { id: claim, leaseMs: 60_000 } } });
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM ${quoteIdentifier(schema)}.balances WHERE client_id = $1 FOR UPDATE`, [clientId]);
      const first = attempt('claim-1');
      await untilWaiting(schema, 1);
      const retry = attempt('claim-2');
      await untilWaiting(schema, 2);
      await holder.query('COMMIT');
      expect(await first).toEqual({ status: 'deducted', balance: 30 });
      expect(await retry).toEqual({ status: 'repeated', balance: 30 });
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      holder.release();
    }
    expect(await attempt('claim-3')).toEqual({ status: 'busy' });
    await store.confirmRepeat?.({ clientId, requestId: request.id, claimId: 'claim-2' });
    expect(await attempt('claim-4')).toEqual({ status: 'conflict' });
    expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 30 } });
  } finally {
    await store.close();
  }
}

describe('PostgresStore: a retry racing its first attempt (CR-6.9)', () => {
  it('claims the repeat once the first attempt commits, on a new schema', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    await expectRaceClaimsTheRepeat(schema);
  });

  it('does so on a version 5 schema migrated to the current version', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const q = quoteIdentifier(schema);
    await (await PostgresStore.connect({ connectionString: url, schema })).close();
    await admin.query(`${deductClaimingFunction(q, 'CREATE OR REPLACE', '')}; DELETE FROM ${q}.schema_version WHERE version >= 6`);
    await expectRaceClaimsTheRepeat(schema);
    const { rows } = await admin.query<{ version: number }>(`SELECT max(version) AS version FROM ${q}.schema_version`);
    expect(rows[0]?.version).toBe(POSTGRES_SCHEMA_VERSION);
  });
});
