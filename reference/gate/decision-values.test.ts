// Decisions are read-only values: every kind is deep-frozen when built, and a shared challenge cannot be changed by its users.
import { describe, expect, it } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import type { Processor } from '../processor/processor.ts';
import { FlakyStore } from 'credit402-tooling/testing/flaky-store';
import type { GateDecision, GateRequest } from './decision.ts';
import { createGate } from './gate.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const RICH = 'c'.repeat(64);
const POOR = 'd'.repeat(64);
const header = (payload: object) => encodeBase64Json({ stripe402Version: 1, ...payload });

/** A processor whose charge succeeds, except for `pm_pending`, which it leaves waiting for authentication. */
const processor: Processor = {
  getCardFingerprint: async (paymentMethodId) => `fp_${paymentMethodId}`,
  findOrCreateCustomer: async () => 'cus_1',
  charge: async ({ paymentMethodId }) =>
    paymentMethodId === 'pm_pending' ? { id: 'pi_pending', succeeded: false, reason: 'requires_action' } : { id: 'pi_paid', succeeded: true },
};

async function setUp() {
  const store = new FlakyStore();
  await store.addBalance(RICH, 'usd', 100_000);
  const options = {
    ...TEST_GATE_KEYS,
    store,
    processor,
    routes: { 'GET /a': { amount: 500, description: 'A' } },
    newPaymentRateLimit: { perAddress: { max: 1, windowMs: 60_000 } },
    onError: () => {},
  };
  const gate = createGate(options);
  const corsGate = createGate({ ...options, cors: { origins: ['https://app.example'] } });
  const get = (paymentHeader?: string, more: Partial<GateRequest> = {}) => gate.handle({ method: 'GET', url: '/a', paymentHeader, ...more });
  return { store, gate, corsGate, get };
}

/** Every object and array reachable from `value` is frozen. */
function expectDeepFrozen(value: unknown, path = 'decision'): void {
  if (typeof value !== 'object' || value === null) return;
  expect(Object.isFrozen(value), `${path} is frozen`).toBe(true);
  for (const [key, member] of Object.entries(value)) expectDeepFrozen(member, `${path}.${key}`);
}

describe('decisions', () => {
  it('are deep-frozen, of every kind', async () => {
    const { store, corsGate, get } = await setUp();
    const kinds: Record<string, GateDecision> = {
      pass: await get(undefined, { url: '/free' }),
      challenge: await get(),
      insufficient: await get(header({ clientId: POOR })),
      servedFromBalance: await get(header({ clientId: RICH })),
      servedAfterCharge: await get(header({ paymentMethodId: 'pm_ok' }), { clientAddress: '10.0.0.1' }),
      paymentError: await get('not a header'),
      paymentFailed: await get(header({ paymentMethodId: 'pm_pending' }), { clientAddress: '10.0.0.2' }),
      rateLimited: await get(header({ paymentMethodId: 'pm_ok' }), { clientAddress: '10.0.0.1' }),
      ambiguousTarget: await get(undefined, { url: '/a#x' }),
      corsChallenge: await corsGate.handle({ method: 'GET', url: '/a', paymentHeader: undefined, origin: 'https://app.example' }),
      corsPreflight: await corsGate.handle({ method: 'OPTIONS', url: '/a', paymentHeader: undefined, origin: 'https://app.example' }),
    };
    store.failNext('deductBalance');
    kinds.storeUnavailable = await get(header({ clientId: RICH }));
    expect(Object.fromEntries(Object.entries(kinds).map(([kind, decision]) => [kind, decision.action === 'respond' ? decision.status : decision.action]))).toEqual({
      pass: 'pass', challenge: 402, insufficient: 402, servedFromBalance: 'serve', servedAfterCharge: 'serve', paymentError: 402,
      paymentFailed: 402, rateLimited: 429, ambiguousTarget: 400, corsChallenge: 402, corsPreflight: 204, storeUnavailable: 503,
    });
    expect(kinds.paymentFailed).toMatchObject({ body: { errorCode: 'payment_failed' } });
    expect(kinds.servedAfterCharge).toMatchObject({ payment: { chargeId: 'pi_paid' } });
    for (const [kind, decision] of Object.entries(kinds)) expectDeepFrozen(decision, kind);
  });

  it('keep the prebuilt challenges as they are: a user cannot change them, the next request gets an equal one', async () => {
    const { gate, corsGate, get } = await setUp();
    const first = await get();
    if (first.action !== 'respond') throw new Error('expected a challenge');
    const before = structuredClone(first);
    expect(() => Object.assign(first.headers, { 'x-added': '1' })).toThrow(TypeError);
    expect(() => Object.assign(first, { status: 200 })).toThrow(TypeError);
    expect(() => (first.body as { accepts: unknown[] }).accepts.push({})).toThrow(TypeError);
    expect(() => Object.assign((first.body as { accepts: object[] }).accepts[0] ?? {}, { amount: 1 })).toThrow(TypeError);
    await corsGate.handle({ method: 'GET', url: '/a', paymentHeader: undefined, origin: 'https://app.example' });
    expect(await get()).toEqual(before);
    expect(gate.routes.get('GET /a')?.challenges.plain).toEqual(before);
  });

  it('are new values for each paid request: one request\'s decision does not change the next', async () => {
    const { get } = await setUp();
    const first = await get(header({ clientId: RICH }));
    const second = await get(header({ clientId: RICH }));
    if (first.action !== 'serve' || second.action !== 'serve') throw new Error('expected two serve decisions');
    expect(() => Object.assign(first.payment, { creditsRemaining: 1 })).toThrow(TypeError);
    expect([first.payment.creditsRemaining, second.payment.creditsRemaining]).toEqual([99_500, 99_000]);
    expect(second.headers).not.toBe(first.headers);
  });
});
