// Unit tests for decoding and validating the `payment` header.
import { describe, expect, it } from 'vitest';
import { encodeBase64Json } from './base64-json.ts';
import { parsePaymentHeader } from './payment-payload.ts';

const header = (value: unknown): string => encodeBase64Json(value);

describe('parsePaymentHeader', () => {
  it('accepts the documented fields and ignores unknown ones', () => {
    const payload = { stripe402Version: 1, clientId: 'c', paymentMethodId: 'pm_x', topUpAmount: 50_000, requestId: '0b5e2c1a-9d4f-4e7a-8c3b-2f1d6a7e9c40' };
    expect(parsePaymentHeader(header({ ...payload, extra: true }))).toEqual({ ok: true, payload });
    expect(parsePaymentHeader(header({}))).toEqual({ ok: true, payload: {} });
  });

  it('answers "Malformed payment header" when base64 or JSON is broken', () => {
    expect(parsePaymentHeader('%%%')).toEqual({ ok: false, message: 'Malformed payment header' });
    expect(parsePaymentHeader(Buffer.from('{').toString('base64'))).toEqual({ ok: false, message: 'Malformed payment header' });
  });

  it.each([null, [], [1], 42, 'text', true])('rejects the non-object JSON %j', (value) => {
    const result = parsePaymentHeader(header(value));
    expect(result).toEqual({ ok: false, message: 'Invalid payment header: payload must be a JSON object' });
  });

  it.each([
    ['clientId', { clientId: 1 }],
    ['clientId', { clientId: '' }],
    ['clientId', { clientId: null }],
    ['paymentMethodId', { paymentMethodId: ['pm'] }],
    ['paymentMethodId', { paymentMethodId: '' }],
    ['topUpAmount', { topUpAmount: '50000' }],
    ['topUpAmount', { topUpAmount: 500.5 }],
    ['topUpAmount', { topUpAmount: -1 }],
    ['topUpAmount', { topUpAmount: 0 }],
    ['topUpAmount', { topUpAmount: 2 ** 53 }],
    ['topUpAmount', { topUpAmount: 1e300 }],
    ['requestId', { requestId: '' }],
    ['requestId', { requestId: 7 }],
    ['requestId', { requestId: 'a b' }],
    ['requestId', { requestId: 'x'.repeat(65) }],
    ['requestId', { requestId: null }],
    ['stripe402Version', { stripe402Version: 2 }],
    ['stripe402Version', { stripe402Version: '1' }],
  ])('names %s when its type is wrong (%j)', (field, value) => {
    const result = parsePaymentHeader(header(value));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(field);
  });
});
