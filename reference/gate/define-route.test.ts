// Unit tests of routes priced where the application's router declares them (gate.defineRoute and request.route, CR-4.15).
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { decodeBase64Json } from '../protocol/base64-json.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import type { GateEvent } from './events.ts';
import { createGate } from './gate.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

function setUp() {
  const events: GateEvent[] = [];
  const store = new MemoryStore();
  const gate = createGate({ ...TEST_GATE_KEYS, store, processor: new FakeProcessor(), hooks: { onEvent: (event) => events.push(event) } });
  return { gate, store, events };
}

describe('gate.defineRoute (CR-4.15)', () => {
  it('a gate needs no table; a route the router matched is priced, its challenge names the request path', async () => {
    const { gate, events } = setUp();
    const route = gate.defineRoute('GET /files/*splat', { amount: 700, description: 'A file' });
    expect(await gate.handle({ method: 'GET', url: '/files/a/b', paymentHeader: undefined })).toEqual({ action: 'pass' });
    const decision = await gate.handle({ method: 'GET', url: '/files/a/b?x=1', paymentHeader: undefined, route });
    expect(decision.action).toBe('respond');
    const header = decision.action === 'respond' ? decision.headers['payment-required'] : undefined;
    expect(decodeBase64Json(header ?? '')).toMatchObject({ ok: true, value: { resource: { url: '/files/a/b', description: 'A file' }, accepts: [{ amount: 700 }] } });
    expect(events).toEqual([{ type: 'challenge', route: 'GET /files/*splat', currency: 'usd', reason: 'plain' }]);
  });

  it('a served request deducts the route price and names the key in its record', async () => {
    const { gate, store } = setUp();
    const clientId = 'a'.repeat(64);
    await store.addBalance(clientId, 'usd', 1_000);
    const route = gate.defineRoute('GET /users/:id', { amount: 300 });
    const paymentHeader = Buffer.from(JSON.stringify({ clientId })).toString('base64');
    const decision = await gate.handle({ method: 'GET', url: '/users/7', paymentHeader, route });
    expect(decision).toMatchObject({ action: 'serve', payment: { creditsRemaining: 700 } });
    expect((await store.listTransactions?.(clientId))?.map((record) => record.resource)).toEqual(['GET /users/:id']);
  });

  it('an ambiguous target is refused even on a route the router matched (CR-4.10)', async () => {
    const { gate } = setUp();
    const route = gate.defineRoute('GET /users/:id', { amount: 300 });
    const decision = await gate.handle({ method: 'GET', url: '/users\\7', paymentHeader: undefined, route });
    expect(decision).toMatchObject({ action: 'respond', status: 400 });
  });

  it.each([
    ['ERR_ROUTE_AMOUNT', 'GET /a', { amount: -1 }],
    ['ERR_ROUTE_CURRENCY', 'GET /a', { amount: 1, currency: 'jpy' }],
    ['ERR_ROUTE_KEY', 'get /a', { amount: 1 }],
  ])('validates the route like a table entry: %s', (code, key, config) => {
    const { gate } = setUp();
    expect(() => gate.defineRoute(key, config)).toThrow(Credit402ConfigError);
    try {
      gate.defineRoute(key, config);
    } catch (error) {
      expect((error as Credit402ConfigError).code).toBe(code);
    }
  });
});
