// The payment-response header of a paid pass: the same text as encodeBase64Json, whichever way it is written.
import { describe, expect, it } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import type { PaymentResponse } from '../protocol/types.ts';
import { paymentResponseHeader } from './responses.ts';

const CLIENT_ID = 'a1'.repeat(32);

describe('paymentResponseHeader', () => {
  it.each<[string, PaymentResponse]>([
    ['a pass as the gate builds it', { success: true, creditsRemaining: 8_999_999_999, clientId: CLIENT_ID }],
    ['a pass after a charge', { success: true, creditsRemaining: 0, clientId: CLIENT_ID, chargeId: 'pi_123' }],
    ['the largest safe balance', { success: true, creditsRemaining: Number.MAX_SAFE_INTEGER, clientId: CLIENT_ID }],
    ['a negative zero balance', { success: true, creditsRemaining: -0, clientId: CLIENT_ID }],
    ['a charge id JSON escapes', { success: true, creditsRemaining: 1, clientId: CLIENT_ID, chargeId: 'pi_"\\\u0001' }],
    ['a client id outside ASCII', { success: true, creditsRemaining: 1, clientId: 'é' }],
    ['an undefined charge id', { success: true, creditsRemaining: 1, clientId: CLIENT_ID, chargeId: undefined }],
    ['a balance that is not an integer', { success: true, creditsRemaining: 1.5, clientId: CLIENT_ID }],
    ['fields in another order', { clientId: CLIENT_ID, success: true, creditsRemaining: 1 }],
    ['a failure', { success: false, creditsRemaining: 0, clientId: '', error: 'no', errorCode: 'invalid_payment' }],
  ])('writes %s as encodeBase64Json does', (_name, payment) => {
    expect(paymentResponseHeader(payment)).toBe(encodeBase64Json(payment));
  });
});
