// Unit tests of the gate's lifecycle events (`hooks`): each kind once with its fields; a throwing hook changes nothing.
import { describe, expect, it } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { FlakyStore } from 'credit402-tooling/testing/flaky-store';
import type { GateEvent } from './events.ts';
import { createGate } from './gate.ts';
import type { GateOptions } from './options.ts';
import type { Store } from '../stores/store.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const CARD = 'pm_card_visa';
const header = (payload: Record<string, unknown>) => encodeBase64Json({ stripe402Version: 1, ...payload });

function setUp(overrides: Partial<GateOptions> & { store?: Store; processor?: FakeProcessor } = {}) {
  const events: GateEvent[] = [];
  const errors: string[] = [];
  const store = overrides.store ?? new MemoryStore();
  const processor = overrides.processor ?? new FakeProcessor({ cards: { [CARD]: 'fp_visa', pm_card_declined: 'fp_declined' }, ...{} });
  const gate = createGate({
    ...TEST_GATE_KEYS,
    store,
    processor,
    routes: { 'GET /a': { amount: 500 }, 'GET /eur': { amount: 100, currency: 'eur' } },
    onError: (_error, stage) => void errors.push(stage),
    hooks: { onEvent: (event) => void events.push(event) },
    ...overrides,
  });
  const get = (url: string, payload?: Record<string, unknown>) =>
    gate.handle({ method: 'GET', url, paymentHeader: payload === undefined ? undefined : header(payload) });
  const of = <T extends GateEvent['type']>(type: T) => events.filter((event): event is Extract<GateEvent, { type: T }> => event.type === type);
  return { gate, events, errors, store, processor, get, of };
}

describe('gate events', () => {
  it('a first payment emits one charge, one credit and one deduction with their amounts, the client id shortened', async () => {
    const { get, of } = setUp();
    const decision = await get('/a', { paymentMethodId: CARD, topUpAmount: 50_000 });
    expect(decision.action).toBe('serve');
    const clientId = decision.action === 'serve' ? decision.payment.clientId : '';
    expect(of('charge')).toEqual([
      { type: 'charge', route: 'GET /a', currency: 'usd', units: 50_000, minorUnits: 500, chargeId: 'pi_fake_1', client: clientId.slice(0, 8) },
    ]);
    expect(of('credit')).toEqual([{ type: 'credit', route: 'GET /a', currency: 'usd', units: 50_000, chargeId: 'pi_fake_1', client: clientId.slice(0, 8) }]);
    expect(of('deduction')).toEqual([
      { type: 'deduction', route: 'GET /a', currency: 'usd', units: 500, balance: 49_500, repeated: false, afterCharge: true, client: clientId.slice(0, 8) },
    ]);
    expect(JSON.stringify(of('charge'))).not.toContain(clientId);
  });

  it('a paid request from the balance emits one deduction, a retry under its request id one repeated deduction of 0 units', async () => {
    const store = new MemoryStore();
    const clientId = 'c'.repeat(64);
    await store.addBalance(clientId, 'eur', 1_000);
    const { get, of } = setUp({ store });
    await get('/eur', { clientId, requestId: 'r1' });
    await get('/eur', { clientId, requestId: 'r1' });
    expect(of('deduction')).toEqual([
      { type: 'deduction', route: 'GET /eur', currency: 'eur', units: 100, balance: 900, repeated: false, afterCharge: false, client: 'cccccccc' },
      { type: 'deduction', route: 'GET /eur', currency: 'eur', units: 0, balance: 900, repeated: true, afterCharge: false, client: 'cccccccc' },
    ]);
  });

  it('challenges emit a challenge event, plain or insufficient', async () => {
    const { get, of } = setUp();
    await get('/a');
    await get('/a', { clientId: 'd'.repeat(64) });
    expect(of('challenge')).toEqual([
      { type: 'challenge', route: 'GET /a', currency: 'usd', reason: 'plain' },
      { type: 'challenge', route: 'GET /a', currency: 'usd', reason: 'insufficient' },
    ]);
  });

  it('payment errors emit payment_error with their code', async () => {
    const processor = new FakeProcessor({ cards: { [CARD]: 'fp_visa' }, charges: [{ kind: 'card_error', message: 'Your card was declined.' }] });
    const { get, of } = setUp({ processor });
    await get('/a', { paymentMethodId: CARD });
    await get('/a', { paymentMethodId: 'not-a-pm' });
    expect(of('payment_error')).toEqual([
      { type: 'payment_error', route: 'GET /a', currency: 'usd', code: 'card_declined', status: 402 },
      { type: 'payment_error', route: 'GET /a', currency: 'usd', code: 'invalid_payment', status: 402 },
    ]);
    expect(of('charge')).toEqual([]);
  });

  it('a store outage emits store_unavailable naming the operation, and store calls their latency', async () => {
    const store = new FlakyStore();
    store.failNext('deductBalance');
    const { get, of } = setUp({ store });
    const decision = await get('/a', { clientId: 'c'.repeat(64) });
    expect(decision).toMatchObject({ action: 'respond', status: 503 });
    expect(of('store_unavailable')).toEqual([{ type: 'store_unavailable', route: 'GET /a', currency: 'usd', operation: 'deductBalance' }]);
    const [call] = of('store_call');
    expect(call).toMatchObject({ type: 'store_call', operation: 'deductBalance', ok: false });
    expect(call?.ms).toBeGreaterThanOrEqual(0);
  });

  it('a failed handler with refundOnHandlerError emits one refund', async () => {
    const store = new MemoryStore();
    await store.addBalance('c'.repeat(64), 'usd', 1_000);
    const { get, of } = setUp({ store, refundOnHandlerError: true });
    const decision = await get('/a', { clientId: 'c'.repeat(64) });
    if (decision.action !== 'serve') throw new Error('expected serve');
    await decision.settle({ status: 500 });
    await decision.settle({ status: 500 });
    expect(of('refund')).toEqual([{ type: 'refund', route: 'GET /a', currency: 'usd', units: 500, client: 'cccccccc' }]);
  });

  it('a hook that throws (or rejects) changes no decision and is reported to onError as hooks', async () => {
    const plain = setUp();
    const throwing = setUp({ hooks: { onEvent: () => { throw new Error('hook broke'); } } });
    const rejecting = setUp({ hooks: { onEvent: () => Promise.reject(new Error('async hook broke')) } });
    for (const run of [plain, throwing, rejecting]) {
      await run.get('/a');
      await run.get('/a', { paymentMethodId: CARD });
    }
    const strip = (decision: unknown) => JSON.parse(JSON.stringify(decision)) as { payment?: { clientId: string } };
    const expected = strip(await plain.get('/a', { paymentMethodId: CARD }));
    expect(strip(await throwing.get('/a', { paymentMethodId: CARD }))).toEqual(expected);
    const clientId = expected.payment?.clientId ?? '';
    expect((await throwing.store.getClient(clientId))?.balances).toEqual((await plain.store.getClient(clientId))?.balances);
    expect(throwing.errors.length).toBeGreaterThan(0);
    expect(new Set(throwing.errors)).toEqual(new Set(['hooks']));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(new Set(rejecting.errors)).toEqual(new Set(['hooks']));
  });

  it('validates the option at construction (ERR_HOOKS)', () => {
    for (const hooks of [null, 1, [], { onEvent: 'x' }]) {
      expect(() => setUp({ hooks: hooks as never })).toThrowError(expect.objectContaining({ code: 'ERR_HOOKS' }));
    }
    expect(() => setUp({ hooks: {} })).not.toThrow();
  });
});
