// Runs the store conformance suite against RedisStore (REDIS_URL or local Redis), plus key TTLs and cleanup.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { LuaScript } from './redis-lua.ts';
import { RedisStore } from './redis-store.ts';
import { describeStoreConformance } from './store-conformance.ts';
import { expectFailure, newClientId, newPaymentIntentId } from './store-conformance-helpers.ts';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `credit402-test:${randomUUID()}:`;

// Fail the whole file, loudly, when there is no server: CI starts Redis, so a skip would hide a gap.
const admin = await RedisStore.connect({ url, keyPrefix: prefix }).then(
  async (probe) => {
    await probe.close();
    const client = createClient({ url });
    await client.connect();
    return client;
  },
  (error: unknown) => {
    throw new Error(`Redis store tests need a Redis server at ${url} (set REDIS_URL to point elsewhere): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  },
);

afterAll(async () => {
  const keys: string[] = [];
  for await (const batch of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
  if (keys.length > 0) await admin.unlink(keys);
  await admin.close();
});

describeStoreConformance('RedisStore', () => RedisStore.connect({ url, keyPrefix: prefix }));
describeStoreConformance('RedisStore on a supplied client', async () => new RedisStore({ client: admin, keyPrefix: prefix }));
describeStoreConformance('RedisStore without log', () => RedisStore.connect({ url, keyPrefix: prefix, recordTransactions: false }));

describe('RedisStore specifics', () => {
  it('expires transaction logs and credited PaymentIntent markers, never client records', async () => {
    const store = new RedisStore({ client: admin, keyPrefix: prefix, transactionTtlSeconds: 3600 });
    const clientId = newClientId();
    const paymentIntentId = newPaymentIntentId();
    await store.creditTopUp({ clientId, amount: 10, paymentIntentId });
    await store.recordTransaction!({ id: randomUUID(), type: 'deduction', clientId, amount: 1, createdAt: new Date().toISOString(), resource: 'GET /x' });
    for (const key of [`${prefix}transactions:${clientId}`, `${prefix}credited:${paymentIntentId}`]) {
      const ttl = await admin.ttl(key);
      expect(ttl, key).toBeGreaterThan(3500);
      expect(ttl, key).toBeLessThanOrEqual(3600);
    }
    expect(await admin.ttl(`${prefix}client:${clientId}`)).toBe(-1);
    const defaults = new RedisStore({ client: admin, keyPrefix: prefix });
    const other = newClientId();
    await defaults.creditTopUp({ clientId: other, amount: 1, paymentIntentId: newPaymentIntentId() });
    expect(await admin.ttl(`${prefix}transactions:${other}`)).toBeGreaterThan(90 * 86400 - 60);
  });

  it('expires reversals, processed event ids and leases; reports its credit retention', async () => {
    const store = new RedisStore({ client: admin, keyPrefix: prefix, transactionTtlSeconds: 3600, eventTtlSeconds: 600 });
    expect(store.creditRetentionMs).toBe(3_600_000);
    const paymentIntentId = newPaymentIntentId();
    await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 5 });
    await store.markEventProcessed('evt_ttl');
    await store.acquireLock('ttl', 5000);
    expect(await admin.ttl(`${prefix}reversals:${paymentIntentId}`)).toBeGreaterThan(3500);
    expect(await admin.ttl(`${prefix}event:evt_ttl`)).toBeGreaterThan(500);
    expect(await admin.pTTL(`${prefix}lock:ttl`)).toBeGreaterThan(4000);
  });

  it('reverses a PaymentIntent credited before markers carried the amount, without a cap', async () => {
    const store = new RedisStore({ client: admin, keyPrefix: prefix });
    const clientId = newClientId();
    const paymentIntentId = newPaymentIntentId();
    await store.addBalance(clientId, 100);
    await admin.set(`${prefix}credited:${paymentIntentId}`, clientId);
    expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 150 })).toEqual({ changed: true, taken: 150, clientId, balance: -50 });
  });

  it('drops log entries older than the TTL when appending', async () => {
    const store = new RedisStore({ client: admin, keyPrefix: prefix, transactionTtlSeconds: 1 });
    const clientId = newClientId();
    await store.creditTopUp({ clientId, amount: 1, paymentIntentId: newPaymentIntentId() });
    await sleep(1100);
    await store.creditTopUp({ clientId, amount: 2, paymentIntentId: newPaymentIntentId() });
    expect((await store.listTransactions!(clientId)).map((r) => r.amount)).toEqual([2]);
  });

  it('stores the client as a hash of exact decimal integers', async () => {
    const store = new RedisStore({ client: admin, keyPrefix: prefix });
    const clientId = newClientId();
    await store.addBalance(clientId, Number.MAX_SAFE_INTEGER);
    expect(await admin.hGetAll(`${prefix}client:${clientId}`)).toMatchObject({ balance: '9007199254740991', top_ups: '0' });
  });

  it('never overdraws through two connections deducting concurrently', async () => {
    const [a, b] = await Promise.all([RedisStore.connect({ url, keyPrefix: prefix }), RedisStore.connect({ url, keyPrefix: prefix })]);
    const clientId = newClientId();
    await a.addBalance(clientId, 100);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).deductBalance(clientId, 1)));
    expect(results.filter((r) => r !== null)).toHaveLength(100);
    expect((await b.getClient(clientId))?.balance).toBe(0);
    await Promise.all([a.close(), b.close()]);
  });

  it('leaves a supplied client open on close, and needs one in the constructor', async () => {
    await new RedisStore({ client: admin, keyPrefix: prefix }).close();
    expect(await admin.ping()).toBe('PONG');
    expect(() => new RedisStore({})).toThrow(TypeError);
  });

  it('runs a script the server does not hold yet, then by its SHA1', async () => {
    const script = new LuaScript(`return 'ok' -- ${randomUUID()}`);
    expect(await admin.scriptExists(script.sha1)).toEqual([0]);
    expect(await script.run(admin, [], [])).toBe('ok');
    expect(await admin.scriptExists(script.sha1)).toEqual([1]);
  });

  it('rejects connect with a message naming an unreachable server', async () => {
    await expect(RedisStore.connect({ url: 'redis://127.0.0.1:1' })).rejects.toThrow(/cannot connect to redis:\/\/127\.0\.0\.1:1/);
  });

  it('maps a Lua overflow to a RangeError', async () => {
    const store = new RedisStore({ client: admin, keyPrefix: prefix });
    const clientId = newClientId();
    await store.addBalance(clientId, Number.MAX_SAFE_INTEGER);
    await expectFailure(() => store.addBalance(clientId, 1), RangeError);
  });
});
