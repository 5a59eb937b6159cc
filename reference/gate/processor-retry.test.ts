// A first payment whose PaymentIntent creation got no answer, retried by the client: one charge, credited once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorControl } from '../../harness/emulator/control-client.ts';
import { startEmulator, type RunningEmulator } from '../../harness/emulator/index.ts';
import { loadServerConfig } from '../server/server-config.ts';
import { startReferenceServer, type RunningServer } from '../server/start-server.ts';
import { MemoryStore } from '../stores/memory-store.ts';
import { paidFetch } from '../testing/paid-fetch.ts';
import { createCardPaymentMethod } from '../testing/test-cards.ts';

const WEATHER = 'GET /api/weather';

describe('retry after a processor failure without an answer', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControl;
  let server: RunningServer;
  const store = new MemoryStore();

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    control = new EmulatorControl(emulator.controlUrl);
    server = await startReferenceServer(loadServerConfig({ overrides: { port: 0, stripeApi: emulator.url, stripeTimeoutMs: 500 } }), { store });
  });
  afterAll(async () => {
    await server?.close();
    await emulator?.close();
  });

  it.each(['reset', 'timeout'] as const)('CR-14.8 a retry after a PaymentIntent creation lost to a %s sends the same idempotency key and is charged once', async (kind) => {
    const card = await createCardPaymentMethod(emulator.url);
    // The SDK retries a reset connection once even with maxNetworkRetries 0 (two faults make one failure);
    // a request held past the SDK's 500 ms timeout is not retried.
    const count = kind === 'reset' ? 2 : 1;
    await control.injectFault({ method: 'POST', path: '/v1/payment_intents', kind, count, delayMs: 1_000, match: { payment_method: card } });
    expect((await paidFetch(server.url, WEATHER, { paymentMethodId: card })).body).toMatchObject({ errorCode: 'payment_failed' });
    const retried = await paidFetch(server.url, WEATHER, { paymentMethodId: card });
    const paid = retried.paymentResponse as { clientId: string };
    expect(paid).toMatchObject({ success: true, creditsRemaining: 49_500 });
    const attempts = (await control.journal({ method: 'POST', path: '/v1/payment_intents' })).filter((e) => e.params.payment_method === card);
    expect(attempts.length).toBeGreaterThan(1);
    expect(new Set(attempts.map((a) => a.idempotencyKey)).size).toBe(1);
    expect(attempts.filter((a) => a.status === 200)).toHaveLength(1);
    expect(await store.getClient(paid.clientId)).toMatchObject({ balance: 49_500, topUps: 1 });
  });
});
