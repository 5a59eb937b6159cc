// The charge idempotency key (CR-7.16): one per (store, client, topUps, card, route, top-up, currency), so two deployments never replay each other's charges.
import { describe, expect, it } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { CARDS, PUBLISHABLE_KEY, SERVER_SECRET, VISA_PM } from 'credit402-tooling/testing/decision-fixtures';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { createGate } from './gate.ts';

/** A gate of one deployment: its own store, the shared server secret and processor account. */
function deployment(processor: FakeProcessor, store = new MemoryStore()) {
  const gate = createGate({
    stripePublishableKey: PUBLISHABLE_KEY,
    serverSecret: SERVER_SECRET,
    store,
    processor,
    routes: { 'GET /api/weather': { amount: 500 } },
    onError: () => {},
  });
  const pay = () => gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: encodeBase64Json({ paymentMethodId: VISA_PM }) });
  return { store, pay };
}

describe('charge idempotency key (CR-7.16)', () => {
  it('differs between two stores for the same first top-up of the same card (staging and production on one account)', async () => {
    const processor = new FakeProcessor({ cards: CARDS });
    const staging = deployment(processor);
    const production = deployment(processor);
    expect(await staging.pay()).toMatchObject({ action: 'serve' });
    expect(await production.pay()).toMatchObject({ action: 'serve' });
    const [first, second] = processor.charges.map((charge) => charge.idempotencyKey);
    expect(first).toMatch(/^credit402-topup-[0-9a-f]{64}$/);
    expect(second).not.toBe(first);
    // Each deployment was charged and credited its own top-up, not a replay of the other's.
    expect(new Set(processor.calls.length > 0 ? [first, second] : []).size).toBe(2);
  });

  it('is the same for a retry on the same store before the credit, and another after it', async () => {
    const processor = new FakeProcessor({ cards: CARDS, charges: [{ kind: 'no_answer' }] });
    const { pay } = deployment(processor);
    expect(await pay()).toMatchObject({ action: 'respond', status: 402 });
    expect(await pay()).toMatchObject({ action: 'serve' });
    await pay(); // from the balance: no charge
    const keys = processor.charges.map((charge) => charge.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});
