// Runs the store conformance suite against RedisStore on a Redis Cluster (REDIS_CLUSTER_NODES, else three masters started for this file), plus the cluster's own cases: one slot per client and per PaymentIntent, credits and reversals across masters and across a crash between their two steps, scripts after SCRIPT FLUSH.
import { randomUUID } from 'node:crypto';
import { createCluster } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { CLUSTER_SCRIPTS } from './redis-cluster-topups.ts';
import { ClusterKeys } from './redis-keys.ts';
import { connectionOf, LuaScript, type RedisClusterCommandClient } from './redis-lua.ts';
import { RedisStore, type RedisStoreOptions } from './redis-store.ts';
import type { Store } from '../store.ts';
import { describeStoreConformance } from '../conformance/store-conformance.ts';
import { expectFailure, newClientId, newPaymentIntentId } from '../conformance/store-conformance-helpers.ts';
import { deleteClusterKeys, provisionRedisCluster } from 'credit402-tooling/testing/redis-cluster';

// Fail the whole file, loudly, when there is no cluster: CI starts one, so a skip would hide a gap.
const run = await provisionRedisCluster();
const { rootNodes, keyPrefix: prefix } = run;
const admin = createCluster({ rootNodes });
admin.on('error', () => {});
await admin.connect();
const keys = new ClusterKeys(prefix);
const connection = connectionOf(admin);

afterAll(async () => {
  admin.destroy();
  await run.release();
});

/** A store on the shared cluster client (never closes it). */
const onAdmin = (options: Omit<RedisStoreOptions, 'client' | 'cluster'> = {}) => new RedisStore({ client: admin, keyPrefix: prefix, ...options });
const connectCluster = (options: Omit<RedisStoreOptions, 'client' | 'cluster'> = {}) => RedisStore.connect({ cluster: { rootNodes }, keyPrefix: prefix, ...options });

/** The hash slot of a key, and the address of the master that holds it. */
async function slotOf(key: string): Promise<{ slot: number; master: string }> {
  const slot = Number(await admin.sendCommand(undefined, true, ['CLUSTER', 'KEYSLOT', key]));
  const master = admin.slots[slot]?.master.address ?? '';
  return { slot, master };
}

/** A client id and a PaymentIntent id whose keys live on different masters. */
async function apart(): Promise<{ clientId: string; paymentIntentId: string }> {
  for (;;) {
    const clientId = newClientId();
    const paymentIntentId = newPaymentIntentId();
    const [client, intent] = await Promise.all([slotOf(keys.client(clientId)), slotOf(keys.credited(paymentIntentId))]);
    if (client.master !== intent.master) return { clientId, paymentIntentId };
  }
}

/** The store id cases' storage: a fresh prefix (under the run's) is new storage; the same prefix, reopened. */
const keyPrefixes = new WeakMap<Store, string>();
const connectOn = async (keyPrefix: string): Promise<Store> => {
  const store = await connectCluster({ keyPrefix });
  keyPrefixes.set(store, keyPrefix);
  return store;
};
const storeIdStorage = {
  fresh: () => connectOn(`${prefix}${randomUUID()}:`),
  reopen: (store: Store) => connectOn(keyPrefixes.get(store) ?? prefix),
  /** Deletes every key of the store's own prefix on every master, while the store stays open. */
  reset: async (store: Store) => {
    const own = keyPrefixes.get(store);
    if (own === undefined) throw new Error('reset: not a store of connectOn');
    await deleteClusterKeys(rootNodes, own);
  },
};

describeStoreConformance('RedisStore on a Redis Cluster', () => connectCluster(), undefined, storeIdStorage);
describeStoreConformance('RedisStore on a supplied Redis Cluster client, without log', async () => onAdmin({ recordTransactions: false }), undefined, storeIdStorage);

describe('RedisStore on a Redis Cluster', () => {
  it(`was given a cluster of ${run.nodes.length} masters (${run.source})`, () => {
    expect(admin.masters.length).toBeGreaterThanOrEqual(3);
  });

  it('keeps every key of a client in one slot, and every key of a PaymentIntent in one, whatever the ids contain', async () => {
    const store = onAdmin();
    for (const clientId of [newClientId(), `${newClientId()}}x{y`, `{${newClientId()}}`, `a:${newClientId()}:}`]) {
      const paymentIntentId = newPaymentIntentId();
      await store.creditTopUp({ clientId, currency: 'usd', amount: 10, paymentIntentId });
      await store.deductBalance({ clientId, currency: 'usd', amount: 1, request: { id: 'r}1', fingerprint: 'f', ttlMs: 60_000 } });
      await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 2 });
      const clientKeys = [keys.client(clientId), keys.log(clientId), keys.request(clientId, 'r}1'), keys.credit(clientId, paymentIntentId)];
      const intentKeys = [keys.credited(paymentIntentId), keys.reversals(paymentIntentId)];
      for (const key of [...clientKeys, ...intentKeys]) expect(await admin.exists(key), key).toBe(1);
      const clientSlots = new Set(await Promise.all(clientKeys.map(async (key) => (await slotOf(key)).slot)));
      const intentSlots = new Set(await Promise.all(intentKeys.map(async (key) => (await slotOf(key)).slot)));
      expect(clientSlots.size, clientId).toBe(1);
      expect(intentSlots.size, paymentIntentId).toBe(1);
      expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 7 }, topUps: 1 });
    }
  });

  it('would catch a script that touches two slots: the cluster refuses it', async () => {
    const { clientId, paymentIntentId } = await apart();
    const twoSlots = new LuaScript(`return redis.call('EXISTS', KEYS[1]) + redis.call('EXISTS', KEYS[2]) -- ${randomUUID()}`);
    await expect(twoSlots.run(connection, [keys.client(clientId), keys.credited(paymentIntentId)], [])).rejects.toThrow(/CROSSSLOT/);
  });

  it('spreads clients over the masters', async () => {
    const masters = new Set<string>();
    for (let i = 0; i < 30; i++) masters.add((await slotOf(keys.client(newClientId()))).master);
    expect(masters.size).toBe(admin.masters.length);
  });

  it('credits once and caps the reversals when the client and the PaymentIntent live on different masters', async () => {
    const store = onAdmin();
    const { clientId, paymentIntentId } = await apart();
    const credit = { clientId, currency: 'usd', amount: 10_000, paymentIntentId };
    const reversals = Array.from({ length: 10 }, (_, i) => store.reverseTopUp({ paymentIntentId, key: `refund:ch_${i % 3}`, amount: 3_000 + i }));
    const credits = await Promise.all(Array.from({ length: 10 }, () => store.creditTopUp(credit)));
    await Promise.all(reversals);
    expect(credits.filter((r) => r.credited)).toHaveLength(1);
    // Three keys at their highest amounts: 3009 + 3007 + 3008 = 9024 of 10000.
    expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 976 }, topUps: 1 });
    expect(await store.reverseTopUp({ paymentIntentId, key: 'dispute:dp_1', amount: 5_000 }))
      .toEqual({ changed: true, taken: 976, clientId, currency: 'usd', balance: 0 });
    expect(await store.creditTopUp(credit)).toEqual({ credited: false, balance: 0 });
    expect(await store.hasCredit(paymentIntentId)).toBe(true);
    expect((await store.listTransactions!(clientId)).filter((r) => r.type === 'topup')).toHaveLength(1);
  });

  it('completes a credit whose process died after the claim: the next creditTopUp of the PaymentIntent credits the claimed client once', async () => {
    const store = onAdmin();
    const { clientId, paymentIntentId } = await apart();
    // The first step only, as a process that dies before the second would leave it.
    await CLUSTER_SCRIPTS.claimCredit.run(connection, [keys.credited(paymentIntentId), keys.reversals(paymentIntentId)], [clientId, 'eur', '5000', '3600']);
    expect(await store.hasCredit(paymentIntentId)).toBe(false);
    expect(await store.getClient(clientId)).toBeNull();
    // A reversal meanwhile is recorded; the claimed client is not credited yet, so nothing is taken.
    expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 1_000 }))
      .toEqual({ changed: true, taken: 0, clientId: null, currency: null, balance: null });
    // Another caller's credit of that PaymentIntent completes the claim, for the claimed client and amount.
    const other = newClientId();
    expect(await store.creditTopUp({ clientId: other, currency: 'usd', amount: 9, paymentIntentId })).toEqual({ credited: false, balance: 0 });
    expect(await store.getClient(other)).toBeNull();
    expect(await store.getClient(clientId)).toMatchObject({ balances: { eur: 4_000 }, topUps: 1 });
    expect(await store.hasCredit(paymentIntentId)).toBe(true);
    expect(await store.creditTopUp({ clientId, currency: 'eur', amount: 5_000, paymentIntentId })).toEqual({ credited: false, balance: 4_000 });
    expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 6_000 }))
      .toEqual({ changed: true, taken: 4_000, clientId, currency: 'eur', balance: 0 });
    expect(await store.listTransactions!(clientId)).toEqual([expect.objectContaining({ type: 'topup', currency: 'eur', amount: 5_000, paymentIntentId })]);
  });

  it('answers credited: true to the call that completes its own claim', async () => {
    const store = onAdmin();
    const { clientId, paymentIntentId } = await apart();
    await CLUSTER_SCRIPTS.claimCredit.run(connection, [keys.credited(paymentIntentId), keys.reversals(paymentIntentId)], [clientId, 'usd', '700', '3600']);
    expect(await store.creditTopUp({ clientId, currency: 'usd', amount: 700, paymentIntentId })).toEqual({ credited: true, balance: 700 });
    expect(await store.creditTopUp({ clientId, currency: 'usd', amount: 700, paymentIntentId })).toEqual({ credited: false, balance: 700 });
  });

  it('settles a reversal whose process died after recording it, at its redelivery', async () => {
    const store = onAdmin();
    const { clientId, paymentIntentId } = await apart();
    await store.creditTopUp({ clientId, currency: 'usd', amount: 1_000, paymentIntentId });
    await CLUSTER_SCRIPTS.recordReversal.run(connection, [keys.reversals(paymentIntentId), keys.credited(paymentIntentId)], ['refund:ch_1', '300', '3600']);
    expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 1_000 } });
    // The redelivery raises nothing, but takes what the first delivery did not.
    expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 300 }))
      .toEqual({ changed: false, taken: 300, clientId, currency: 'usd', balance: 700 });
    expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 300 }))
      .toEqual({ changed: false, taken: 0, clientId, currency: 'usd', balance: 700 });
    // A lagging reversal is also settled by the next credit of the PaymentIntent.
    await CLUSTER_SCRIPTS.recordReversal.run(connection, [keys.reversals(paymentIntentId), keys.credited(paymentIntentId)], ['dispute:dp_1', '2000', '3600']);
    expect(await store.creditTopUp({ clientId, currency: 'usd', amount: 1_000, paymentIntentId })).toEqual({ credited: false, balance: 0 });
  });

  it('leaves an overflowing credit claimed but uncredited, and credits it once it fits', async () => {
    const store = onAdmin();
    const { clientId, paymentIntentId } = await apart();
    await store.addBalance(clientId, 'usd', Number.MAX_SAFE_INTEGER);
    await expectFailure(() => store.creditTopUp({ clientId, currency: 'usd', amount: 5, paymentIntentId }), RangeError);
    expect(await store.hasCredit(paymentIntentId)).toBe(false);
    expect(await store.getClient(clientId)).toMatchObject({ topUps: 0 });
    await store.deductBalance({ clientId, currency: 'usd', amount: 5 });
    expect(await store.creditTopUp({ clientId, currency: 'usd', amount: 5, paymentIntentId })).toEqual({ credited: true, balance: Number.MAX_SAFE_INTEGER });
  });

  it('keeps the claim, the client side of a credit and the reversals with the transaction TTL, the log with its own', async () => {
    const store = onAdmin({ transactionTtlSeconds: 3600, logRetentionSeconds: 600, maxTransactionsPerClient: 5 });
    const clientId = newClientId();
    const paymentIntentId = newPaymentIntentId();
    await store.creditTopUp({ clientId, currency: 'eur', amount: 30, paymentIntentId });
    await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 5 });
    expect(await admin.hGetAll(keys.credited(paymentIntentId))).toEqual({ client: clientId, currency: 'eur', amount: '30' });
    expect(await admin.hGetAll(keys.credit(clientId, paymentIntentId))).toEqual({ currency: 'eur', amount: '30', reversed: '5' });
    for (const key of [keys.credited(paymentIntentId), keys.reversals(paymentIntentId), keys.credit(clientId, paymentIntentId)]) {
      const ttl = await admin.ttl(key);
      expect(ttl, key).toBeGreaterThan(3500);
      expect(ttl, key).toBeLessThanOrEqual(3600);
    }
    expect(await admin.ttl(keys.log(clientId))).toBeGreaterThan(500);
    expect(await admin.ttl(keys.log(clientId))).toBeLessThanOrEqual(600);
    for (let i = 0; i < 300; i++) await store.deductBalance({ clientId, currency: 'eur', amount: 0, record: { id: randomUUID(), type: 'deduction', clientId, currency: 'eur', amount: 0, createdAt: new Date().toISOString(), resource: 'GET /x' } });
    expect(await admin.xLen(keys.log(clientId))).toBeLessThanOrEqual(105);
    expect(await admin.ttl(keys.client(clientId))).toBe(-1);
  });

  it('deducts, appends the record and keeps the request id in one round trip', async () => {
    const commands: string[] = [];
    const counting: RedisClusterCommandClient = {
      masters: admin.masters,
      nodeClient: (node) => admin.nodeClient(node),
      sendCommand: (firstKey, isReadonly, args) => {
        commands.push(args[0] ?? '');
        return admin.sendCommand(firstKey, isReadonly, args);
      },
    };
    const store = new RedisStore({ client: counting, keyPrefix: prefix });
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 5);
    commands.length = 0;
    const record = { id: randomUUID(), type: 'deduction' as const, clientId, currency: 'usd', amount: 2, createdAt: new Date().toISOString(), resource: 'GET /x' };
    const request = { id: 'req-one', fingerprint: 'f', ttlMs: 5000 };
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: 2, record, request })).toEqual({ status: 'deducted', balance: 3 });
    expect(commands).toEqual(['EVALSHA']);
  });

  it('runs its scripts again after SCRIPT FLUSH on every master', async () => {
    const store = await connectCluster();
    try {
      const clientId = newClientId();
      await store.creditTopUp({ clientId, currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId() });
      for (const master of admin.masters) await (await admin.nodeClient(master)).scriptFlush();
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 4 })).toEqual({ status: 'deducted', balance: 6 });
      expect(await store.creditTopUp({ clientId, currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId() })).toEqual({ credited: true, balance: 16 });
      const node = await admin.nodeClient(admin.slots[(await slotOf(keys.client(clientId))).slot]!.master);
      expect((await node.scriptExists(CLUSTER_SCRIPTS.applyCredit.sha1))[0]).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('loads its scripts on every master at connect', async () => {
    for (const master of admin.masters) await (await admin.nodeClient(master)).scriptFlush();
    const store = await connectCluster();
    await store.close();
    for (const master of admin.masters) {
      expect(await (await admin.nodeClient(master)).scriptExists([CLUSTER_SCRIPTS.claimCredit.sha1, CLUSTER_SCRIPTS.settleReversal.sha1])).toEqual([1, 1]);
    }
  });

  it('refuses a key prefix with braces, and cluster beside url or client, before connecting', async () => {
    await expectFailure(() => RedisStore.connect({ cluster: { rootNodes }, keyPrefix: 'a{b}:' }), TypeError);
    expect(() => new RedisStore({ client: admin, keyPrefix: 'x}' })).toThrow(TypeError);
    await expectFailure(() => RedisStore.connect({ cluster: { rootNodes }, url: 'redis://127.0.0.1:6379' }), TypeError);
    await expectFailure(() => RedisStore.connect({ cluster: { rootNodes: [] } }), TypeError);
  });

  it('rejects connect with a message naming the unreachable root nodes', async () => {
    await expect(RedisStore.connect({ cluster: { rootNodes: [{ url: 'redis://127.0.0.1:1' }] } })).rejects.toThrow(/cannot connect to the Redis Cluster at redis:\/\/127\.0\.0\.1:1/);
  });
});
