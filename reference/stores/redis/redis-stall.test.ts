// A Redis stall that outlasts the caller's deadline (issue 25): the commands that run when it ends take no money, and leave the request id's one repeat unused.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { deleteKeys } from 'credit402-tooling/testing/redis';
import { FreezingProxy } from 'credit402-tooling/testing/freezing-proxy';
import { RedisStore } from './redis-store.ts';
import { newClientId, newRequestId } from '../conformance/store-conformance-helpers.ts';
import { StoreTimeoutError, withStoreDeadlines } from '../store-deadline.ts';
import { directUsd, expectShortStallApplied, expectStalledGroupAppliesNothing, stallAttempt } from 'credit402-tooling/testing/store-stall-cases';

const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const keyPrefix = `credit402-test:${randomUUID()}:`;
// Only this file's connection stalls: the proxy holds its bytes back, the shared server runs on for everyone else.
const proxy = new FreezingProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
const stalled = await RedisStore.connect({ url: await proxy.start(), keyPrefix });
const direct = await RedisStore.connect({ url: redisUrl.href, keyPrefix });
/** The gate's view of the stalled store: 200 ms per call. */
const timed = withStoreDeadlines(stalled, 200);

afterAll(async () => {
  proxy.thaw();
  await stalled.close();
  await direct.close();
  await proxy.close();
  await deleteKeys(redisUrl.href, keyPrefix);
});
beforeEach(() => proxy.thaw());

const setup = { proxy, stalled, direct };
const attempt = stallAttempt;
const usd = (clientId: string) => directUsd(direct, clientId);

describe('RedisStore behind a stall longer than storeTimeoutMs', () => {
  it('an attempt and its retry that both timed out apply nothing when the stall ends; the next retry deducts once (was: conflict, 500 lost)', async () => {
    const clientId = newClientId();
    const requestId = newRequestId();
    await direct.addBalance(clientId, 'usd', 10_000);
    proxy.freeze();
    await expect(timed.deductBalance(attempt(clientId, requestId))).rejects.toBeInstanceOf(StoreTimeoutError);
    await expect(timed.deductBalance(attempt(clientId, requestId))).rejects.toBeInstanceOf(StoreTimeoutError);
    proxy.thaw();
    await sleep(200); // both commands reach Redis now, long after their callers answered 503
    expect(await usd(clientId)).toBe(10_000);
    expect(await direct.listTransactions?.(clientId)).toEqual([]);
    expect(await timed.deductBalance(attempt(clientId, requestId))).toEqual({ status: 'deducted', balance: 9_500 });
    expect(await timed.deductBalance(attempt(clientId, requestId))).toEqual({ status: 'repeated', balance: 9_500 });
  });

  it('a batch of several clients that met the stall applies none of them, and a late refund gives nothing back', () => expectStalledGroupAppliesNothing(setup));

  it('a stall shorter than the deadline changes nothing: the deduction is applied and answered', () => expectShortStallApplied(setup));
});
