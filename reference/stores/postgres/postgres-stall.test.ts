// A stall between the process and PostgreSQL that outlasts the caller's deadline: the statements that arrive when it ends take no money.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { FreezingProxy } from 'credit402-tooling/testing/freezing-proxy';
import { dropSchema, freshSchema, openAdminPool, postgresUrlFromEnv } from 'credit402-tooling/testing/postgres';
import { PostgresStore } from './postgres-store.ts';
import { newClientId, newRequestId } from '../conformance/store-conformance-helpers.ts';
import { StoreTimeoutError, withStoreDeadlines } from '../store-deadline.ts';
import { directUsd, expectShortStallApplied, expectStalledGroupAppliesNothing, stallAttempt } from 'credit402-tooling/testing/store-stall-cases';

const url = new URL(postgresUrlFromEnv());
const admin = await openAdminPool(url.href);
const schema = freshSchema();
// Only this file's connections stall: the proxy holds their bytes back, the shared server runs on for everyone else.
const proxy = new FreezingProxy({ host: url.hostname, port: Number(url.port || 5432) });
const proxied = new URL(url.href);
proxied.port = new URL(await proxy.start()).port;
const direct = await PostgresStore.connect({ connectionString: url.href, schema });
// Statements may run 2 s: the caller's deadline (200 ms), not the statement timeout, is what the stall outlasts.
const stalled = await PostgresStore.connect({ connectionString: proxied.href, schema, statementTimeoutMs: 2_000 });
const setup = { proxy, stalled, direct };

afterAll(async () => {
  proxy.thaw();
  await stalled.close();
  await direct.close();
  await proxy.close();
  await dropSchema(admin, schema);
  await admin.end();
});
beforeEach(() => proxy.thaw());

describe('PostgresStore behind a stall longer than storeTimeoutMs', () => {
  it('a deduction whose statement reaches the server after its caller answered applies nothing (was: deducted, the money lost)', async () => {
    const timed = withStoreDeadlines(stalled, 200);
    const clientId = newClientId();
    const requestId = newRequestId();
    await direct.addBalance(clientId, 'usd', 10_000);
    proxy.freeze();
    await expect(timed.deductBalance(stallAttempt(clientId, requestId))).rejects.toBeInstanceOf(StoreTimeoutError);
    await sleep(200);
    proxy.thaw();
    await sleep(300); // the statement reaches PostgreSQL now, long after its caller answered 503
    expect(await directUsd(direct, clientId)).toBe(10_000);
    expect(await direct.listTransactions?.(clientId)).toEqual([]);
    expect(await timed.deductBalance(stallAttempt(clientId, requestId))).toEqual({ status: 'deducted', balance: 9_500 });
  });

  it('a group of several clients that met the stall applies none of them, and a late refund gives nothing back', () => expectStalledGroupAppliesNothing(setup));

  it('a stall shorter than the deadline changes nothing: the deduction is applied and answered', () => expectShortStallApplied(setup));
});
