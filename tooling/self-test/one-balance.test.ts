// The one-balance mutant over a real socket: a balance paid in eur pays for a usd route, from one balance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { decodeBase64Json, encodeBase64Json } from 'credit402/protocol';
import { loadServerConfig } from 'credit402/server';
import { createCardPaymentMethod } from '../testing/test-cards.ts';
import { oneBalance } from './one-balance.ts';
import { startStoreMutant, type RunningStoreMutant } from './serve-store-mutant.ts';

let emulator: RunningEmulator;
let target: RunningStoreMutant;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  target = await startStoreMutant(loadServerConfig({ overrides: { port: 0, stripeApi: emulator.url, store: { kind: 'memory' } } }), oneBalance);
});
afterAll(async () => {
  await target?.close();
  await emulator?.close();
});

/** Sends `payload` to a route; resolves to the status and the decoded `payment-response`, if any. */
async function pay(method: string, path: string, payload: unknown): Promise<{ status: number; payment: Record<string, unknown> | undefined }> {
  const response = await fetch(`${target.url}${path}`, { method, headers: { payment: encodeBase64Json(payload) } });
  await response.arrayBuffer();
  const header = response.headers.get('payment-response');
  const decoded = header === null ? undefined : decodeBase64Json(header);
  return { status: response.status, payment: decoded?.ok ? (decoded.value as Record<string, unknown>) : undefined };
}

describe('one-balance mutant', () => {
  it('keeps one balance for every currency: a top-up in eur pays for usd and eur routes alike', async () => {
    const paymentMethodId = await createCardPaymentMethod(emulator.url);
    const translated = await pay('POST', '/api/translate', { paymentMethodId });
    expect(translated).toEqual({ status: 200, payment: expect.objectContaining({ creditsRemaining: 97_500, chargeId: expect.any(String) }) });
    const clientId = translated.payment?.clientId;
    // A credit402 target answers insufficient_credits here (CR-6.8): the client holds no usd.
    expect(await pay('GET', '/api/weather', { clientId })).toEqual({ status: 200, payment: { success: true, creditsRemaining: 97_000, clientId } });
    expect(await pay('POST', '/api/translate', { clientId })).toEqual({ status: 200, payment: { success: true, creditsRemaining: 94_500, clientId } });
  });
});
