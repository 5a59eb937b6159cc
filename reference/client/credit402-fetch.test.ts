// The fetch wrapper against the real reference server and the Stripe emulator, over sockets.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeBase64Json } from '../protocol/base64-json.ts';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import {
  createCredit402Fetch,
  Credit402PaymentError,
  Credit402SpendingLimitError,
  FileClientIdStorage,
  MemoryClientIdStorage,
  type Credit402FetchOptions,
  type PaymentDecision,
  type PaymentRequiredInfo,
} from './index.ts';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';

const HEX64 = /^[0-9a-f]{64}$/;
/** Weather costs half a minimum top-up, so the balance runs out every second request. */
const ROUTES = {
  'GET /api/weather': { amount: 25_000, minTopUp: 50_000, description: 'Weather lookup' },
  'POST /api/translate': { amount: 2_500, description: 'Translation' },
};

describe('createCredit402Fetch against the reference server', () => {
  const charges = async () => (await stack.control.journal({ method: 'POST', path: '/v1/payment_intents' })).filter((entry) => entry.status === 200);

  /** A wrapper paying with `decision`, recording every callback and every request it sends. */
  function client(decision: PaymentDecision | null, extra: Partial<Credit402FetchOptions> = {}) {
    const calls: PaymentRequiredInfo[] = [];
    const sent: Request[] = [];
    const pay = createCredit402Fetch({
      onPaymentRequired: async (info) => {
        calls.push(info);
        return decision;
      },
      fetch: async (request) => {
        sent.push(request.clone());
        return fetch(request);
      },
      ...extra,
    });
    return { pay, calls, sent };
  }
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const weather = () => `${stack.server.url}/api/weather`;
  const paymentOf = (request: Request | undefined) => {
    const header = request?.headers.get('payment');
    const decoded = header ? decodeBase64Json(header) : undefined;
    return decoded?.ok ? decoded.value : undefined;
  };

  const stack = useReferenceStack({ routes: ROUTES });
  beforeEach(async () => {
    await stack.control.clearJournal();
  });

  it('pays a first challenge through the callback and retries once with the payment method', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    const { pay, calls, sent } = client({ paymentMethodId: card });
    const response = await pay(weather());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ route: 'GET /api/weather', gated: true, creditsRemaining: 25_000 });
    expect(calls).toEqual([
      {
        reason: 'challenge',
        url: weather(),
        accepts: { scheme: 'stripe', currency: 'usd', amount: 25_000, minTopUp: 50_000, publishableKey: 'pk_test_credit402reference', description: 'Weather lookup' },
        challenge: expect.objectContaining({ stripe402Version: 1, resource: { url: '/api/weather', description: 'Weather lookup' } }),
      },
    ]);
    expect(sent.map(paymentOf)).toEqual([undefined, { stripe402Version: 1, paymentMethodId: card, requestId: expect.stringMatching(UUID) }]);
    expect(pay.getLastPayment()).toEqual({ success: true, creditsRemaining: 25_000, clientId: expect.stringMatching(HEX64), chargeId: expect.stringMatching(/^pi_/) });
    expect(pay.getSessionSpending()).toBe(50_000);
    expect(await charges()).toHaveLength(1);
  });

  it('sends the stored clientId first, so a funded client is charged once and never asked again', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    const storage = new MemoryClientIdStorage();
    const { pay, calls, sent } = client({ paymentMethodId: card, topUpAmount: 100_000 }, { storage });
    const remaining: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await pay(weather());
      expect(response.status).toBe(200);
      remaining.push(pay.getLastPayment()?.creditsRemaining);
    }
    expect(remaining).toEqual([75_000, 50_000, 25_000, 0]);
    expect(calls).toHaveLength(1);
    const clientId = await storage.get(new URL(stack.server.url).origin);
    expect(clientId).toMatch(HEX64);
    expect(sent).toHaveLength(5);
    expect(sent.slice(2).map(paymentOf)).toEqual([1, 2, 3].map(() => ({ stripe402Version: 1, clientId, requestId: expect.stringMatching(UUID) })));
    // One request id per request (CR-6.9): reusing one would have the second request refused.
    expect(new Set(sent.slice(2).map((request) => (paymentOf(request) as { requestId?: string }).requestId)).size).toBe(3);
    expect(await charges()).toHaveLength(1);
  });

  it('reuses a clientId kept in a file by an earlier run, without asking', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credit402-run-'));
    try {
      const card = await createCardPaymentMethod(stack.emulator.url);
      const firstRun = client({ paymentMethodId: card, topUpAmount: 75_000 }, { storage: new FileClientIdStorage(join(dir, 'ids.json')) });
      expect((await firstRun.pay(weather())).status).toBe(200);
      const secondRun = client({ paymentMethodId: card }, { storage: new FileClientIdStorage(join(dir, 'ids.json')) });
      expect((await secondRun.pay(weather())).status).toBe(200);
      expect(secondRun.calls).toEqual([]);
      expect(secondRun.pay.getLastPayment()).toEqual({ success: true, creditsRemaining: 25_000, clientId: firstRun.pay.getLastPayment()?.clientId });
      expect(await charges()).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('tops up again when the balance runs out, sending the clientId with the payment method', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    const { pay, calls, sent } = client({ paymentMethodId: card });
    const remaining: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      expect((await pay(weather())).status).toBe(200);
      remaining.push(pay.getLastPayment()?.creditsRemaining);
    }
    expect(remaining).toEqual([25_000, 0, 25_000]);
    expect(calls.map((call) => call.reason)).toEqual(['challenge', 'insufficient_credits']);
    const clientId = pay.getLastPayment()?.clientId;
    expect(paymentOf(sent.at(-1))).toEqual({ stripe402Version: 1, clientId, paymentMethodId: card, requestId: expect.stringMatching(UUID) });
    // The payment retries the request it pays for: the request id of its first try, refused for want of credits, is kept.
    expect(paymentOf(sent.at(-1))).toMatchObject({ requestId: (paymentOf(sent.at(-2)) as { requestId?: string }).requestId });
    expect(await charges()).toHaveLength(2);
    expect(pay.getSessionSpending()).toBe(100_000);
  });

  it('surfaces a declined card as a Credit402PaymentError and stores nothing', async () => {
    const storage = new MemoryClientIdStorage();
    const { pay } = client({ paymentMethodId: 'pm_card_chargeDeclined' }, { storage });
    const error = await pay(weather()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Credit402PaymentError);
    expect(error).toMatchObject({ code: 'card_declined', message: 'Your card was declined.', status: 402, retryable: false });
    expect(await storage.get(new URL(stack.server.url).origin)).toBeUndefined();
    expect(pay.getLastPayment()).toBeUndefined();
    expect(pay.getSessionSpending()).toBe(0);
    expect(await charges()).toEqual([]);
  });

  it('returns the 402 answer untouched when the callback declines', async () => {
    const { pay, calls, sent } = client(null);
    const response = await pay(weather());
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({ stripe402Version: 1, accepts: [{ amount: 25_000 }] });
    expect(calls).toHaveLength(1);
    expect(sent).toHaveLength(1);
    expect(await stack.control.journal()).toEqual([]);
  });

  it('refuses a top-up above maxTopUpPerPayment before paying anything', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    await stack.control.clearJournal();
    const { pay, sent } = client({ paymentMethodId: card }, { maxTopUpPerPayment: 40_000 });
    const error = await pay(weather()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Credit402SpendingLimitError);
    expect(error).toMatchObject({ limit: 'maxTopUpPerPayment', requested: 50_000, maximum: 40_000 });
    expect(sent).toHaveLength(1);
    expect(await stack.control.journal()).toEqual([]);
  });

  it('refuses the top-up that would pass maxTopUpPerSession, after spending what was paid', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    const { pay } = client({ paymentMethodId: card }, { maxTopUpPerSession: 60_000 });
    expect((await pay(weather())).status).toBe(200);
    expect((await pay(weather())).status).toBe(200);
    await expect(pay(weather())).rejects.toMatchObject({ name: 'Credit402SpendingLimitError', limit: 'maxTopUpPerSession', spent: 50_000 });
    expect(await charges()).toHaveLength(1);
  });

  it('pays for a POST with a JSON body', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    const onPaymentRequired = vi.fn(async () => ({ paymentMethodId: card }));
    const pay = createCredit402Fetch({ onPaymentRequired });
    const response = await pay(`${stack.server.url}/api/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello', to: 'fr' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ route: 'POST /api/translate', gated: true, creditsRemaining: 47_500 });
    expect(onPaymentRequired).toHaveBeenCalledTimes(1);
  });
});
