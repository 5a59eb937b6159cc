// The capability judges: the 503 service_unavailable answer of CR-8.2 and the records of CR-11.7/CR-11.8, each failure naming its IDs.
import { describe, expect, it } from 'vitest';
import { expectBalanceReconciles, expectClientRecord, expectRecords, expectServiceUnavailable, recordFieldProblems } from './capability-judge.ts';
import type { Exchange } from './exchange.ts';

const C = 'c'.repeat(64);
const unavailable = { success: false, creditsRemaining: 0, clientId: '', error: 'Credit store temporarily unavailable', errorCode: 'service_unavailable' };

function exchange(status: number, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json', 'retry-after': '1' }): Exchange {
  const text = JSON.stringify(body);
  return {
    request: { method: 'GET', target: '/api/weather' },
    path: '/api/weather',
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    answer: { status, rawHeaders: Object.entries(headers), headers, text, json: body },
  };
}

const topup = { id: '0b7c0f7e-1111-4222-8333-444455556666', type: 'topup', clientId: C, currency: 'usd', amount: 50_000, createdAt: '2025-01-31T12:00:00.000Z', paymentIntentId: 'pi_1' };
const deduction = { id: '0b7c0f7e-1111-4222-9333-444455556667', type: 'deduction', clientId: C, currency: 'usd', amount: 500, createdAt: '2025-01-31T12:00:00.001Z', resource: 'GET /api/weather' };
const expected = [
  { type: 'topup', amount: 50_000, currency: 'usd', paymentIntentId: 'pi_1' },
  { type: 'deduction', amount: 500, currency: 'usd', resource: 'GET /api/weather' },
];

describe('expectServiceUnavailable', () => {
  it('accepts the answer of CR-8.2 and returns its message', () => {
    expect(expectServiceUnavailable(exchange(503, unavailable))).toBe('Credit store temporarily unavailable');
  });

  it('fails the scenario for another answer, and CR-8.2 for a wrong form', () => {
    expect(() => expectServiceUnavailable(exchange(402, { ...unavailable, errorCode: 'payment_failed' }))).toThrow(/expected 503 service_unavailable, got the payment error payment_failed/);
    expect(() => expectServiceUnavailable(exchange(503, unavailable, { 'content-type': 'application/json' }))).toThrow(/^\[CR-8\.2\].*Retry-After: 1/s);
    expect(() => expectServiceUnavailable(exchange(503, { ...unavailable, creditsRemaining: 5 }))).toThrow(/\[CR-8\.2\]/);
  });
});

describe('expectRecords', () => {
  it('accepts exactly the expected records, in any order', () => {
    expect(() => expectRecords([deduction, topup], expected, C)).not.toThrow();
  });

  it('fails CR-11.8 for a missing or extra record, naming the records', () => {
    expect(() => expectRecords([topup], expected, C)).toThrow(/^\[CR-11\.8\] one topup record per credited PaymentIntent/);
    expect(() => expectRecords([topup, deduction, deduction], expected, C)).toThrow(/\[CR-11\.8\]/);
  });

  it("accepts the source's stripePaymentIntentId at the wire level and fails CR-11.7 (which applies CR-13.4) for it", () => {
    const { paymentIntentId, ...rest } = topup;
    expect(() => expectRecords([{ ...rest, stripePaymentIntentId: paymentIntentId }, deduction], expected, C)).toThrow(/^\[CR-11\.7\]/);
  });

  it('names each wrong field', () => {
    expect(recordFieldProblems({ ...deduction, id: 'x', createdAt: '2025-01-31 12:00', clientId: 'd' }, C)).toEqual([
      'id "x" is not a version 4 UUID',
      'clientId "d" is not the client\'s',
      'createdAt "2025-01-31 12:00" is not an ISO 8601 UTC time',
    ]);
    expect(recordFieldProblems({ ...topup, resource: 'GET /x' }, C)[0]).toMatch(/a topup record has exactly amount, clientId, createdAt, currency, id, paymentIntentId, type/);
  });
});

describe('client records', () => {
  it('checks the fields of CR-11.7 (which applies CR-13.3)', () => {
    expect(() => expectClientRecord({ balances: { usd: 49_500 }, topUps: 1, createdAt: '2025-01-31T12:00:00Z' }, { usd: 49_500 }, 1)).not.toThrow();
    expect(() => expectClientRecord({ balances: { eur: 49_500 }, topUps: 1, createdAt: '2025-01-31T12:00:00Z' }, { usd: 49_500 }, 1)).toThrow(/balances/);
    expect(() => expectClientRecord({ balance: 49_500, topUps: 1, createdAt: '2025-01-31T12:00:00Z' }, { usd: 49_500 }, 1)).toThrow(/^\[CR-11\.7\]/);
    expect(() => expectClientRecord(null, {}, 0)).toThrow(/the client has a record/);
  });

  it('reconciles the balance with the log (CR-11.8)', () => {
    expect(() => expectBalanceReconciles({ balances: { usd: 49_500 } }, [topup, deduction])).not.toThrow();
    expect(() => expectBalanceReconciles({ balances: { usd: 50_000 } }, [topup, deduction])).toThrow(/^\[CR-11\.8\]/);
    expect(() => expectBalanceReconciles({ balances: { eur: 49_500 } }, [topup, deduction])).toThrow(/^\[CR-11\.8\]/);
  });
});
