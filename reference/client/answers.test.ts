// How the wrapper reads each kind of answer, with a scripted underlying fetch.
import { describe, expect, it } from 'vitest';
import { decodeBase64Json, encodeBase64Json } from '../protocol/base64-json.ts';
import { createCredit402Fetch, Credit402PaymentError, Credit402ProtocolError, Credit402TopUpError, MemoryClientIdStorage, type PaymentDecision } from './index.ts';

const URL_A = 'http://a.test/api';
const CLIENT_ID = 'a'.repeat(64);
const requirement = { scheme: 'stripe', currency: 'usd', amount: 500, minTopUp: 50_000, publishableKey: 'pk_test_x' };
const challenge = { stripe402Version: 1, resource: { url: '/api' }, accepts: [requirement] };
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const challengeAnswer = (body: unknown = challenge) => json(402, body, { 'payment-required': encodeBase64Json(body) });
const paidAnswer = (payment: unknown = { success: true, creditsRemaining: 49_500, clientId: CLIENT_ID, chargeId: 'pi_1' }) =>
  json(200, { ok: true }, { 'payment-response': encodeBase64Json(payment) });
const failure = (errorCode: string, error: string) => ({ success: false, creditsRemaining: 0, clientId: '', error, errorCode });

/** A wrapper whose server answers the scripted responses in order; records sent payloads and callbacks. */
function scripted(answers: Array<() => Response>, decision: PaymentDecision | null = { paymentMethodId: 'pm_1' }, options = {}) {
  const payloads: unknown[] = [];
  const reasons: string[] = [];
  let next = 0;
  const pay = createCredit402Fetch({
    onPaymentRequired: async (info) => {
      reasons.push(info.reason);
      return decision;
    },
    fetch: async (request) => {
      const header = request.headers.get('payment');
      const decoded = header === null ? undefined : decodeBase64Json(header);
      payloads.push(decoded === undefined ? undefined : decoded.ok ? decoded.value : header);
      const answer = answers[next++];
      if (!answer) throw new Error('unexpected request');
      return answer();
    },
    ...options,
  });
  return { pay, payloads, reasons };
}

describe('createCredit402Fetch answers', () => {
  it('passes a free answer through without asking', async () => {
    const { pay, reasons } = scripted([() => json(200, { free: true })]);
    expect(await (await pay(URL_A)).json()).toEqual({ free: true });
    expect(reasons).toEqual([]);
    expect(pay.getLastPayment()).toBeUndefined();
  });

  it('never loops: a second challenge after paying is returned, and the top-up stays counted', async () => {
    const { pay, payloads, reasons } = scripted([() => challengeAnswer(), () => challengeAnswer({ ...challenge, error: 'insufficient_credits', message: 'x' })]);
    const response = await pay(URL_A);
    expect(response.status).toBe(402);
    expect(reasons).toEqual(['challenge']);
    expect(payloads).toHaveLength(2);
    expect(pay.getSessionSpending()).toBe(50_000);
  });

  it('ignores unknown members and other payment schemes (CR-12.4)', async () => {
    let seen: unknown;
    const odd = { ...challenge, future: true, accepts: [{ scheme: 'x402', price: '1' }, { ...requirement, extra: 1 }] };
    const pay = createCredit402Fetch({
      onPaymentRequired: async (info) => {
        seen = info;
        return null;
      },
      fetch: async () => challengeAnswer(odd),
    });
    expect((await pay(URL_A)).status).toBe(402);
    expect(seen).toEqual({ reason: 'challenge', url: URL_A, accepts: requirement, challenge });
  });

  it('throws a Credit402PaymentError on payment_failed and keeps the top-up counted (the processor may have charged, CR-16.11)', async () => {
    const { pay } = scripted([() => challengeAnswer(), () => json(402, failure('payment_failed', 'Payment processing failed'))]);
    const error = await pay(URL_A).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Credit402PaymentError);
    expect(error).toMatchObject({ code: 'payment_failed', message: 'Payment processing failed', status: 402 });
    expect(await (error as Credit402PaymentError).response.json()).toMatchObject({ errorCode: 'payment_failed' });
    expect(pay.getSessionSpending()).toBe(50_000);
  });

  it.each(['card_declined', 'top_up_below_minimum', 'invalid_payment'])('releases the reserved top-up when the paying request is refused with %s (nothing charged)', async (code) => {
    const { pay } = scripted([() => challengeAnswer(), () => json(402, failure(code, 'Refused'))]);
    await expect(pay(URL_A)).rejects.toMatchObject({ code, status: 402 });
    expect(pay.getSessionSpending()).toBe(0);
  });

  it('keeps the top-up counted when a refusal answers the retry after a 503, not the paying request itself', async () => {
    const unavailable = () => json(503, failure('service_unavailable', 'Payment received but not yet credited'), { 'retry-after': '0' });
    const { pay } = scripted([() => challengeAnswer(), unavailable, () => json(402, failure('card_declined', 'Declined'))]);
    await expect(pay(URL_A)).rejects.toMatchObject({ code: 'card_declined' });
    expect(pay.getSessionSpending()).toBe(50_000);
  });

  it('throws a retryable error on 503 service_unavailable after its retry and keeps the top-up counted (it may have been charged)', async () => {
    const unavailable = () => json(503, failure('service_unavailable', 'Payment received but not yet credited'), { 'retry-after': '0' });
    const { pay, payloads } = scripted([() => challengeAnswer(), unavailable, unavailable]);
    const error = await pay(URL_A).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'service_unavailable', status: 503, retryable: true });
    expect((error as Credit402PaymentError).response.headers.get('retry-after')).toBe('0');
    expect(payloads[2]).toEqual(payloads[1]);
    expect(pay.getSessionSpending()).toBe(50_000);
  });

  it('returns 402 and 503 answers that are not credit402 answers', async () => {
    const { pay } = scripted([() => new Response('<html>pay me</html>', { status: 402 }), () => json(503, { error: 'maintenance' })]);
    expect(await (await pay(URL_A)).text()).toBe('<html>pay me</html>');
    expect(await (await pay(URL_A)).json()).toEqual({ error: 'maintenance' });
  });

  it('keeps the top-up counted when the paying request is answered paid without a chargeId (no proof nothing was charged)', async () => {
    const { pay } = scripted([() => challengeAnswer(), () => paidAnswer({ success: true, creditsRemaining: 10, clientId: CLIENT_ID })]);
    expect((await pay(URL_A)).status).toBe(200);
    expect(pay.getSessionSpending()).toBe(50_000);
    expect(pay.getLastPayment()).toEqual({ success: true, creditsRemaining: 10, clientId: CLIENT_ID });
  });

  it.each([
    ['a payment-required that is not base64', () => new Response('{}', { status: 402, headers: { 'payment-required': '***' } })],
    ['a challenge without a stripe requirement', () => challengeAnswer({ ...challenge, accepts: [{ scheme: 'x402' }] })],
    ['a challenge with a fractional price', () => challengeAnswer({ ...challenge, accepts: [{ ...requirement, amount: 0.5 }] })],
    ['a payment-response with a malformed clientId', () => paidAnswer({ success: true, creditsRemaining: 1, clientId: 'nope' })],
  ])('throws a Credit402ProtocolError on %s', async (_name, answer) => {
    const { pay, reasons } = scripted([answer]);
    const error = await pay(URL_A).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Credit402ProtocolError);
    expect((error as Credit402ProtocolError).problems.length).toBeGreaterThan(0);
    expect(reasons).toEqual([]);
  });

  it('sends a caller-provided payment header as it is, without asking', async () => {
    const { pay, payloads, reasons } = scripted([() => challengeAnswer()]);
    const response = await pay(URL_A, { headers: { payment: 'e30=' } });
    expect(response.status).toBe(402);
    expect(payloads).toEqual([{}]);
    expect(reasons).toEqual([]);
  });

  it('rejects an unusable decision before sending it', async () => {
    const { pay, payloads } = scripted([() => challengeAnswer()], { paymentMethodId: 'pm_1', topUpAmount: 1.5 });
    await expect(pay(URL_A)).rejects.toThrow(/topUpAmount/);
    expect(payloads).toHaveLength(1);
  });

  it('refuses a topUpAmount below the challenge\'s minTopUp before sending anything (CR-16.3)', async () => {
    const { pay, payloads, reasons } = scripted([() => challengeAnswer()], { paymentMethodId: 'pm_1', topUpAmount: 10_000 });
    const error = await pay(URL_A).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Credit402TopUpError);
    expect(error).toMatchObject({ requested: 10_000, minimum: 50_000, message: expect.stringContaining('minTopUp 50000') });
    expect(payloads).toEqual([undefined]);
    expect(reasons).toEqual(['challenge']);
    expect(pay.getSessionSpending()).toBe(0);
  });

  it('sends a topUpAmount equal to minTopUp', async () => {
    const { pay, payloads } = scripted([() => challengeAnswer(), () => paidAnswer()], { paymentMethodId: 'pm_1', topUpAmount: 50_000 });
    expect((await pay(URL_A)).status).toBe(200);
    expect(payloads[1]).toMatchObject({ paymentMethodId: 'pm_1', topUpAmount: 50_000 });
  });

  it('sends a call again after a 503 at most once, whichever of its requests met it (CR-16.12)', async () => {
    const storage = new MemoryClientIdStorage();
    await storage.set('http://a.test', CLIENT_ID);
    const unavailable = () => json(503, failure('service_unavailable', 'Try again'), { 'retry-after': '0' });
    const insufficient = () => challengeAnswer({ ...challenge, error: 'insufficient_credits', message: 'x' });
    const { pay, payloads } = scripted([unavailable, insufficient, unavailable], { paymentMethodId: 'pm_1' }, { storage });
    await expect(pay(URL_A)).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(payloads).toHaveLength(3);
    expect(payloads[1]).toEqual(payloads[0]);
    expect(payloads[2]).toMatchObject({ clientId: CLIENT_ID, paymentMethodId: 'pm_1', requestId: (payloads[0] as { requestId: string }).requestId });
  });

  it('does not send again a 503 answered to a request without a payload, and refuses more than one retry', async () => {
    const { pay, payloads } = scripted([() => json(503, failure('service_unavailable', 'Try again'), { 'retry-after': '0' })]);
    await expect(pay(URL_A)).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(payloads).toEqual([undefined]);
    expect(() => createCredit402Fetch({ onPaymentRequired: async () => null, unavailableRetries: 2 })).toThrow(RangeError);
  });

  it('keeps clientIds per origin', async () => {
    const storage = new MemoryClientIdStorage();
    await storage.set('http://a.test', CLIENT_ID);
    const { pay, payloads } = scripted([() => paidAnswer(), () => json(200, {})], null, { storage });
    await pay(URL_A);
    await pay('http://b.test/api');
    expect(payloads).toEqual([{ stripe402Version: 1, clientId: CLIENT_ID, requestId: expect.any(String) }, undefined]);
  });
});
