// Runs the store conformance suite against RedisStore (REDIS_URL or local Redis), plus key TTLs, kept request ids, the lazy migration and cleanup.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { connectionOf, LuaScript, type RedisCommandClient } from './redis-lua.ts';
import { RedisOptionError, RedisStore, type RedisStoreOptions, StoreOptionError } from './redis-store.ts';
import type { Currency, Store } from '../store.ts';
import { describeStoreConformance } from '../conformance/store-conformance.ts';
import { expectFailure, newClientId, newPaymentIntentId } from '../conformance/store-conformance-helpers.ts';
import { deleteKeys } from 'credit402-tooling/testing/redis';

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

/** A store on the shared admin client (never closes it). */
const onAdmin = (options: Omit<RedisStoreOptions, 'client'> = {}) => new RedisStore({ client: admin, keyPrefix: prefix, ...options });
/** A key prefix of its own under the run's prefix, for data laid out by hand. */
const freshPrefix = () => `${prefix}${randomUUID()}:`;
/** Deducts without record or request id; resolves the new balance or null. */
const deduct = async (store: Store, clientId: string, amount: number, currency: Currency = 'usd'): Promise<number | null> => {
  const result = await store.deductBalance({ clientId, currency, amount });
  return result.status === 'deducted' ? result.balance : null;
};
const deductionRecord = (clientId: string, amount: number, currency: Currency = 'usd') =>
  ({ id: randomUUID(), type: 'deduction' as const, clientId, currency, amount, createdAt: new Date().toISOString(), resource: 'GET /x' });

/** The store id cases' storage: a fresh prefix is new storage; the same prefix, reopened. */
const keyPrefixes = new WeakMap<Store, string>();
const connectOn = async (keyPrefix: string): Promise<Store> => {
  const store = await RedisStore.connect({ url, keyPrefix });
  keyPrefixes.set(store, keyPrefix);
  return store;
};
/** Deletes every key of the store's own prefix, as a FLUSH (or a restart without persistence) would, while it stays open. */
const resetPrefix = async (store: Store): Promise<void> => {
  const own = keyPrefixes.get(store);
  if (own === undefined) throw new Error('resetPrefix: not a store of connectOn');
  await deleteKeys(url, own);
};
const storeIdStorage = {
  fresh: () => connectOn(freshPrefix()),
  reopen: (store: Store) => connectOn(keyPrefixes.get(store) ?? prefix),
  reset: resetPrefix,
};

describeStoreConformance('RedisStore', () => RedisStore.connect({ url, keyPrefix: prefix }), undefined, storeIdStorage);
describeStoreConformance('RedisStore on a supplied client', async () => onAdmin(), undefined, storeIdStorage);
describeStoreConformance('RedisStore without log', () => RedisStore.connect({ url, keyPrefix: prefix, recordTransactions: false }), undefined, storeIdStorage);

describe('RedisStore specifics', () => {
  it('expires transaction logs after logRetentionSeconds and credited PaymentIntent markers after transactionTtlSeconds, never client records', async () => {
    const store = onAdmin({ transactionTtlSeconds: 7200, logRetentionSeconds: 600 });
    expect(store.logRetentionMs).toBe(600_000);
    const clientId = newClientId();
    const paymentIntentId = newPaymentIntentId();
    await store.creditTopUp({ clientId, currency: 'usd', amount: 10, paymentIntentId });
    await store.recordTransaction!(deductionRecord(clientId, 1));
    const ttls = { [`${prefix}transactions:${clientId}`]: 600, [`${prefix}credited:${paymentIntentId}`]: 7200 };
    for (const [key, seconds] of Object.entries(ttls)) {
      const ttl = await admin.ttl(key);
      expect(ttl, key).toBeGreaterThan(seconds - 100);
      expect(ttl, key).toBeLessThanOrEqual(seconds);
    }
    expect(await admin.ttl(`${prefix}client:${clientId}`)).toBe(-1);
    // Defaults: the log a recent window (1 hour, 1000 entries per client), the markers 90 days.
    const other = newClientId();
    const otherIntent = newPaymentIntentId();
    const defaults = onAdmin();
    expect(defaults).toMatchObject({ logRetentionMs: 3_600_000, maxTransactionsPerClient: 1000, creditRetentionMs: 90 * 86_400_000 });
    await defaults.creditTopUp({ clientId: other, currency: 'usd', amount: 1, paymentIntentId: otherIntent });
    expect(await admin.ttl(`${prefix}transactions:${other}`)).toBeGreaterThan(3600 - 60);
    expect(await admin.ttl(`${prefix}transactions:${other}`)).toBeLessThanOrEqual(3600);
    expect(await admin.ttl(`${prefix}credited:${otherIntent}`)).toBeGreaterThan(90 * 86400 - 60);
  });

  it('expires reversals, processed event ids and leases; reports its credit retention', async () => {
    const store = onAdmin({ transactionTtlSeconds: 3600, eventTtlSeconds: 600 });
    expect(store.creditRetentionMs).toBe(3_600_000);
    const paymentIntentId = newPaymentIntentId();
    await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 5 });
    await store.markEventProcessed('evt_ttl');
    await store.acquireLock('ttl', 5000);
    expect(await admin.ttl(`${prefix}reversals:${paymentIntentId}`)).toBeGreaterThan(3500);
    expect(await admin.ttl(`${prefix}event:evt_ttl`)).toBeGreaterThan(500);
    expect(await admin.pTTL(`${prefix}lock:ttl`)).toBeGreaterThan(4000);
  });

  it('keeps the credited client, currency and amount in the marker', async () => {
    const clientId = newClientId();
    const paymentIntentId = newPaymentIntentId();
    await onAdmin().creditTopUp({ clientId, currency: 'eur', amount: 30, paymentIntentId });
    expect(await admin.hGetAll(`${prefix}credited:${paymentIntentId}`)).toEqual({ client: clientId, currency: 'eur', amount: '30' });
  });

  it('drops log entries older than logRetentionSeconds when appending, keeping the credited markers', async () => {
    const store = onAdmin({ logRetentionSeconds: 1 });
    const clientId = newClientId();
    const first = newPaymentIntentId();
    await store.creditTopUp({ clientId, currency: 'usd', amount: 1, paymentIntentId: first });
    await store.deductBalance({ clientId, currency: 'usd', amount: 1, record: deductionRecord(clientId, 1) });
    await sleep(1100);
    await store.creditTopUp({ clientId, currency: 'usd', amount: 2, paymentIntentId: newPaymentIntentId() });
    expect((await store.listTransactions!(clientId)).map((r) => r.amount)).toEqual([2]);
    expect(await store.hasCredit(first)).toBe(true);
    expect(await store.creditTopUp({ clientId, currency: 'usd', amount: 1, paymentIntentId: first })).toEqual({ credited: false, balance: 2 });
  });

  it('stores the client as a hash of exact decimal integers, one field per currency', async () => {
    const store = onAdmin();
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', Number.MAX_SAFE_INTEGER);
    await store.addBalance(clientId, 'eur', 5);
    const hash = await admin.hGetAll(`${prefix}client:${clientId}`);
    expect(hash).toMatchObject({ 'balance:usd': '9007199254740991', 'balance:eur': '5', top_ups: '0' });
    expect(Object.keys(hash).sort()).toEqual(['balance:eur', 'balance:usd', 'created_at', 'top_ups']);
  });

  it('never overdraws through two connections deducting concurrently', async () => {
    const [a, b] = await Promise.all([RedisStore.connect({ url, keyPrefix: prefix }), RedisStore.connect({ url, keyPrefix: prefix })]);
    const clientId = newClientId();
    await a.addBalance(clientId, 'usd', 100);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => deduct(i % 2 ? a : b, clientId, 1)));
    expect(results.filter((r) => r !== null)).toHaveLength(100);
    expect((await b.getClient(clientId))?.balances).toEqual({ usd: 0 });
    await Promise.all([a.close(), b.close()]);
  });

  it('leaves a supplied client open on close, and needs one in the constructor', async () => {
    await onAdmin().close();
    expect(await admin.ping()).toBe('PONG');
    expect(() => new RedisStore({})).toThrow(TypeError);
  });

  it('runs a script the server does not hold yet, then by its SHA1', async () => {
    const script = new LuaScript(`return 'ok' -- ${randomUUID()}`);
    expect(await admin.scriptExists(script.sha1)).toEqual([0]);
    expect(await script.run(connectionOf(admin), [], [])).toBe('ok');
    expect(await admin.scriptExists(script.sha1)).toEqual([1]);
  });

  it('rejects connect with a message naming an unreachable server', async () => {
    await expect(RedisStore.connect({ url: 'redis://127.0.0.1:1' })).rejects.toThrow(/cannot connect to redis:\/\/127\.0\.0\.1:1/);
  });

  it('maps a Lua overflow to a RangeError', async () => {
    const store = onAdmin();
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', Number.MAX_SAFE_INTEGER);
    await expectFailure(() => store.addBalance(clientId, 'usd', 1), RangeError);
  });
});

describe('RedisStore log bounds: a recent window, apart from the credited markers (issue 25)', () => {
  const logKey = (clientId: string) => `${prefix}transactions:${clientId}`;

  it('rejects an invalid logRetentionSeconds or maxTransactionsPerClient with ERR_REDIS_OPTION, before connecting', async () => {
    const invalid = { name: 'StoreOptionError', code: 'ERR_REDIS_OPTION', message: expect.stringMatching(/^RedisStore: /) };
    for (const value of [0, -1, 1.5, '60' as unknown as number]) {
      expect(() => onAdmin({ logRetentionSeconds: value }), `logRetentionSeconds ${String(value)}`).toThrow(expect.objectContaining(invalid));
      expect(() => onAdmin({ maxTransactionsPerClient: value }), `maxTransactionsPerClient ${String(value)}`).toThrow(RangeError);
      await expect(RedisStore.connect({ url: 'redis://127.0.0.1:1', maxTransactionsPerClient: value })).rejects.toThrow(RedisOptionError);
    }
    expect(() => onAdmin({ logRetentionSeconds: Number.MAX_SAFE_INTEGER })).toThrow(StoreOptionError);
    expect(RedisOptionError, 'the deprecated name is the shared class').toBe(StoreOptionError);
    expect(() => onAdmin({ transactionTtlSeconds: 0 })).toThrow(expect.objectContaining(invalid));
    expect(onAdmin({ maxTransactionsPerClient: Number.MAX_SAFE_INTEGER }).maxTransactionsPerClient).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('keeps at least the newest maxTransactionsPerClient entries of each client, at most a stream node more', async () => {
    const cap = 50;
    const store = onAdmin({ maxTransactionsPerClient: cap });
    const [busy, quiet] = [newClientId(), newClientId()];
    await store.addBalance(busy, 'usd', 1000);
    await store.addBalance(quiet, 'usd', 1000);
    const records = Array.from({ length: 300 }, (_, i) => deductionRecord(busy, 1 + (i % 3)));
    // One turn: grouped deductions (DEDUCT_BATCH, 256 a call), then single appends.
    const results = await Promise.all(records.slice(0, 280).map((record) => store.deductBalance({ clientId: busy, currency: 'usd', amount: record.amount, record })));
    expect(results.every((result) => result.status === 'deducted')).toBe(true);
    for (const record of records.slice(280)) await store.recordTransaction!(record);
    for (let i = 0; i < 5; i++) await store.deductBalance({ clientId: quiet, currency: 'usd', amount: 1, record: deductionRecord(quiet, 1) });
    const length = await admin.xLen(logKey(busy));
    expect(length).toBeGreaterThanOrEqual(cap);
    expect(length).toBeLessThanOrEqual(cap + 100); // stream-node-max-entries: MAXLEN ~ trims whole nodes only
    const kept = await store.listTransactions!(busy);
    expect(kept.map((record) => record.id)).toEqual(records.slice(-kept.length).map((record) => record.id));
    expect(await store.listTransactions!(quiet)).toHaveLength(5);
  });

  it('refunds a deduction whose record the cap dropped (money back, log untouched), and removes a kept record', async () => {
    const store = onAdmin({ maxTransactionsPerClient: 10 });
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 1000);
    const records = Array.from({ length: 200 }, () => deductionRecord(clientId, 2));
    for (const record of records) await store.deductBalance({ clientId, currency: 'usd', amount: 2, record });
    const before = await store.listTransactions!(clientId);
    expect(before.some((record) => record.id === records[0]!.id)).toBe(false);
    expect(await store.refundDeduction({ clientId, currency: 'usd', amount: 2, recordId: records[0]!.id, refundId: randomUUID() })).toEqual({ status: 'refunded', balance: 602 });
    expect(await store.listTransactions!(clientId)).toEqual(before);
    const newest = records.at(-1)!;
    expect(await store.refundDeduction({ clientId, currency: 'usd', amount: 2, recordId: newest.id, refundId: randomUUID() })).toEqual({ status: 'refunded', balance: 604 });
    expect((await store.listTransactions!(clientId)).map((record) => record.id)).toEqual(before.slice(0, -1).map((record) => record.id));
  });

  it('keeps credited markers for transactionTtlSeconds when the log is short', async () => {
    const store = onAdmin({ transactionTtlSeconds: 86_400, logRetentionSeconds: 1, maxTransactionsPerClient: 1 });
    const clientId = newClientId();
    const paymentIntentIds = [newPaymentIntentId(), newPaymentIntentId(), newPaymentIntentId()];
    for (const paymentIntentId of paymentIntentIds) await store.creditTopUp({ clientId, currency: 'usd', amount: 5, paymentIntentId });
    expect(await admin.xLen(logKey(clientId))).toBeLessThanOrEqual(101);
    for (const paymentIntentId of paymentIntentIds) {
      expect(await store.hasCredit(paymentIntentId)).toBe(true);
      expect(await admin.ttl(`${prefix}credited:${paymentIntentId}`)).toBeGreaterThan(86_300);
    }
    expect(await store.creditTopUp({ clientId, currency: 'usd', amount: 5, paymentIntentId: paymentIntentIds[0]! })).toEqual({ credited: false, balance: 15 });
  });
});

describe('RedisStore kept request ids (CR-6.9)', () => {
  const requestKey = (clientId: string, requestId: string) => `${prefix}request:${clientId.length}:${clientId}:${requestId}`;

  it('keeps a deduction under a key that expires after ttlMs, marks its one repeat, and keeps nothing for a failure', async () => {
    const store = onAdmin();
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 3);
    const request = { id: 'req-1', fingerprint: 'GET /x usd 2', ttlMs: 5000 };
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: 2, request })).toEqual({ status: 'deducted', balance: 1 });
    const key = requestKey(clientId, 'req-1');
    expect(await admin.get(key)).toBe('0GET /x usd 2');
    expect(await admin.pTTL(key)).toBeGreaterThan(4000);
    expect(await admin.pTTL(key)).toBeLessThanOrEqual(5000);
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: 2, request })).toEqual({ status: 'repeated', balance: 1 });
    expect(await admin.get(key)).toBe('1GET /x usd 2');
    expect(await admin.pTTL(key)).toBeGreaterThan(4000);
    const failed = { ...request, id: 'req-2' };
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: 2, request: failed })).toEqual({ status: 'insufficient' });
    expect(await admin.exists(requestKey(clientId, 'req-2'))).toBe(0);
  });

  it('deducts again under the same id once the kept deduction expired', async () => {
    const store = onAdmin();
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 5);
    const deduction = { clientId, currency: 'usd', amount: 1, request: { id: 'req-ttl', fingerprint: 'f', ttlMs: 50 } };
    expect(await store.deductBalance(deduction)).toEqual({ status: 'deducted', balance: 4 });
    await sleep(120);
    expect(await store.deductBalance(deduction)).toEqual({ status: 'deducted', balance: 3 });
  });

  it('keeps ids containing ":" apart per client', async () => {
    const store = onAdmin();
    const [a, b] = [`${newClientId()}:x`, newClientId()];
    await store.addBalance(a, 'usd', 5);
    await store.addBalance(b, 'usd', 5);
    const request = (id: string) => ({ id, fingerprint: 'f', ttlMs: 5000 });
    // (a, 'y') and (a without ':x', 'x:y') would share the key 'request:<a>:y' without the length.
    expect(await store.deductBalance({ clientId: a, currency: 'usd', amount: 1, request: request('y') })).toMatchObject({ status: 'deducted' });
    expect(await store.deductBalance({ clientId: b, currency: 'usd', amount: 1, request: request('x:y') })).toMatchObject({ status: 'deducted' });
  });

  it('deducts, appends the record and keeps the request id in one round trip', async () => {
    const commands: string[] = [];
    const counting: RedisCommandClient = {
      sendCommand: (args) => {
        commands.push(args[0] ?? '');
        return admin.sendCommand(args);
      },
    };
    const store = new RedisStore({ client: counting, keyPrefix: prefix });
    const clientId = newClientId();
    await store.addBalance(clientId, 'usd', 5);
    commands.length = 0;
    const request = { id: 'req-one', fingerprint: 'f', ttlMs: 5000 };
    expect(await store.deductBalance({ clientId, currency: 'usd', amount: 2, record: deductionRecord(clientId, 2), request })).toEqual({ status: 'deducted', balance: 3 });
    expect(commands).toEqual(['EVALSHA']);
    expect(await store.listTransactions!(clientId)).toHaveLength(1);
  });
});

describe('RedisStore migrates data from before balances had a currency, lazily (CR-6.8)', () => {
  const createdAt = '2024-01-02T03:04:05.000Z';
  /** Writes one client as the store wrote it before: a `balance` field, a string marker, log entries without currency. */
  const writeOldLayout = async (keyPrefix: string, balance = '480') => {
    const clientId = newClientId();
    const paymentIntentId = newPaymentIntentId();
    await admin.hSet(`${keyPrefix}client:${clientId}`, { balance, top_ups: '1', created_at: createdAt });
    await admin.set(`${keyPrefix}credited:${paymentIntentId}`, `500 ${clientId}`, { EX: 3600 });
    const log = `${keyPrefix}transactions:${clientId}`;
    await admin.xAdd(log, '*', { id: 't-1', type: 'topup', client_id: clientId, amount: '500', created_at: createdAt, payment_intent_id: paymentIntentId });
    await admin.xAdd(log, '*', { id: 't-2', type: 'deduction', client_id: clientId, amount: '20', created_at: createdAt, resource: 'GET /x' });
    return { clientId, paymentIntentId, hash: `${keyPrefix}client:${clientId}` };
  };
  const connect = async (keyPrefix: string, legacyCurrency?: Currency) => {
    const store = await RedisStore.connect({ url, keyPrefix, ...(legacyCurrency ? { legacyCurrency } : {}) });
    opened.push(store);
    return store;
  };
  const opened: RedisStore[] = [];
  afterAll(async () => {
    for (const store of opened) await store.close();
  });

  it('turns balances, records and credited markers into legacyCurrency ones, and keeps them working', async () => {
    const keyPrefix = freshPrefix();
    const old = await writeOldLayout(keyPrefix);
    const store = await connect(keyPrefix, 'eur');
    expect(await admin.get(`${keyPrefix}legacy-currency`)).toBe('eur');
    expect(await store.getClient(old.clientId)).toEqual({ balances: { eur: 480 }, topUps: 1, createdAt });
    expect(await admin.hGetAll(old.hash)).toEqual({ 'balance:eur': '480', top_ups: '1', created_at: createdAt });
    expect(await store.listTransactions!(old.clientId)).toEqual([
      { id: 't-1', type: 'topup', clientId: old.clientId, currency: 'eur', amount: 500, createdAt, paymentIntentId: old.paymentIntentId },
      { id: 't-2', type: 'deduction', clientId: old.clientId, currency: 'eur', amount: 20, createdAt, resource: 'GET /x' },
    ]);
    expect(await store.hasCredit(old.paymentIntentId)).toBe(true);
    expect(await store.creditTopUp({ clientId: old.clientId, currency: 'eur', amount: 500, paymentIntentId: old.paymentIntentId }))
      .toEqual({ credited: false, balance: 480 });
    expect(await store.reverseTopUp({ paymentIntentId: old.paymentIntentId, key: 'refund:ch_1', amount: 600 }))
      .toEqual({ changed: true, taken: 500, clientId: old.clientId, currency: 'eur', balance: -20 });
    await store.addBalance(old.clientId, 'eur', 320);
    // New money in another currency lives beside the migrated balance; the old one is not usd.
    expect(await deduct(store, old.clientId, 1, 'usd')).toBeNull();
    await store.creditTopUp({ clientId: old.clientId, currency: 'usd', amount: 7, paymentIntentId: newPaymentIntentId() });
    expect(await deduct(store, old.clientId, 100, 'eur')).toBe(200);
    expect(await store.getClient(old.clientId)).toEqual({ balances: { eur: 200, usd: 7 }, topUps: 2, createdAt });
  });

  it('migrates a client at its first touch by any operation, and a zero balance stays absent', async () => {
    const keyPrefix = freshPrefix();
    const store = await connect(keyPrefix, 'chf');
    const [byDeduct, byAdd, byEnsure, byCredit, zero] = await Promise.all([
      writeOldLayout(keyPrefix), writeOldLayout(keyPrefix), writeOldLayout(keyPrefix), writeOldLayout(keyPrefix), writeOldLayout(keyPrefix, '0'),
    ]);
    expect(await deduct(store, byDeduct.clientId, 80, 'chf')).toBe(400);
    expect(await store.addBalance(byAdd.clientId, 'chf', 20)).toBe(500);
    await store.ensureClient(byEnsure.clientId);
    expect(await store.creditTopUp({ clientId: byCredit.clientId, currency: 'chf', amount: 5, paymentIntentId: newPaymentIntentId() }))
      .toEqual({ credited: true, balance: 485 });
    expect(await admin.hGetAll(byEnsure.hash)).toEqual({ 'balance:chf': '480', top_ups: '1', created_at: createdAt });
    expect(await store.getClient(zero.clientId)).toEqual({ balances: {}, topUps: 1, createdAt });
    expect(await admin.hGetAll(zero.hash)).toEqual({ top_ups: '1', created_at: createdAt });
    // A reversal of an old marker migrates the credited client it names, and reads the legacy currency.
    const reversed = await writeOldLayout(keyPrefix);
    expect(await store.reverseTopUp({ paymentIntentId: reversed.paymentIntentId, key: 'dispute:dp_1', amount: 30 }))
      .toEqual({ changed: true, taken: 30, clientId: reversed.clientId, currency: 'chf', balance: 450 });
    expect(await admin.hGetAll(reversed.hash)).toEqual({ 'balance:chf': '450', top_ups: '1', created_at: createdAt });
  });

  it('migrates once: a second connect or touch changes nothing, and a later legacyCurrency follows the pinned one', async () => {
    const keyPrefix = freshPrefix();
    const old = await writeOldLayout(keyPrefix);
    expect(await (await connect(keyPrefix, 'eur')).getClient(old.clientId)).toMatchObject({ balances: { eur: 480 } });
    const migrated = await admin.hGetAll(old.hash);
    const again = await connect(keyPrefix, 'gbp');
    expect(await admin.get(`${keyPrefix}legacy-currency`)).toBe('eur');
    expect(await again.getClient(old.clientId)).toEqual({ balances: { eur: 480 }, topUps: 1, createdAt });
    await again.ensureClient(old.clientId);
    expect(await admin.hGetAll(old.hash)).toEqual(migrated);
    expect((await again.listTransactions!(old.clientId)).map((r) => r.currency)).toEqual(['eur', 'eur']);
    // Data still in the old layout is read as the pinned currency, not as this store's option.
    const late = await writeOldLayout(keyPrefix);
    expect(await again.getClient(late.clientId)).toMatchObject({ balances: { eur: 480 } });
    // A store on its own client, made by the constructor, follows the pin as well.
    expect(await new RedisStore({ client: admin, keyPrefix, legacyCurrency: 'jpy' }).reverseTopUp({ paymentIntentId: late.paymentIntentId, key: 'refund:ch_1', amount: 1 }))
      .toMatchObject({ currency: 'eur', balance: 479 });
  });

  it('defaults the legacy currency to usd', async () => {
    const keyPrefix = freshPrefix();
    const old = await writeOldLayout(keyPrefix);
    expect(await (await connect(keyPrefix)).getClient(old.clientId)).toMatchObject({ balances: { usd: 480 } });
    expect(await admin.get(`${keyPrefix}legacy-currency`)).toBe('usd');
  });

  it('merges a balance an older process wrote after the migration (rolling upgrade)', async () => {
    const keyPrefix = freshPrefix();
    const old = await writeOldLayout(keyPrefix);
    const store = await connect(keyPrefix, 'eur');
    expect(await deduct(store, old.clientId, 80, 'eur')).toBe(400);
    await admin.hIncrBy(old.hash, 'balance', 25); // the old code's credit
    expect(await store.getClient(old.clientId)).toMatchObject({ balances: { eur: 425 } });
    expect(await admin.hExists(old.hash, 'balance')).toBe(0);
  });

  it('never overdraws an old client migrated under concurrent deductions from two connections', async () => {
    const keyPrefix = freshPrefix();
    const old = await writeOldLayout(keyPrefix, '100');
    const [a, b] = await Promise.all([connect(keyPrefix, 'eur'), connect(keyPrefix, 'eur')]);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => deduct(i % 2 ? a : b, old.clientId, 1, 'eur')));
    expect(results.filter((r) => r !== null)).toHaveLength(100);
    expect((await a.getClient(old.clientId))?.balances).toEqual({ eur: 0 });
  });

  it('reverses a PaymentIntent credited before markers carried the amount, without a cap', async () => {
    const keyPrefix = freshPrefix();
    const store = await connect(keyPrefix, 'eur');
    const clientId = newClientId();
    const paymentIntentId = newPaymentIntentId();
    await store.addBalance(clientId, 'eur', 100);
    await admin.set(`${keyPrefix}credited:${paymentIntentId}`, clientId);
    expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 150 }))
      .toEqual({ changed: true, taken: 150, clientId, currency: 'eur', balance: -50 });
  });

  it('rejects an invalid legacyCurrency with a TypeError, before connecting', async () => {
    await expectFailure(() => RedisStore.connect({ url, keyPrefix: freshPrefix(), legacyCurrency: 'EUR' }), TypeError);
    await expectFailure(() => RedisStore.connect({ url: 'redis://127.0.0.1:1', legacyCurrency: 'euro' }), TypeError);
    await expectFailure(() => RedisStore.connect({ client: admin, keyPrefix: freshPrefix(), legacyCurrency: '' }), TypeError);
    expect(() => new RedisStore({ client: admin, keyPrefix: freshPrefix(), legacyCurrency: 'e1r' })).toThrow(TypeError);
  });

  it('refuses a pinned legacy currency that is not a currency code', async () => {
    const keyPrefix = freshPrefix();
    await admin.set(`${keyPrefix}legacy-currency`, 'EURO');
    await expect(RedisStore.connect({ url, keyPrefix })).rejects.toThrow(/legacy-currency must be a lowercase three-letter currency code/);
    await expectFailure(() => new RedisStore({ client: admin, keyPrefix }).getClient(newClientId()), TypeError);
  });
});
