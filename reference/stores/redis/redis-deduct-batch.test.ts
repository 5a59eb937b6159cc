// RedisStore on one server runs a turn's deductions as one DEDUCT_BATCH: one script call, in order, each with its own outcome, as one at a time.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { ClusterKeys, RedisKeys } from './redis-keys.ts';
import type { RedisClusterCommandClient, RedisCommandClient } from './redis-lua.ts';
import { RedisStore } from './redis-store.ts';
import type { Deduction, DeductionResult, Store } from '../store.ts';
import { StoreTimeoutError, withStoreDeadlines } from '../store-deadline.ts';
import { deducted, deductionRecord, INSUFFICIENT, newClientId } from '../conformance/store-conformance-helpers.ts';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `credit402-test:${randomUUID()}:`;
const admin = createClient({ url });
await admin.connect();

afterAll(async () => {
  const keys: string[] = [];
  for await (const batch of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
  if (keys.length > 0) await admin.unlink(keys);
  await admin.close();
});

const freshPrefix = () => `${prefix}${randomUUID()}:`;

/** A store on the admin client that counts the commands it sends, by name. */
function countingStore(keyPrefix = freshPrefix()) {
  const commands: string[] = [];
  const client: RedisCommandClient = {
    sendCommand: (args) => {
      commands.push(args[0] ?? '');
      return admin.sendCommand(args);
    },
  };
  return { store: new RedisStore({ client, keyPrefix }), commands, keyPrefix };
}

/** Every deduction asked in one turn, settled each on its own. */
const inOneTurn = (store: Store, deductions: readonly Deduction[]) => Promise.allSettled(deductions.map((d) => store.deductBalance(d)));
const request = (id: string, fingerprint = `f-${id}`) => ({ id, fingerprint, ttlMs: 60_000 });

describe('RedisStore groups the deductions of one turn (one server)', () => {
  it('runs the deductions of one turn in one EVALSHA, and those of the next turn in another', async () => {
    const { store, commands } = countingStore();
    const clients = [newClientId(), newClientId(), newClientId()];
    for (const clientId of clients) await store.addBalance(clientId, 'usd', 10);
    commands.length = 0;
    const results = await Promise.all(clients.flatMap((clientId) => [1, 2].map((amount) => store.deductBalance({
      clientId, currency: 'usd', amount, record: deductionRecord(clientId, amount), request: request(randomUUID()),
    }))));
    expect(results).toEqual(clients.flatMap(() => [deducted(9), deducted(7)]));
    expect(commands).toEqual(['EVALSHA']);
    await store.deductBalance({ clientId: clients[0]!, currency: 'usd', amount: 1 });
    expect(commands).toEqual(['EVALSHA', 'EVALSHA']);
    expect(await store.listTransactions!(clients[0]!)).toHaveLength(2);
  });

  it("keeps one client's order within a turn, and runs an operation asked after them after them", async () => {
    const { store } = countingStore();
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 3);
    const records = [1, 2, 3, 4].map(() => deductionRecord(clientId, 1));
    const settled = inOneTurn(store, records.map((record) => ({ clientId, currency: 'usd', amount: 1, record })));
    const client = store.getClient(clientId); // asked after the deductions: sees all of them
    expect((await settled).map((s) => s.status === 'fulfilled' && s.value)).toEqual([deducted(2), deducted(1), deducted(0), INSUFFICIENT]);
    expect((await client)?.balances).toEqual({ usd: 0 });
    expect((await store.listTransactions!(clientId)).map((r) => r.id)).toEqual(records.slice(0, 3).map((r) => r.id));
  });

  it("answers an insufficient, conflicting or failing deduction alone, and charges a failing one nothing", async () => {
    const { store, keyPrefix } = countingStore();
    const keys = new RedisKeys(keyPrefix);
    const [ok, poor, broken, badLog] = [newClientId(), newClientId(), newClientId(), newClientId()];
    for (const clientId of [ok, poor, badLog]) await store.addBalance(clientId, 'usd', clientId === poor ? 1 : 5);
    await store.deductBalance({ clientId: ok, currency: 'usd', amount: 1, request: request('kept') });
    await admin.set(keys.client(broken), 'not a hash'); // WRONGTYPE at its first read
    await admin.set(keys.log(badLog), 'not a stream'); // WRONGTYPE at its log append, after its checks
    const settled = await inOneTurn(store, [
      { clientId: ok, currency: 'usd', amount: 1 },
      { clientId: poor, currency: 'usd', amount: 2 },
      { clientId: ok, currency: 'usd', amount: 1, request: request('kept', 'another fingerprint') },
      { clientId: broken, currency: 'usd', amount: 1 },
      { clientId: badLog, currency: 'usd', amount: 1, record: deductionRecord(badLog, 1) },
      { clientId: ok, currency: 'usd', amount: 1 },
    ]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message.split(' ')[0]))).toEqual([
      deducted(3), INSUFFICIENT, { status: 'conflict' }, 'WRONGTYPE', 'WRONGTYPE', deducted(2),
    ]);
    expect((await store.getClient(badLog))?.balances).toEqual({ usd: 5 });
    expect((await store.getClient(poor))?.balances).toEqual({ usd: 1 });
  });

  it('answers each deduction of a turn as one call at a time would (DEDUCT on the cluster layout)', async () => {
    // The same deductions, in one turn and one call at a time, on stores of their own; the latter on the cluster
    // layout (a cluster client faked over this one server), whose deductions are one DEDUCT each.
    const fakeCluster: RedisClusterCommandClient = {
      masters: [],
      nodeClient: async () => admin,
      sendCommand: (_key, _readonly, args) => admin.sendCommand(args),
    };
    const setups = [
      { keyPrefix: freshPrefix(), cluster: false },
      { keyPrefix: freshPrefix(), cluster: false },
      { keyPrefix: freshPrefix(), cluster: true },
    ];
    const [a, b, legacy, negative, none] = ['a', 'b', 'legacy', 'negative', 'none'];
    // Records made once, so that every store logs the same ones.
    const rec = (clientId: string, amount: number, currency = 'usd') =>
      ({ ...deductionRecord(clientId, amount, currency), createdAt: '2026-01-01T00:00:00.000Z' });
    const deductions: Deduction[] = [
      { clientId: a, currency: 'usd', amount: 1, record: rec(a, 1), request: request('r1') },
      { clientId: a, currency: 'usd', amount: 1, record: rec(a, 1), request: request('r1') },
      { clientId: a, currency: 'usd', amount: 1, request: request('r1', 'other') },
      { clientId: a, currency: 'usd', amount: 50 },
      { clientId: a, currency: 'usd', amount: 2, record: rec(a, 2) },
      { clientId: a, currency: 'usd', amount: 0, request: request('r2') },
      { clientId: a, currency: 'usd', amount: 0, request: request('r2') },
      { clientId: a, currency: 'eur', amount: 1 },
      { clientId: b, currency: 'eur', amount: 3, record: rec(b, 3, 'eur') },
      { clientId: b, currency: 'usd', amount: 1 },
      { clientId: legacy, currency: 'usd', amount: 1, request: request('r3') },
      { clientId: legacy, currency: 'usd', amount: 1, record: rec(legacy, 1) },
      { clientId: negative, currency: 'usd', amount: 0 },
      { clientId: none, currency: 'usd', amount: 0 },
      { clientId: a, currency: 'usd', amount: 7 },
    ];
    const outcomes: unknown[] = [];
    for (const [i, { keyPrefix, cluster }] of setups.entries()) {
      const store = new RedisStore(cluster ? { client: fakeCluster, keyPrefix } : { client: admin, keyPrefix });
      const keys = cluster ? new ClusterKeys(keyPrefix) : new RedisKeys(keyPrefix);
      await store.addBalance(a, 'usd', 10);
      await store.addBalance(b, 'eur', 3);
      await admin.hSet(keys.client(legacy), { balance: '4', top_ups: '1', created_at: '2025-01-01T00:00:00.000Z' });
      await admin.hSet(keys.client(negative), { 'balance:usd': '-2', top_ups: '1', created_at: '2025-01-01T00:00:00.000Z' });
      let results: DeductionResult[];
      if (i === 0) {
        results = await Promise.all(deductions.map((d) => store.deductBalance(d)));
      } else {
        results = [];
        for (const d of deductions) results.push(await store.deductBalance(d));
      }
      const state = await Promise.all([a, b, legacy, negative, none].map(async (clientId) => ({
        balances: (await store.getClient(clientId))?.balances,
        log: await store.listTransactions!(clientId),
      })));
      outcomes.push({ results, state });
    }
    expect(outcomes[0]).toEqual(outcomes[2]);
    expect(outcomes[1]).toEqual(outcomes[2]);
    expect((outcomes[0] as { results: DeductionResult[] }).results.map((r) => r.status)).toEqual([
      'deducted', 'repeated', 'conflict', 'insufficient', 'deducted', 'deducted', 'repeated', 'insufficient', 'deducted',
      'insufficient', 'deducted', 'deducted', 'insufficient', 'insufficient', 'deducted',
    ]);
  });

  it('still answers a deduction with its timeout when the server does not answer', async () => {
    const silent: RedisCommandClient = {
      sendCommand: (args) => (args[0] === 'EVALSHA' && args.some((arg) => arg.includes('client:')) ? new Promise(() => {}) : admin.sendCommand(args)),
    };
    const store = withStoreDeadlines(new RedisStore({ client: silent, keyPrefix: freshPrefix() }), 50);
    const settled = await inOneTurn(store, [1, 2].map((amount) => ({ clientId: newClientId(), currency: 'usd', amount })));
    expect(settled.map((s) => s.status === 'rejected' && s.reason instanceof StoreTimeoutError)).toEqual([true, true]);
  });
});
