// Calls to one origin at the same time share its first payment (CR-16.8), over real sockets to a tiny credit402 server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TINY_MIN_TOP_UP as MIN_TOP_UP, TINY_PRICE as PRICE, TinyCredit402Server } from 'credit402-tooling/testing/tiny-credit402-server';
import { Credit402PaymentError, createCredit402Fetch, type PaymentDecision } from './index.ts';

describe('concurrent calls to one origin', () => {
  const tiny = new TinyCredit402Server();
  let url: string;

  /** A client whose callback answers `decisions` in turn (the last one again), recording what it was asked. */
  function client(...decisions: Array<PaymentDecision | null>) {
    const reasons: string[] = [];
    const pay = createCredit402Fetch({
      onPaymentRequired: async (info) => {
        reasons.push(info.reason);
        return decisions[Math.min(reasons.length - 1, decisions.length - 1)] ?? null;
      },
    });
    return { pay, reasons };
  }
  const paid = () => tiny.requests.filter((payload) => payload?.paymentMethodId !== undefined).length;

  beforeAll(async () => {
    url = `${(await tiny.start()).url}/paid`;
  });
  beforeEach(() => tiny.clear());
  afterAll(() => tiny.stop());

  it('share one first payment: the others wait for it and present its clientId', async () => {
    const { pay, reasons } = client({ paymentMethodId: 'pm_card_visa' });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => pay(url)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(tiny.charges).toBe(1);
    expect(reasons).toEqual(['challenge']);
    expect(paid()).toBe(1);
    expect([...tiny.balances.values()]).toEqual([MIN_TOP_UP - 5 * PRICE]);
    expect(pay.getSessionSpending()).toBe(MIN_TOP_UP);
  });

  it('ask their own callback when the shared payment does not cover them', async () => {
    const { pay, reasons } = client({ paymentMethodId: 'pm_card_visa', topUpAmount: MIN_TOP_UP });
    const kept = await pay(url);
    expect(kept.status).toBe(200);
    const clientId = [...tiny.balances.keys()][0] ?? '';
    tiny.balances.set(clientId, PRICE); // one call's worth left: the second of two calls must top up
    const answers = await Promise.all([pay(url), pay(url)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(reasons).toEqual(['challenge', 'insufficient_credits']);
    expect(tiny.charges).toBe(2);
  });

  it('wait for a top-up under way when their kept balance runs out together', async () => {
    const { pay, reasons } = client({ paymentMethodId: 'pm_card_visa' });
    await pay(url);
    const clientId = [...tiny.balances.keys()][0] ?? '';
    tiny.balances.set(clientId, 0);
    const answers = await Promise.all([1, 2, 3].map(() => pay(url)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(reasons).toEqual(['challenge', 'insufficient_credits']);
    expect(tiny.charges).toBe(2);
  });

  it('proceed as before when the shared payment fails: each asks its callback', async () => {
    const { pay, reasons } = client({ paymentMethodId: 'pm_declined' }, { paymentMethodId: 'pm_card_visa' });
    const results = await Promise.allSettled([pay(url), pay(url), pay(url)]);
    const rejected = results.filter((result) => result.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(Credit402PaymentError);
    expect(results.filter((result) => result.status === 'fulfilled' && result.value.status === 200)).toHaveLength(2);
    // The declined payment, then one that succeeds; the third call presents its clientId.
    expect(reasons).toEqual(['challenge', 'challenge']);
    expect(tiny.charges).toBe(1);
  });

  it('keep each origin apart: a payment under way to one origin does not hold calls to another', async () => {
    const other = await new TinyCredit402Server().start();
    try {
      const otherUrl = `${other.url}/paid`;
      const { pay, reasons } = client({ paymentMethodId: 'pm_card_visa' });
      const answers = await Promise.all([pay(url), pay(otherUrl)]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(reasons).toEqual(['challenge', 'challenge']);
      expect([tiny.charges, other.charges]).toEqual([1, 1]);
      expect(other.requests.some((payload) => payload?.clientId !== undefined && tiny.balances.has(String(payload.clientId)))).toBe(false);
    } finally {
      await other.stop();
    }
  });
});
