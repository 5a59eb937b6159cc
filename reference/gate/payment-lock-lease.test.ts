// The payment lock's lease, derived from the configured timeouts: a card whose lease an instance left behind when it died is free once no payment can still run under it.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { loadServerConfig, type ServerConfig } from '../compose/engine-config.ts';
import { MESSAGES } from '../protocol/constants.ts';
import { StripeProcessor, longestStripeRequestMs } from '../processor/stripe-processor.ts';
import type { Processor } from '../processor/processor.ts';
import { startReferenceServer, type RunningServer } from '../server/start-server.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { ScriptedStore } from 'credit402-tooling/testing/scripted-store';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { createGate } from './gate.ts';
import { FALLBACK_LOCK_TTL_MS, PAYMENT_IN_PROGRESS, paymentLockLeaseMs } from './payment-lock.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

/** A MemoryStore that notes the lease of every acquireLock. */
class LeaseNotingStore extends MemoryStore {
  readonly leases: number[] = [];
  override acquireLock(name: string, ttlMs: number, token?: string): Promise<string | null> {
    this.leases.push(ttlMs);
    return super.acquireLock(name, ttlMs, token);
  }
}

/** A processor that charges every card, and says how long a payment can take when `longestPaymentMs` is given. */
function processorTaking(longestPaymentMs?: unknown): Processor {
  return {
    getCardFingerprint: async (pm: string) => `fp-${pm}`,
    findOrCreateCustomer: async () => 'cus_1',
    charge: async () => ({ id: 'pi_1', succeeded: true }),
    ...(longestPaymentMs === undefined ? {} : { longestPaymentMs }),
  } as Processor;
}

/** The lease the gate asks for on its first payment. */
async function leaseOfFirstPayment(processor: Processor, options: { storeTimeoutMs?: number; lockTtlMs?: number } = {}): Promise<number | undefined> {
  const store = new LeaseNotingStore();
  const gate = createGate({ ...TEST_GATE_KEYS, store, processor, routes: { 'GET /api/weather': { amount: 500 } }, ...options });
  const paid = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: encodeBase64Json({ stripe402Version: 1, paymentMethodId: 'pm_card' }) });
  expect(paid.action).toBe('serve');
  return store.leases[0];
}

describe('the payment lock\'s default lease (issue 34: was 60 s whatever the timeouts)', () => {
  it('is the processor\'s longest payment, the store calls under the lock and a second', async () => {
    expect(paymentLockLeaseMs(3_000, 200)).toBe(3_000 + 6 * 200 + 1_000);
    expect(await leaseOfFirstPayment(processorTaking(3_000), { storeTimeoutMs: 200 })).toBe(5_200);
    expect(await leaseOfFirstPayment(processorTaking(3_000), { storeTimeoutMs: 200, lockTtlMs: 9_000 })).toBe(9_000);
    expect(await leaseOfFirstPayment(processorTaking())).toBe(FALLBACK_LOCK_TTL_MS);
  });

  it('refuses a processor whose longestPaymentMs is no positive number of ms (ERR_PROCESSOR)', () => {
    for (const bad of [0, -1, Number.NaN, '3000', Number.POSITIVE_INFINITY]) {
      expect(codeOf(() => createGate({ ...TEST_GATE_KEYS, store: new MemoryStore(), processor: processorTaking(bad), routes: {} })), String(bad)).toBe('ERR_PROCESSOR');
    }
  });

  it('follows the Stripe processor\'s timeout and retries: three requests, each its attempts times the timeout and the SDK\'s pauses', () => {
    expect(longestStripeRequestMs(20_000, 0)).toBe(2 * 20_000 + 500);
    expect(longestStripeRequestMs(1_000, 3)).toBe(4 * 1_000 + 500 + 500 + 1_000);
    const stripe = new StripeProcessor({ secretKey: 'sk_test_x', timeoutMs: 5_000 });
    expect(stripe.longestPaymentMs).toBe(3 * (2 * 5_000 + 500));
    expect(paymentLockLeaseMs(new StripeProcessor({ secretKey: 'sk_test_x' }).longestPaymentMs, 500)).toBe(125_500);
    expect(paymentLockLeaseMs(stripe.longestPaymentMs, 500)).toBe(35_500);
  });
});

describe('a card whose lease an instance took and lost the reply of, then died', () => {
  let emulator: RunningEmulator;
  let dying: RunningServer | undefined;
  let other: RunningServer | undefined;
  // The dying instance's first acquireLock takes the lease, then loses its reply; it never gets a release through, as
  // if it had died then (it stays up only because it shares the store's memory with the other instance).
  const store = new ScriptedStore([{ method: 'acquireLock', nth: 1, script: 'lost' }, { method: 'releaseLock', script: 'reject' }]);
  // Stripe and the store answer within 300 ms and 200 ms: no payment can run longer than 3 × 1.1 s + 6 × 0.2 s.
  const timing: Partial<ServerConfig> = { stripeTimeoutMs: 300, storeTimeoutMs: 200, lockWaitMs: 500 };
  const lease = paymentLockLeaseMs(3 * longestStripeRequestMs(300, 0), 200);

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    const config = (more: Partial<ServerConfig>) => loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' }, stripeApi: emulator.url, ...timing, ...more } });
    dying = await startReferenceServer(config({}), { store });
    other = await startReferenceServer(config({}), { store: store.inner });
  });
  afterAll(async () => {
    await other?.close();
    await dying?.close();
    await emulator?.close();
  });

  it(`is paid through another instance once the derived lease (${lease} ms) has passed (was: 503 "payment in progress" for 60 s)`, async () => {
    const card = await createCardPaymentMethod(emulator.url);
    const asked = Date.now();
    const first = await paidFetch(dying!.url, 'GET /api/weather', { paymentMethodId: card });
    expect(first.body).toMatchObject({ errorCode: 'service_unavailable', error: MESSAGES.STORE_UNAVAILABLE });
    const waited = await paidFetch(other!.url, 'GET /api/weather', { paymentMethodId: card });
    expect(waited.body).toMatchObject({ errorCode: 'service_unavailable', error: PAYMENT_IN_PROGRESS });
    for (;;) {
      const answer = await paidFetch(other!.url, 'GET /api/weather', { paymentMethodId: card });
      if (answer.status === 200) break;
      expect(answer.body).toMatchObject({ error: PAYMENT_IN_PROGRESS });
      expect(Date.now() - asked, 'still locked past the derived lease').toBeLessThan(lease + 1_500);
      await sleep(200);
    }
    expect(Date.now() - asked).toBeGreaterThanOrEqual(lease - 100);
  }, 30_000);
});
