// Integration tests of store deadlines: a frozen Redis (a proxy that stops forwarding, as SIGSTOP would) gets a quick 503.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { HEADERS } from '../protocol/constants.ts';
import type { Processor } from '../processor/processor.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { RedisStore } from '../stores/redis/redis-store.ts';
import { FreezingProxy } from 'credit402-tooling/testing/freezing-proxy';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { deleteKeys } from 'credit402-tooling/testing/redis';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';
import { createGate } from './gate.ts';
import { OUTCOME_UNKNOWN } from './store-outcome.ts';

const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const keyPrefix = `credit402-test:${randomUUID()}:`;
const proxy = new FreezingProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
const store = await RedisStore.connect({ url: await proxy.start(), keyPrefix });
const direct = await RedisStore.connect({ url: redisUrl.href, keyPrefix });

const WEATHER = 'GET /api/weather';

/** A request that gives up after `timeoutMs` (so a hang fails the test instead of stalling it), with its duration. */
async function timedFetch(url: string, payment?: unknown, timeoutMs = 4_000) {
  const started = Date.now();
  const headers: Record<string, string> = payment === undefined ? {} : { [HEADERS.PAYMENT]: encodeBase64Json(payment) };
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  const body: unknown = await response.json().catch(() => undefined);
  return { status: response.status, headers: response.headers, body, ms: Date.now() - started };
}

describe('a frozen Redis (connection open, no answers)', () => {
  const stack = useReferenceStack({}, { store });
  afterAll(async () => {
    proxy.thaw();
    await store.close(); // before the proxy drops its sockets; the server's close then finds it closed
    await direct.close();
    await proxy.close();
    await deleteKeys(redisUrl.href, keyPrefix);
  });
  beforeEach(() => proxy.thaw());

  it('CR-8.12 answers a paid request 503 with Retry-After within the store deadline, saying the deduction may have happened (was: waits the whole freeze)', async () => {
    const clientId = randomBytes(32).toString('hex');
    await direct.addBalance(clientId, 'usd', 10_000);
    proxy.freeze();
    const [paid, free] = await Promise.all([timedFetch(`${stack.server.url}/api/weather`, { clientId }), sleep(100).then(() => timedFetch(`${stack.server.url}/free`))]);
    expect(paid.status).toBe(503);
    expect(paid.headers.get('retry-after')).toBe('1');
    expect(paid.body).toMatchObject({ success: false, errorCode: 'service_unavailable', error: OUTCOME_UNKNOWN.DEDUCTION });
    expect(paid.ms).toBeLessThan(1_500);
    expect(free.status).toBe(200);
    expect(free.ms).toBeLessThan(200);
    // When Redis resumes, it runs the deduction it was sent, which finds its deadline passed and does nothing: the
    // request answered 503 is not charged (the 503 still says "unknown": the answer may be lost when it was in time).
    proxy.thaw();
    await sleep(100);
    expect((await direct.getClient(clientId))?.balances.usd).toBe(10_000);
  });

  it('answers 503 before any charge when the first payment finds the store frozen (CR-7.21)', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    await stack.control.clearJournal();
    proxy.freeze();
    const paid = await timedFetch(`${stack.server.url}/api/weather`, { paymentMethodId: card });
    expect(paid.status).toBe(503);
    expect(paid.ms).toBeLessThan(1_500);
    expect(await stack.control.journal({ method: 'POST', path: '/v1/payment_intents' })).toEqual([]);
  });

  it('after a charge whose credit met the freeze: 503 saying it may not be credited yet, then the retry is served at once, charged once', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    await stack.control.clearJournal();
    await stack.control.injectFault({ method: 'POST', path: '/v1/payment_intents', kind: 'delay', delayMs: 800, match: { payment_method: card } });
    const first = timedFetch(`${stack.server.url}/api/weather`, { paymentMethodId: card });
    await sleep(400); // the charge is under way: freeze before its credit
    proxy.freeze();
    const pending = await first;
    expect(pending.status).toBe(503);
    expect(pending.body).toMatchObject({ errorCode: 'service_unavailable', error: OUTCOME_UNKNOWN.CREDIT });
    expect(pending.ms).toBeLessThan(800 + 2 * 500 + 700); // the charge, the credit's and the lease release's deadlines
    await stack.control.clearFaults();
    proxy.thaw();
    const retried = await timedFetch(`${stack.server.url}/api/weather`, { paymentMethodId: card });
    expect(retried.status).toBe(200);
    expect(retried.ms).toBeLessThan(1_000);
    const charges = (await stack.control.journal({ method: 'POST', path: '/v1/payment_intents' })).filter((e) => e.status === 200 && !e.replayed);
    expect(charges).toHaveLength(1);
  });
});

describe('createGate storeTimeoutMs', () => {
  const processor: Processor = {
    getCardFingerprint: async () => 'fp',
    findOrCreateCustomer: async () => 'cus',
    charge: async () => ({ id: `pi_${randomUUID().replaceAll('-', '')}`, succeeded: true as const }),
  };
  const options = (store: MemoryStore, storeTimeoutMs?: number) => ({
    stripePublishableKey: 'pk_test_abc',
    serverSecret: 's'.repeat(32),
    store,
    processor,
    routes: { [WEATHER]: { amount: 500 } },
    onError: () => {},
    storeTimeoutMs,
  });

  it('is validated at construction (ERR_STORE)', () => {
    for (const bad of [0, -1, 1.5, '500', Number.NaN]) {
      expect(() => createGate(options(new MemoryStore(), bad as number))).toThrow(expect.objectContaining({ code: 'ERR_STORE' }));
    }
    expect(() => createGate(options(new MemoryStore(), 1))).not.toThrow();
  });

  it('bounds the step-11 deduction too: its 503 says the request may have been deducted, and not charged again', async () => {
    const store = new MemoryStore();
    const deduct = store.deductBalance.bind(store);
    let calls = 0;
    store.deductBalance = async (...args) => (++calls === 2 ? new Promise<never>(() => {}) : deduct(...args));
    const gate = createGate(options(store, 100));
    const started = Date.now();
    const decision = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: encodeBase64Json({ paymentMethodId: 'pm_card_visa' }) });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(decision).toMatchObject({ action: 'respond', status: 503, body: { error: OUTCOME_UNKNOWN.DEDUCTION_AFTER_CREDIT } });
  });
});
