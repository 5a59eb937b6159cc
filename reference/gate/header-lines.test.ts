// Unit tests of several `payment` header lines: one comma-joined value, malformed, whatever the lines hold (CR-3.4, CR-13.36).
import { describe, expect, it } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { createGate } from './gate.ts';
import { untouchableProcessor } from 'credit402-tooling/testing/untouchable-processor';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const processor = untouchableProcessor('for a malformed header');
const CLIENT = 'e'.repeat(64);

describe('several payment header lines', () => {
  it('CR-3.4 CR-13.36 are one malformed value, even when each line alone is a valid payment of a funded client', async () => {
    const store = new MemoryStore();
    await store.addBalance(CLIENT, 'usd', 10_000);
    const gate = createGate({ ...TEST_GATE_KEYS, store, processor, routes: { 'GET /a': { amount: 500 } } });
    const spend = encodeBase64Json({ clientId: CLIENT });
    for (const lines of [[spend, spend], [spend, 'e30='], ['e30=', spend], [encodeBase64Json({ paymentMethodId: 'pm_card_visa' }), spend]]) {
      const decision = await gate.handle({ method: 'GET', url: '/a', paymentHeader: lines });
      expect(decision).toMatchObject({ action: 'respond', status: 402, body: { errorCode: 'invalid_payment', error: 'Malformed payment header' } });
    }
    expect((await store.getClient(CLIENT))?.balances.usd).toBe(10_000);
    expect(await gate.handle({ method: 'GET', url: '/a', paymentHeader: [spend] })).toMatchObject({ action: 'serve' });
  });
});
