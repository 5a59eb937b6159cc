// The schemas accept the spec's Appendix A examples and reject handcrafted wrong objects.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validatePaymentPayload, validatePaymentRequired, validatePaymentResponse } from './validators.ts';

const CLIENT_ID = '7fde6c265afe11e033147ce0669bd0057e518506a8130189675d6c42db0e690c';
const appendix = readFileSync(new URL('../spec/protocol.md', import.meta.url), 'utf8').split('## Appendix A')[1]?.split('## Appendix B')[0] ?? '';

/** Every JSON object of Appendix A: the lines of its json code blocks and the payloads of its tables. */
function appendixObjects(): unknown[] {
  const blocks = [...appendix.matchAll(/```json\n([\s\S]*?)```/g)].flatMap((match) => (match[1] ?? '').trim().split('\n'));
  const cells = [...appendix.matchAll(/^\| `(\{.*?\})`/gm)].map((match) => match[1] ?? '');
  return [...blocks, ...cells].map((text) => JSON.parse(text) as unknown);
}

const isChallenge = (value: unknown) => typeof value === 'object' && value !== null && 'accepts' in value;
const isResponse = (value: unknown) => typeof value === 'object' && value !== null && 'success' in value;

describe('Appendix A examples', () => {
  const objects = appendixObjects();

  it('finds the challenges, responses and payloads of the appendix', () => {
    expect(objects.filter(isChallenge)).toHaveLength(2);
    expect(objects.filter(isResponse)).toHaveLength(5);
    expect(objects.filter((value) => !isChallenge(value) && !isResponse(value))).toHaveLength(4);
  });

  it.each(appendixObjects().map((value) => [JSON.stringify(value), value]))('%s is valid', (_text, value) => {
    const validate = isChallenge(value) ? validatePaymentRequired : isResponse(value) ? validatePaymentResponse : validatePaymentPayload;
    expect(validate(value)).toEqual({ ok: true });
  });
});

const requirement = { scheme: 'stripe', currency: 'usd', amount: 500, minTopUp: 50_000, publishableKey: 'pk_test_51credit402example' };
const challenge = { stripe402Version: 1, resource: { url: '/api/weather' }, accepts: [requirement] };
const success = { success: true, creditsRemaining: 49_000, clientId: CLIENT_ID };
const failure = { success: false, creditsRemaining: 0, clientId: '', error: 'Your card was declined.', errorCode: 'card_declined' };

/** Asserts an invalid value and that some error line mentions `where`. */
function expectInvalid(result: ReturnType<typeof validatePaymentPayload>, where: string): void {
  expect(result.ok).toBe(false);
  if (!result.ok) expect(result.errors.join('\n')).toContain(where);
}

describe('payment payload schema', () => {
  it('allows unknown members and an empty object', () => {
    expect(validatePaymentPayload({ note: 'why?', paymentMethodId: 'pm_x' })).toEqual({ ok: true });
    expect(validatePaymentPayload({})).toEqual({ ok: true });
    expect(validatePaymentPayload({ clientId: 'not-a-client', topUpAmount: Number.MAX_SAFE_INTEGER })).toEqual({ ok: true });
  });

  it.each([
    ['topUpAmount', { topUpAmount: 50_000.5 }],
    ['topUpAmount', { topUpAmount: 0 }],
    ['topUpAmount', { topUpAmount: '50000' }],
    ['topUpAmount', { topUpAmount: 2 ** 53 }],
    ['topUpAmount', { topUpAmount: null }],
    ['clientId', { clientId: '' }],
    ['clientId', { clientId: 42 }],
    ['paymentMethodId', { paymentMethodId: ['pm'] }],
    ['stripe402Version', { stripe402Version: 2 }],
  ])('names %s in %j', (member, value) => expectInvalid(validatePaymentPayload(value), `/${member}`));

  it.each([null, [], 42, 'e30=', true])('rejects the non-object %j', (value) => expectInvalid(validatePaymentPayload(value), '(root)'));
});

describe('challenge schema', () => {
  it('accepts a plain challenge without descriptions', () => {
    expect(validatePaymentRequired(challenge)).toEqual({ ok: true });
  });

  it.each([
    ['/accepts/0/amount', { ...challenge, accepts: [{ ...requirement, amount: 500.5 }] }],
    ['/accepts/0/amount', { ...challenge, accepts: [{ ...requirement, amount: -1 }] }],
    ['/accepts/0/minTopUp', { ...challenge, accepts: [{ ...requirement, minTopUp: 0 }] }],
    ['/accepts/0/minTopUp', { ...challenge, accepts: [{ ...requirement, minTopUp: 9_999_999_901 }] }],
    ['/accepts/0/currency', { ...challenge, accepts: [{ ...requirement, currency: 'USD' }] }],
    ['/accepts/0/publishableKey', { ...challenge, accepts: [{ ...requirement, publishableKey: 'sk_test_secret' }] }],
    ['/accepts/0/scheme', { ...challenge, accepts: [{ ...requirement, scheme: 'x402' }] }],
    ['/accepts/0', { ...challenge, accepts: [{ ...requirement, description: null }] }],
    ['/accepts/0', { ...challenge, accepts: [{ ...requirement, extra: 1 }] }],
    ['/accepts', { ...challenge, accepts: [] }],
    ['/accepts', { ...challenge, accepts: [requirement, requirement] }],
    ['/resource/url', { ...challenge, resource: { url: '/api/weather?city=Oslo' } }],
    ['/resource', { ...challenge, resource: { url: '/a', price: 1 } }],
    ['(root)', { ...challenge, version: 1 }],
    ['/stripe402Version', { ...challenge, stripe402Version: 2 }],
    ['(root)', { resource: challenge.resource, accepts: challenge.accepts }],
    ['/error', { ...challenge, error: 'card_declined', message: 'no' }],
    ['message', { ...challenge, error: 'insufficient_credits' }],
    ['error', { ...challenge, message: 'Insufficient credits for this request' }],
    ['/message', { ...challenge, error: 'insufficient_credits', message: '' }],
  ])('rejects a challenge wrong at %s', (where, value) => expectInvalid(validatePaymentRequired(value), where));
});

describe('PaymentResponse schema', () => {
  it('accepts success with and without chargeId, and the 503 body', () => {
    expect(validatePaymentResponse(success)).toEqual({ ok: true });
    expect(validatePaymentResponse({ ...success, chargeId: 'pi_1', creditsRemaining: 0 })).toEqual({ ok: true });
    expect(validatePaymentResponse({ ...failure, errorCode: 'service_unavailable', error: 'down' })).toEqual({ ok: true });
  });

  it.each([
    ['/creditsRemaining', { ...success, creditsRemaining: -1 }],
    ['/creditsRemaining', { ...success, creditsRemaining: 1.5 }],
    ['/creditsRemaining', { ...success, creditsRemaining: 2 ** 53 }],
    ['/clientId', { ...success, clientId: CLIENT_ID.toUpperCase() }],
    ['/clientId', { ...success, clientId: '' }],
    ['/error', { ...success, error: 'x' }],
    ['/errorCode', { ...success, errorCode: 'card_declined' }],
    ['(root)', { ...success, stripe402Version: 1 }],
    ['(root)', { success: true, clientId: CLIENT_ID }],
    ['/chargeId', { ...success, chargeId: '' }],
    ['/errorCode', { ...failure, errorCode: 'insufficient_credits' }],
    ['/errorCode', { ...failure, errorCode: 'rate_limited' }],
    ['/creditsRemaining', { ...failure, creditsRemaining: 5 }],
    ['/clientId', { ...failure, clientId: CLIENT_ID }],
    ['/chargeId', { ...failure, chargeId: 'pi_1' }],
    ['errorCode', { success: false, creditsRemaining: 0, clientId: '', error: 'x' }],
    ['error', { success: false, creditsRemaining: 0, clientId: '', errorCode: 'payment_failed' }],
    ['/error', { ...failure, error: '' }],
    ['/error', { ...failure, error: null }],
    ['/success', { ...failure, success: 'false' }],
  ])('rejects a PaymentResponse wrong at %s', (where, value) => expectInvalid(validatePaymentResponse(value), where));
});
