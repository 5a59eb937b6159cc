// Unit tests of tying processor calls to the generated values in flight.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../exchange.ts';
import type { JournalEntry } from '../journal-queries.ts';
import { attributeCalls, type SentValue } from './processor-calls.ts';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');

/** Value `index` sent at T0 + `startMs` for `durationMs`. */
function sent(index: number, value: string, startMs: number, durationMs: number): SentValue {
  const exchange: Exchange = { request: { method: 'GET', target: '/api/weather' }, path: '/api/weather', startedAt: new Date(T0 + startMs).toISOString(), durationMs };
  return { index, value, exchange };
}

const call = (seq: number, atMs: number, path: string): JournalEntry => ({
  seq, time: new Date(T0 + atMs).toISOString(), method: 'GET', path, params: {}, requestId: `req_${seq}`, status: 200, replayed: false, response: null,
});

const card = Buffer.from('{"paymentMethodId":"pm_card1","topUpAmount":"x"}').toString('base64');

describe('attributeCalls', () => {
  it('ties a call to the only value in flight when the processor answered it', () => {
    const { byIndex, unattributed } = attributeCalls([call(1, 20, '/v1/customers/search')], [sent(0, 'AAAA', 0, 10), sent(1, 'BBBB', 12, 10)]);
    expect([...byIndex.keys()]).toEqual([1]);
    expect(byIndex.get(1)?.[0]?.suspects).toBe(1);
    expect(unattributed).toEqual([]);
  });

  it('narrows the values in flight to those naming the call\'s payment method (in base64)', () => {
    const { byIndex } = attributeCalls([call(1, 5, '/v1/payment_methods/pm_card1')], [sent(0, 'AAAA', 0, 10), sent(1, card, 1, 10), sent(2, 'CCCC', 2, 10)]);
    expect([...byIndex.entries()]).toEqual([[1, [{ entry: expect.objectContaining({ seq: 1 }), suspects: 1 }]]]);
  });

  it('suspects every value in flight when none names the call, and keeps calls made while none was', () => {
    const { byIndex, unattributed } = attributeCalls([call(1, 5, '/v1/customers/search'), call(2, 100, '/v1/payment_intents')], [sent(0, 'AAAA', 0, 10), sent(1, 'BBBB', 1, 10)]);
    expect([...byIndex.keys()]).toEqual([0, 1]);
    expect(byIndex.get(0)?.[0]?.suspects).toBe(2);
    expect(unattributed.map((entry) => entry.seq)).toEqual([2]);
  });
});
