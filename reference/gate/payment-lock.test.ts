// Integration tests of the per-client payment lock: concurrent first payments with one card make one charge.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../compose/engine-config.ts';
import { startReferenceServer, type RunningServer } from '../server/start-server.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { FlakyStore } from 'credit402-tooling/testing/flaky-store';
import { ScriptedStore } from 'credit402-tooling/testing/scripted-store';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { createCardPaymentMethod, uniqueCardNumber } from 'credit402-tooling/testing/test-cards';
import { MESSAGES } from '../protocol/constants.ts';
import type { GateContext } from './context.ts';
import { StoreUnavailableError } from './failures.ts';
import { ORPHAN_RETRY_MS, OrphanedLeases, PAYMENT_IN_PROGRESS, withPaymentLock } from './payment-lock.ts';
import { OUTCOME_UNKNOWN } from './store-outcome.ts';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';

const WEATHER = 'GET /api/weather';

describe('payment lock', () => {
  const store = new MemoryStore();
  const chargesFor = async (methods: string[]) =>
    (await stack.control.journal({ method: 'POST', path: '/v1/payment_intents' })).filter((e) => methods.includes(String(e.params.payment_method)));

  const stack = useReferenceStack({ lockWaitMs: 1_000, lockTtlMs: 10_000 }, { store });
  beforeEach(async () => {
    await stack.control.clearFaults();
  });

  it('CR-14.7 charges once for 6 concurrent first payments with one card through different payment methods and top-ups', async () => {
    const number = uniqueCardNumber();
    const methods = await Promise.all([0, 1, 2].map(() => createCardPaymentMethod(stack.emulator.url, number)));
    const payloads = methods.flatMap((paymentMethodId, i) => [
      { paymentMethodId, topUpAmount: 50_000 + i },
      { paymentMethodId, topUpAmount: 60_000 + i },
    ]);
    const responses = await Promise.all(payloads.map((payload) => paidFetch(stack.server.url, WEATHER, payload)));
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
    const charges = (await chargesFor(methods)).filter((e) => e.status === 200);
    expect(charges).toHaveLength(1);
    const paid = responses.map((r) => r.paymentResponse as { clientId: string; chargeId?: string; creditsRemaining: number });
    expect(paid.filter((p) => p.chargeId !== undefined)).toHaveLength(1);
    const topUp = Number((charges[0]!.params.metadata as { credit402_top_up_units: string }).credit402_top_up_units);
    expect(await store.getClient(paid[0]!.clientId)).toMatchObject({ balances: { usd: topUp - 6 * 500 }, topUps: 1 });
  });

  it('CR-14.7 answers 503 to a payment that waited longer than lockWaitMs, which is then served from the balance', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    await stack.control.injectFault({ method: 'POST', path: '/v1/payment_intents', kind: 'delay', delayMs: 1_600, match: { payment_method: card } });
    const first = paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waited = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card, topUpAmount: 70_000 });
    expect(waited.status).toBe(503);
    expect(waited.headers.get('retry-after')).toBe('1');
    expect(waited.body).toMatchObject({ errorCode: 'service_unavailable', error: PAYMENT_IN_PROGRESS });
    expect((await first).status).toBe(200);
    const retried = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card, topUpAmount: 70_000 });
    expect(retried.paymentResponse).toMatchObject({ success: true, creditsRemaining: 49_000 });
    expect(await chargesFor([card])).toHaveLength(1);
  }, 15_000);

  it('releases the lock when the charge fails, so the next attempt does not wait', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    await stack.control.injectFault({ method: 'POST', path: '/v1/payment_intents', kind: 'error500', match: { payment_method: card } });
    expect((await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card })).body).toMatchObject({ errorCode: 'payment_failed' });
    const started = Date.now();
    expect((await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('a lease left held by a store failure between a charge and its credit', () => {
  // The store fails the credit and then the lease's release (one outage), and is back for the retry the 503 asks for.
  const store = new FlakyStore();
  const timing = { lockWaitMs: 3_000, lockTtlMs: 60_000 };
  const stack = useReferenceStack(timing, { store });
  let other: RunningServer;
  beforeAll(async () => {
    other = await startReferenceServer(loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' }, stripeApi: stack.emulator.url, ...timing } }), { store });
  });
  afterAll(async () => {
    await other?.close();
  });

  const failCreditAndRelease = async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    store.failNext('creditTopUp');
    store.failNext('releaseLock');
    const pending = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    expect(pending.status).toBe(503);
    expect(pending.body).toMatchObject({ errorCode: 'service_unavailable', error: OUTCOME_UNKNOWN.CREDIT });
    return card;
  };
  const timedRetry = async (url: string, card: string) => {
    const started = Date.now();
    const retried = await paidFetch(url, WEATHER, { paymentMethodId: card });
    return { retried, ms: Date.now() - started };
  };

  it('CR-14.12 serves the retry at once on the same server instead of making it wait for the lease (was: lockWaitMs, then 503)', async () => {
    const card = await failCreditAndRelease();
    const { retried, ms } = await timedRetry(stack.server.url, card);
    expect(retried.status).toBe(200);
    expect(retried.paymentResponse).toMatchObject({ success: true, creditsRemaining: 49_500 });
    expect(ms).toBeLessThan(1_000);
  });

  it('CR-14.12 releases the lease in the background once the store answers, so a retry on another server is served at once too', async () => {
    const card = await failCreditAndRelease();
    await sleep(1_000); // Retry-After: 1
    const { retried, ms } = await timedRetry(other.url, card);
    expect(retried.status).toBe(200);
    expect(retried.paymentResponse).toMatchObject({ success: true, creditsRemaining: 49_500 });
    expect(ms).toBeLessThan(1_000);
  });
});

/**
 * Leases as a store that takes the caller's token keeps them (`acquireLock(name, ttlMs, token)`), whose next
 * `acquireLock` calls can be made to apply and then throw (the reply lost with its connection) or to throw unapplied.
 */
class LeaseStore {
  readonly leases = new Map<string, { token: string; expiresAt: number }>();
  readonly released: string[] = [];
  readonly #script: Array<'lost' | 'reject'> = [];

  acquireNext(...outcomes: Array<'lost' | 'reject'>): void {
    this.#script.push(...outcomes);
  }

  async acquireLock(name: string, ttlMs: number, token: string = randomUUID()): Promise<string | null> {
    const outcome = this.#script.shift();
    if (outcome === 'reject') throw new Error('connection refused before the command was sent');
    const held = this.leases.get(name);
    const taken = held === undefined || held.expiresAt <= Date.now();
    if (taken) this.leases.set(name, { token, expiresAt: Date.now() + ttlMs });
    if (outcome === 'lost') throw new Error('connection reset after the command was sent');
    return taken ? token : null;
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    const held = this.leases.get(name);
    if (held === undefined || held.token !== token || held.expiresAt <= Date.now()) return false;
    this.leases.delete(name);
    this.released.push(token);
    return true;
  }
}

describe('a lease whose acquireLock answer was lost (CR-14.12)', () => {
  const lock = { waitMs: 1_000, ttlMs: 60_000 };
  const contextOf = (store: LeaseStore) => ({ store, lock, report: () => {} }) as unknown as GateContext;
  const timed = async <T>(run: () => Promise<T>) => {
    const started = Date.now();
    const outcome: { value?: T; error?: unknown } = await run().then((value) => ({ value }), (error: unknown) => ({ error }));
    return { ...outcome, ms: Date.now() - started };
  };

  it('answers 503, then serves the retry at once (was: lockWaitMs of waiting, then 503 "another payment … in progress" until the lease expired)', async () => {
    const store = new LeaseStore();
    const ctx = contextOf(store);
    store.acquireNext('lost');
    const first = await timed(() => withPaymentLock(ctx, 'client-a', async () => 'charged'));
    expect(first.error).toBeInstanceOf(StoreUnavailableError);
    expect((first.error as Error).message).toBe(MESSAGES.STORE_UNAVAILABLE);
    expect(store.leases.size).toBe(1); // the acquire applied: a lease nobody was told about
    const retry = await timed(() => withPaymentLock(ctx, 'client-a', async () => 'charged'));
    expect(retry).toMatchObject({ value: 'charged' });
    expect(retry.ms).toBeLessThan(200);
    expect(store.leases.size).toBe(0);
  });

  it('releases it in the background every 250 ms, so a retry through another instance is not held up either', async () => {
    const store = new LeaseStore();
    store.acquireNext('lost');
    await expect(withPaymentLock(contextOf(store), 'client-b', async () => 'charged')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.leases.size).toBe(1);
    await sleep(ORPHAN_RETRY_MS * 2);
    expect(store.leases.size).toBe(0);
    const elsewhere = await timed(() => withPaymentLock(contextOf(store), 'client-b', async () => 'charged'));
    expect(elsewhere).toMatchObject({ value: 'charged' });
    expect(elsewhere.ms).toBeLessThan(200);
  });

  it('releases only by the token it sent: an acquire that never applied leaves the current holder\'s lease alone', async () => {
    const store = new LeaseStore();
    const holder = await store.acquireLock('payment:client-c', 60_000, 'the-holders-token');
    expect(holder).toBe('the-holders-token');
    store.acquireNext('reject');
    await expect(withPaymentLock(contextOf(store), 'client-c', async () => 'charged')).rejects.toBeInstanceOf(StoreUnavailableError);
    await sleep(ORPHAN_RETRY_MS * 2);
    expect(store.leases.get('payment:client-c')?.token).toBe('the-holders-token');
    expect(store.released).toEqual([]);
  });
});

describe('a reference server whose store lost the reply of its first acquireLock (issue 25 item 4, CR-14.12)', () => {
  // The first acquireLock takes the lease under the gate's token, then throws: the reply lost with its connection.
  const store = new ScriptedStore([{ method: 'acquireLock', nth: 1, script: 'lost' }]);
  const stack = useReferenceStack({ lockWaitMs: 1_000, lockTtlMs: 60_000 }, { store });

  it('answers the first payment 503 and serves the retry right after (was: 503 "another payment with this card is in progress" for the 60 s lease TTL)', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    const first = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ errorCode: 'service_unavailable', error: MESSAGES.STORE_UNAVAILABLE });
    const started = Date.now();
    const retried = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    expect(retried.body).not.toMatchObject({ error: PAYMENT_IN_PROGRESS });
    expect(retried.status).toBe(200);
    expect(retried.paymentResponse).toMatchObject({ success: true, creditsRemaining: 49_500 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(store.calls.filter((call) => call === 'acquireLock')).toHaveLength(2);
  });
});

describe('OrphanedLeases', () => {
  it('retries a release until the store answers, then forgets the lease; an expired lease is dropped unreleased', async () => {
    let failures = 2;
    const released: string[] = [];
    const orphans = new OrphanedLeases({
      releaseLock: async (name: string, token: string) => {
        if (failures-- > 0) throw new Error('store down');
        released.push(`${name}/${token}`);
        return true;
      },
    });
    orphans.add('payment:a', 't1', Date.now() + 60_000);
    orphans.add('payment:b', 't2', Date.now() - 1);
    await orphans.release('payment:b');
    expect(orphans.size).toBe(1);
    await sleep(ORPHAN_RETRY_MS * 4);
    expect(released).toEqual(['payment:a/t1']);
    expect(orphans.size).toBe(0);
  });
});
