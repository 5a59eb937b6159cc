// Unit tests of the new-payment rate limit: the limiter alone, then the gate as a plain function with a fake processor.
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { PaymentError, type Processor } from '../processor/processor.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { createGate } from './gate.ts';
import type { GateOptions } from './options.ts';
import { addressBucket, createRateLimiter, DEFAULT_NEW_PAYMENT_RATE_LIMIT, isPayersFailure, validateRateLimit, type NewPaymentRateLimit } from './rate-limit.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

function countingProcessor(): Processor & { calls: number } {
  const processor = {
    calls: 0,
    getCardFingerprint: async (pm: string) => { processor.calls++; return `fp-${pm}`; },
    findOrCreateCustomer: async () => { processor.calls++; return 'cus_1'; },
    charge: async () => { processor.calls++; return { id: `pi_${processor.calls}`, succeeded: true as const }; },
  };
  return processor;
}

function gateWith(newPaymentRateLimit: NewPaymentRateLimit | false | undefined, processor = countingProcessor()) {
  const gate = createGate({
    ...TEST_GATE_KEYS,
    store: new MemoryStore(),
    processor,
    routes: { 'GET /api/weather': { amount: 500 } },
    newPaymentRateLimit,
    onError: () => {},
  });
  return { gate, processor };
}

const header = (payload: object) => encodeBase64Json({ stripe402Version: 1, ...payload });
const pay = (pm: string, clientAddress?: string) => ({ method: 'GET', url: '/api/weather', paymentHeader: header({ paymentMethodId: pm }), clientAddress });

describe('validateRateLimit', () => {
  it('is off when false or empty, and keeps the windows given', () => {
    expect(validateRateLimit(false)).toBeUndefined();
    expect(validateRateLimit({})).toBeUndefined();
    expect(validateRateLimit({ global: { max: 5, windowMs: 1000 } })).toEqual({ global: { max: 5, windowMs: 1000 } });
  });

  it.each([
    null, 5, [], { perAdress: { max: 1, windowMs: 1 } }, { perAddress: { max: 0, windowMs: 1000 } }, { perAddress: { max: 1.5, windowMs: 1000 } },
    { global: { max: 1, windowMs: 0 } }, { global: { max: 1 } }, { global: { max: 1, windowMs: 2 * 24 * 3600 * 1000 } }, { global: null },
  ])('refuses %j with ERR_RATE_LIMIT at construction', (value) => {
    expect(() => validateRateLimit(value)).toThrow(Credit402ConfigError);
    expect(() => gateWith(value as NewPaymentRateLimit)).toThrow(/ERR_RATE_LIMIT/);
  });
});

describe('addressBucket', () => {
  it('groups IPv6 by /64, maps IPv4-mapped addresses to IPv4 and leaves others as they are', () => {
    expect(addressBucket('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(addressBucket('10.0.0.1')).toBe('10.0.0.1');
    expect(addressBucket('2001:db8:0:1::1')).toBe(addressBucket('2001:0db8:0000:0001:ffff:1:2:3'));
    expect(addressBucket('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(addressBucket('2001:db8:0:2::1')).not.toBe(addressBucket('2001:db8:0:1::1'));
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket(undefined)).toBe('');
  });
});

describe('createRateLimiter (fixed windows, in memory)', () => {
  it('allows max per address per window, then gives the seconds to the window end, and resets after it', () => {
    const limiter = createRateLimiter({ perAddress: { max: 2, windowMs: 10_000 } });
    expect(limiter.hit('a', 0)).toMatchObject({ allowed: true });
    expect(limiter.hit('a', 1)).toMatchObject({ allowed: true });
    expect(limiter.hit('a', 2)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(limiter.hit('a', 8_500)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(limiter.hit('a', 9_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.hit('b', 3)).toMatchObject({ allowed: true });
    expect(limiter.hit('a', 10_000)).toMatchObject({ allowed: true });
  });

  it('applies the global window across addresses to the addresses counted in it, without counting what it refused against the address', () => {
    const limiter = createRateLimiter({ perAddress: { max: 2, windowMs: 60_000 }, global: { max: 3, windowMs: 1_000 } });
    expect([limiter.hit('a', 0), limiter.hit('b', 0), limiter.hit('c', 0)].every((v) => v.allowed)).toBe(true);
    expect(limiter.hit('a', 500)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // An address with nothing counted in the full window goes on (was: refused for the others' attempts).
    expect(limiter.hit('d', 500)).toMatchObject({ allowed: true });
    expect(limiter.hit('d', 600)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.hit('a', 1_000)).toMatchObject({ allowed: true });
    expect(limiter.hit('a', 1_001)).toMatchObject({ allowed: false, retryAfterSeconds: 59 });
  });

  it('under counts: "failures", the full global window refuses only addresses with a failure of their own, never one whose attempts ran or succeeded', async () => {
    const limiter = createRateLimiter({ global: { max: 2, windowMs: 10_000 }, counts: 'failures' });
    const declined = () => Promise.reject(new PaymentError('card_declined', 'Your card was declined.'));
    const fail = async (address: string, now: number) => {
      const verdict = limiter.hit(address, now);
      if (!verdict.allowed) return verdict;
      await verdict.settle(declined()).catch(() => {});
      return verdict;
    };
    expect(await fail('a', 0)).toMatchObject({ allowed: true });
    expect(await fail('b', 0)).toMatchObject({ allowed: true });
    expect(limiter.hit('a', 1)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    // c succeeds again and again; d has an attempt running: neither has failed, neither is refused.
    for (let i = 0; i < 5; i++) {
      const verdict = limiter.hit('c', 2);
      if (!verdict.allowed) throw new Error('c refused');
      await verdict.settle(Promise.resolve('paid'));
    }
    const running = limiter.hit('d', 3);
    expect(running).toMatchObject({ allowed: true });
    expect(limiter.hit('d', 4)).toMatchObject({ allowed: true });
    expect(await fail('e', 5)).toMatchObject({ allowed: true });
    expect(limiter.hit('e', 6)).toEqual({ allowed: false, retryAfterSeconds: 10 });
  });
});

describe('gate with newPaymentRateLimit', () => {
  it('by default never limits new payments that succeed: 200 from one address are all served', async () => {
    const { gate } = gateWith(undefined);
    for (let i = 0; i < 200; i++) expect((await gate.handle(pay(`pm_card_${i}`, '10.0.0.1'))).action).toBe('serve');
  });

  it('is off with false', async () => {
    const { gate, processor } = gateWith(false, refusingProcessor());
    for (let i = 0; i < 80; i++) expect(await gate.handle(pay(`pm_unknown_${i}`, '10.0.0.1'))).toMatchObject({ status: 402 });
    expect(processor.calls).toBe(80);
  });

  it('answers 429 with Retry-After and rate_limited before any processor call, per client address', async () => {
    const { gate, processor } = gateWith({ perAddress: { max: 2, windowMs: 60_000 } });
    expect((await gate.handle(pay('pm_a', '10.0.0.1'))).action).toBe('serve');
    expect((await gate.handle(pay('pm_b', '10.0.0.1'))).action).toBe('serve');
    const calls = processor.calls;
    const refused = await gate.handle(pay('pm_c', '10.0.0.1'));
    expect(refused).toEqual({
      action: 'respond',
      status: 429,
      headers: expect.objectContaining({ 'retry-after': '60', 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' }),
      body: { success: false, creditsRemaining: 0, clientId: '', error: expect.any(String), errorCode: 'rate_limited' },
      code: 'rate_limited',
    });
    expect(processor.calls).toBe(calls);
    expect((await gate.handle(pay('pm_c', '10.0.0.2'))).action).toBe('serve');
  });

  it('counts only the new-payment path: challenges, spends with a balance and malformed headers pass unlimited', async () => {
    const { gate } = gateWith({ perAddress: { max: 2, windowMs: 60_000 }, global: { max: 2, windowMs: 60_000 } });
    const paid = await gate.handle(pay('pm_a', '10.0.0.1'));
    if (paid.action !== 'serve') throw new Error('expected serve');
    const { clientId } = paid.payment;
    for (let i = 0; i < 5; i++) {
      expect(await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: undefined, clientAddress: '10.0.0.1' })).toMatchObject({ status: 402 });
      expect(await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: 'not base64!', clientAddress: '10.0.0.1' })).toMatchObject({ status: 402 });
      const spend = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: header({ clientId, paymentMethodId: 'pm_a' }), clientAddress: '10.0.0.1' });
      expect(spend.action).toBe('serve');
    }
    expect((await gate.handle(pay('pm_b', '10.0.0.1'))).action).toBe('serve');
    expect(await gate.handle(pay('pm_c', '10.0.0.1'))).toMatchObject({ status: 429 });
  });

  it('puts requests without a client address in one shared bucket', async () => {
    const { gate } = gateWith({ perAddress: { max: 1, windowMs: 60_000 } });
    expect((await gate.handle(pay('pm_a'))).action).toBe('serve');
    expect(await gate.handle(pay('pm_b'))).toMatchObject({ status: 429 });
  });
});

/** A processor that knows no payment method (`pm_unknown_…`, answered 404 as Stripe does), declines `pm_declined_…`, fails `pm_down_…` (503), and charges the rest. */
function refusingProcessor(): Processor & { calls: number } {
  const processor = countingProcessor();
  const charge = processor.charge;
  processor.getCardFingerprint = async (pm: string) => {
    processor.calls++;
    if (pm.startsWith('pm_unknown_')) throw Object.assign(new Error(`No such PaymentMethod: '${pm}'`), { type: 'StripeInvalidRequestError', statusCode: 404, code: 'resource_missing' });
    if (pm.startsWith('pm_down_')) throw Object.assign(new Error('Service unavailable'), { type: 'StripeAPIError', statusCode: 503 });
    return `fp-${pm}`;
  };
  processor.charge = async (request) => {
    if (request.paymentMethodId.startsWith('pm_declined_')) {
      processor.calls++;
      throw new PaymentError('card_declined', 'Your card was declined.');
    }
    return charge(request);
  };
  return processor;
}

describe('the default newPaymentRateLimit (CR-9.6): new payments that fail on the payer\'s side', () => {
  const { perAddress, global } = DEFAULT_NEW_PAYMENT_RATE_LIMIT;

  it(`answers 429 after ${perAddress?.max} unknown payment methods from one address in ${(perAddress?.windowMs ?? 0) / 60_000} minutes, before any processor call (was: one processor call each, unbounded)`, async () => {
    const { gate, processor } = gateWith(undefined, refusingProcessor());
    const max = perAddress?.max ?? 0;
    for (let i = 0; i < max; i++) expect(await gate.handle(pay(`pm_unknown_${i}`, '10.0.0.1')), `attempt ${i + 1}`).toMatchObject({ status: 402 });
    expect(processor.calls).toBe(max);
    const refused = await gate.handle(pay('pm_unknown_over', '10.0.0.1'));
    expect(refused).toMatchObject({ status: 429, body: { errorCode: 'rate_limited' } });
    expect(Number((refused as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThan((perAddress?.windowMs ?? 0) / 1000 - 10);
    expect(processor.calls).toBe(max);
    // A good card from that address waits too (the limit acts before it knows), one from another address does not.
    expect(await gate.handle(pay('pm_good', '10.0.0.1'))).toMatchObject({ status: 429 });
    expect((await gate.handle(pay('pm_good', '10.0.0.2'))).action).toBe('serve');
  });

  it('counts declined cards, not processor outages nor payments that succeed', async () => {
    const { gate, processor } = gateWith(undefined, refusingProcessor());
    const max = perAddress?.max ?? 0;
    for (let i = 0; i < 3 * max; i++) {
      expect((await gate.handle(pay(`pm_ok_${i}`, '10.0.0.1'))).action).toBe('serve');
      expect(await gate.handle(pay(`pm_down_${i}`, '10.0.0.1'))).toMatchObject({ status: 402, body: { errorCode: 'payment_failed' } });
    }
    for (let i = 0; i < max; i++) expect(await gate.handle(pay(`pm_declined_${i}`, '10.0.0.1'))).toMatchObject({ status: 402, body: { errorCode: 'card_declined' } });
    const calls = processor.calls;
    expect(await gate.handle(pay('pm_declined_over', '10.0.0.1'))).toMatchObject({ status: 429 });
    expect(processor.calls).toBe(calls);
  });

  it('counts attempts while they run, so a burst of unknown payment methods reaches the processor at most max times', async () => {
    const { gate, processor } = gateWith(undefined, refusingProcessor());
    const answers = await Promise.all(Array.from({ length: 3 * (perAddress?.max ?? 0) }, (_, i) => gate.handle(pay(`pm_unknown_${i}`, '10.0.0.1'))));
    expect(answers.filter((answer) => answer.action === 'respond' && answer.status === 429)).toHaveLength(2 * (perAddress?.max ?? 0));
    expect(processor.calls).toBe(perAddress?.max);
  });

  it(`bounds all addresses together at ${global?.max} failures, then refuses the addresses that failed, and lets each other one fail once`, async () => {
    const { gate, processor } = gateWith(undefined, refusingProcessor());
    const max = global?.max ?? 0;
    for (let i = 0; i < max; i++) await gate.handle(pay(`pm_unknown_${i}`, `10.1.${Math.floor(i / 200)}.${i % 200}`));
    expect(processor.calls).toBe(max);
    expect(await gate.handle(pay('pm_unknown_over', '10.1.0.0'))).toMatchObject({ status: 429 });
    expect(processor.calls).toBe(max);
    expect(await gate.handle(pay('pm_unknown_other', '10.9.9.9'))).toMatchObject({ status: 402, body: { errorCode: 'payment_failed' } });
    expect(await gate.handle(pay('pm_unknown_again', '10.9.9.9'))).toMatchObject({ status: 429 });
    expect(processor.calls).toBe(max + 1);
  });

  it('issue 34: after 11 addresses tried 60 unknown payment methods each, a payer from a fresh address is served, not refused for 8 minutes', async () => {
    const { gate, processor } = gateWith(undefined, refusingProcessor());
    const answers: number[] = [];
    for (let address = 1; address <= 11; address++) {
      for (let i = 0; i < 60; i++) {
        const answer = await gate.handle(pay(`pm_unknown_${address}_${i}`, `10.0.0.${address}`));
        answers.push(answer.action === 'respond' ? answer.status : 200);
      }
    }
    // 10 addresses use their 60, which fills the global 600; the 11th fails once, then waits like the others.
    expect(answers.filter((status) => status === 402)).toHaveLength(601);
    expect(answers.filter((status) => status === 429)).toHaveLength(59);
    expect(processor.calls).toBe(601);
    expect(await gate.handle(pay('pm_unknown_more', '10.0.0.1'))).toMatchObject({ status: 429 });
    const payer = await gate.handle(pay('pm_good_payer', '192.0.2.7'));
    expect(payer.action).toBe('serve');
    // Every attempt from the attackers' addresses still waits, for the window, not for an hour.
    const refused = await gate.handle(pay('pm_good_attacker', '10.0.0.11'));
    expect(refused).toMatchObject({ status: 429 });
    expect(Number((refused as { headers: Record<string, string> }).headers['retry-after'])).toBeLessThanOrEqual(600);
  });

  it('is an ordinary option value: validated, and replaced as a whole by a limit of the operator\'s', () => {
    expect(validateRateLimit(undefined)).toEqual(DEFAULT_NEW_PAYMENT_RATE_LIMIT);
    expect(validateRateLimit(DEFAULT_NEW_PAYMENT_RATE_LIMIT)).toEqual(DEFAULT_NEW_PAYMENT_RATE_LIMIT);
    expect(validateRateLimit({ perAddress: { max: 5, windowMs: 1000 } })).toEqual({ perAddress: { max: 5, windowMs: 1000 } });
    expect(validateRateLimit({ global: { max: 5, windowMs: 1000 }, counts: 'failures' })).toEqual({ global: { max: 5, windowMs: 1000 }, counts: 'failures' });
    expect(validateRateLimit(false)).toBeUndefined();
    expect(() => validateRateLimit({ global: { max: 5, windowMs: 1000 }, counts: 'errors' })).toThrow(/ERR_RATE_LIMIT.*counts/);
  });
});

describe('isPayersFailure', () => {
  const failed = (cause?: unknown) => new PaymentError('payment_failed', 'Payment processing failed', { cause: new PaymentError('payment_failed', 'x', { cause }) });
  const status = (statusCode: number) => Object.assign(new Error('stripe'), { statusCode });

  it('counts declines, refusals of the payment method (4xx) and what the processor refused on its own', () => {
    expect(isPayersFailure(new PaymentError('card_declined', 'Your card was declined.'))).toBe(true);
    expect(isPayersFailure(failed(status(404)))).toBe(true);
    expect(isPayersFailure(failed(status(400)))).toBe(true);
    expect(isPayersFailure(failed())).toBe(true);
    expect(isPayersFailure(new PaymentError('payment_failed', 'Payment processing failed', { cause: 'requires_action' }))).toBe(true);
  });

  it('does not count the processor\'s or the operator\'s failures, nor anything else', () => {
    for (const code of [500, 503, 429, 401, 403]) expect(isPayersFailure(failed(status(code))), String(code)).toBe(false);
    expect(isPayersFailure(failed(Object.assign(new Error('reset'), { type: 'StripeConnectionError' })))).toBe(false);
    expect(isPayersFailure(failed(new Error('a custom processor failed')))).toBe(false);
    expect(isPayersFailure(new Error('store down'))).toBe(false);
    expect(isPayersFailure(undefined)).toBe(false);
  });
});

// Keeps the option in the public options type.
const _typed: Pick<GateOptions, 'newPaymentRateLimit'> = { newPaymentRateLimit: { global: { max: 1, windowMs: 1 } } };
void _typed;
