// The source-departures self-test target over a real socket: each of its four departures from the source, checked with plain HTTP requests.
import { rawRequest, type RawAnswer } from '../testing/raw-request.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorControl, startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { decodeBase64Json, encodeBase64Json } from 'credit402/protocol';
import { loadServerConfig } from 'credit402/server';
import { createCardPaymentMethod } from '../testing/test-cards.ts';
import { startSourceDepartures } from './source-departures-target.ts';
import type { RunningSourceFollowing } from './source-following-target.ts';

let emulator: RunningEmulator;
let control: EmulatorControl;
let target: RunningSourceFollowing;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  control = new EmulatorControl(emulator.controlUrl);
  target = await startSourceDepartures(loadServerConfig({ overrides: { port: 0, stripeApi: emulator.url, store: { kind: 'memory' } } }));
});
afterAll(async () => {
  await target?.close();
  await emulator?.close();
});

type Answer = RawAnswer;

/** One request, with the `payment` value sent exactly as given. */
const send = (method: string, path: string, payment?: string): Promise<Answer> => rawRequest(target.url, method, path, payment === undefined ? {} : { payment });

const body = (answer: Answer): Record<string, unknown> => JSON.parse(answer.body) as Record<string, unknown>;
const paymentResponse = (answer: Answer) => decodeBase64Json(String(answer.headers['payment-response']));
const paymentError = (errorCode: string, error: string) => ({ success: false, creditsRemaining: 0, clientId: '', errorCode, error });

/** The PaymentIntent creations for a PaymentMethod, as the emulator journal has them. */
async function charges(paymentMethodId: string) {
  return (await control.journal({ method: 'POST', path: '/v1/payment_intents' })).filter((entry) => entry.params.payment_method === paymentMethodId);
}

/** The base64 of a JSON text padded with spaces so that it needs no `=`: appending one character makes its length 4n+1. */
function unpadded(value: unknown): string {
  let json = JSON.stringify(value);
  while (Buffer.byteLength(json) % 3 !== 0) json += ' ';
  return Buffer.from(json).toString('base64');
}

const middle = (value: string, insert: string): string => `${value.slice(0, value.length >> 1)}${insert}${value.slice(value.length >> 1)}`;

describe('source-departures target', () => {
  it('a. reads a payment header as Node does: characters outside the alphabets are skipped, a 4n+1st character is dropped', async () => {
    for (const value of ['e3 0=', 'e30*', 'e30=,e30=', 'e30gA']) {
      const answer = await send('GET', '/api/weather', value);
      expect(answer.status, value).toBe(402);
      expect(body(answer), value).not.toHaveProperty('errorCode');
      expect(answer.headers['payment-required'], value).toBeDefined();
    }
    expect(body(await send('GET', '/api/weather', 'YWJj'))).toEqual(paymentError('invalid_payment', 'Malformed payment header'));
  });

  it('a. charges and serves a real payment with a space, a tab, a * or a 4n+1st character in it', async () => {
    for (const broken of [(value: string) => middle(value, ' '), (value: string) => middle(value, '\t'), (value: string) => middle(value, '*'), (value: string) => `${value}A`]) {
      const paymentMethodId = await createCardPaymentMethod(emulator.url);
      const answer = await send('GET', '/api/weather', broken(unpadded({ paymentMethodId })));
      expect(answer.status).toBe(200);
      expect(paymentResponse(answer)).toEqual({ ok: true, value: expect.objectContaining({ success: true, creditsRemaining: 49_500, chargeId: expect.any(String) }) });
      expect(await charges(paymentMethodId)).toHaveLength(1);
    }
  });

  it('b. answers a payload that is not an object with a 500 and a stack trace, on gated routes only', async () => {
    for (const payload of [null, [], 42]) {
      const answer = await send('GET', '/api/weather', encodeBase64Json(payload));
      expect(answer.status).toBe(500);
      expect(answer.body).toMatch(/^TypeError: Cannot read properties of .* \(reading 'clientId'\)\n {4}at /);
    }
    expect((await send('GET', '/free', encodeBase64Json(null))).status).toBe(200);
  });

  it('c. charges 501 minor units for topUpAmount 50000.5, then answers payment_failed and credits nothing', async () => {
    const paymentMethodId = await createCardPaymentMethod(emulator.url);
    const answer = await send('GET', '/api/weather', encodeBase64Json({ paymentMethodId, topUpAmount: 50_000.5 }));
    expect(answer.status).toBe(402);
    expect(body(answer)).toEqual(paymentError('payment_failed', 'amount must be a positive safe integer, got 50000.5'));
    const [charge] = await charges(paymentMethodId);
    expect(charge?.params).toMatchObject({ amount: '501', metadata: { credit402_top_up_units: '50000.5' } });
    expect(charge?.response).toMatchObject({ status: 'succeeded' });
    // Nothing was credited: the card's next payment is charged again and leaves the top-up minus one price.
    const again = await send('GET', '/api/weather', encodeBase64Json({ paymentMethodId }));
    expect(paymentResponse(again)).toEqual({ ok: true, value: expect.objectContaining({ creditsRemaining: 49_500, chargeId: expect.any(String) }) });
    expect(await charges(paymentMethodId)).toHaveLength(2);
  });

  it('d. names the PaymentIntent status of a card that needs authentication in its payment_failed message', async () => {
    const paymentMethodId = await createCardPaymentMethod(emulator.url, '4000002500003155');
    const answer = await send('GET', '/api/weather', encodeBase64Json({ paymentMethodId }));
    expect(answer.status).toBe(402);
    expect(body(answer)).toEqual(paymentError('payment_failed', 'Payment did not succeed. Status: requires_action'));
  });

  it('otherwise follows the source-following target: an empty header is absent, a declined card is card_declined', async () => {
    const empty = await send('GET', '/api/weather', '');
    expect(empty.status).toBe(402);
    expect(body(empty)).not.toHaveProperty('errorCode');
    const declined = await send('GET', '/api/weather', encodeBase64Json({ paymentMethodId: await createCardPaymentMethod(emulator.url, '4000000000000002') }));
    expect(body(declined)).toMatchObject({ errorCode: 'card_declined' });
  });
});
