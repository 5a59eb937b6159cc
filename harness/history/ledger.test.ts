// The ledger model as plain functions: which answers it explains, and the requirement each unexplained one is charged to.
import { describe, expect, it } from 'vitest';
import { Ledger, type Observation } from './ledger.ts';

const weather = { route: 'GET /api/weather', price: 500, currency: 'usd' } as const;
const fails = { route: 'GET /api/fails', price: 400, currency: 'usd' } as const;
const translate = { route: 'POST /api/translate', price: 2500, currency: 'eur' } as const;

function call(card: number, fields: Partial<Observation> & Pick<Observation, 'outcome'>): Observation {
  return { label: `card ${card}`, card, ...weather, ...fields };
}

/** A ledger where card 0 paid 50000 units on GET /api/weather (balance 49500) with PaymentIntent pi_1. */
function funded(): Ledger {
  const ledger = new Ledger(3);
  expect(ledger.observe(call(0, { outcome: 'served', topUp: 50_000, chargeId: 'pi_1', creditsRemaining: 49_500 }))).toBeUndefined();
  return ledger;
}

describe('the ledger model of a history', () => {
  it('CR-6.2, CR-6.9, CR-7.13 explains a first payment, spends, a request id and its one repeat, then invalid_payment', () => {
    const ledger = funded();
    expect(ledger.observe(call(0, { outcome: 'served', creditsRemaining: 49_000 }))).toBeUndefined();
    expect(ledger.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 48_500 }))).toBeUndefined();
    expect(ledger.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 48_500 }))).toBeUndefined();
    expect(ledger.observe(call(0, { outcome: 'invalid', rid: 'a' }))).toBeUndefined();
    expect(ledger.observe(call(0, { ...fails, outcome: 'invalid', rid: 'a' }))).toBeUndefined();
    expect(ledger.observe(call(1, { outcome: 'challenge' }))).toBeUndefined();
    expect(ledger.reconcile([{ card: 0, id: 'pi_1', currency: 'usd', units: 50_000 }])).toBeUndefined();
  });

  it('CR-6.9 charges a request served free as the repeat of an id this client never used (ids not scoped per client)', () => {
    const ledger = funded();
    expect(ledger.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }))).toBeUndefined();
    const ownFunds = ledger.observe(call(1, { outcome: 'served', rid: 'a', creditsRemaining: 0 }));
    expect(ownFunds?.ids).toEqual(['CR-6.9']);
    expect(ownFunds?.message).toContain('which this client never used');
  });

  it('CR-6.9 charges a repeat deducted again, and a repeat refused', () => {
    const again = funded();
    again.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }));
    expect(again.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 48_500 }))).toMatchObject({ ids: ['CR-6.9'], message: expect.stringContaining('deducted again') });
    const refused = funded();
    refused.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }));
    expect(refused.observe(call(0, { outcome: 'invalid', rid: 'a' }))?.ids).toEqual(['CR-6.9']);
  });

  it('CR-6.7 explains concurrent spends in some serial order, and charges two answers of one balance (a lost update)', () => {
    const ledger = funded();
    const burst = [call(0, { outcome: 'served', creditsRemaining: 48_500 }), call(0, { outcome: 'served', creditsRemaining: 49_000 })];
    expect(ledger.observeTogether(burst)).toBeUndefined();
    const lost = ledger.observeTogether([call(0, { outcome: 'served', creditsRemaining: 48_000 }), call(0, { outcome: 'served', creditsRemaining: 48_000 })]);
    expect(lost?.ids).toEqual(['CR-6.7']);
    expect(lost?.message).toContain('no serial order');
  });

  it('CR-8.12 keeps both outcomes of a 503, and the retry with its request id settles them either way', () => {
    const ledger = funded();
    ledger.faulted(0);
    expect(ledger.observe(call(0, { outcome: 'unavailable', rid: 'a' }))).toBeUndefined();
    expect(ledger.states).toBe(2);
    // Applied: the retry is its repeat; not applied: the retry is the deduction. Both leave 49000.
    expect(ledger.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }))).toBeUndefined();
    expect(ledger.observe(call(0, { outcome: 'served', creditsRemaining: 48_500 }))).toBeUndefined();
    const without = funded();
    expect(without.observe(call(0, { outcome: 'unavailable' }))).toBeUndefined();
    expect(without.observe(call(0, { outcome: 'served', creditsRemaining: 48_500 }))).toBeUndefined();
    const twice = funded();
    twice.observe(call(0, { outcome: 'unavailable', rid: 'a' }));
    twice.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }));
    expect(twice.observe(call(0, { outcome: 'served', creditsRemaining: 48_000 }))?.ids).toEqual(['CR-6.2']);
  });

  it('CR-4.7 charges a price taken for a paid request refused before its handler (a body that does not parse)', () => {
    const ledger = new Ledger(3);
    ledger.observe(call(0, { ...translate, outcome: 'served', topUp: 100_000, chargeId: 'pi_2', creditsRemaining: 97_500 }));
    expect(ledger.observe(call(0, { ...translate, outcome: 'refused', malformed: true }))).toBeUndefined();
    expect(ledger.observe(call(0, { ...translate, outcome: 'served', creditsRemaining: 92_500 }))?.ids).toEqual(['CR-4.7']);
  });

  it('CR-7.9, CR-7.13 charges a succeeded PaymentIntent no answer accounts for, and CR-7.13 a chargeId the journal lacks', () => {
    const uncredited = funded();
    expect(uncredited.reconcile([{ card: 0, id: 'pi_1', currency: 'usd', units: 50_000 }, { card: 0, id: 'pi_9', currency: 'usd', units: 50_000 }])?.ids).toEqual(['CR-7.9', 'CR-7.13']);
    expect(funded().reconcile([])?.ids).toEqual(['CR-7.13']);
  });

  it('CR-6.3, CR-7.4 charges serving an unknown client and charging a card whose balance sufficed', () => {
    expect(new Ledger(3).observe(call(2, { outcome: 'served', creditsRemaining: 0 }))?.ids).toEqual(['CR-6.3']);
    expect(funded().observe(call(0, { outcome: 'served', topUp: 50_000, chargeId: 'pi_3', creditsRemaining: 99_000 }))?.ids).toEqual(['CR-7.4']);
  });

  it('CR-6.9, CR-11.3 with refunds declared: a failed handler\'s price comes back once, unless its repeat was served first', async () => {
    const refunding = (): Ledger => {
      const ledger = new Ledger(3, { refunds: true });
      ledger.observe(call(0, { outcome: 'served', topUp: 50_000, chargeId: 'pi_1', creditsRemaining: 49_500 }));
      return ledger;
    };
    const back = refunding();
    expect(back.observe(call(0, { ...fails, failing: true, outcome: 'served', rid: 'a', creditsRemaining: 49_100 }))).toBeUndefined();
    expect(back.refundsPending).toBe(true);
    // Landed or not yet: both explain the next spend.
    expect(back.observe(call(0, { outcome: 'served', creditsRemaining: 49_000 }))).toBeUndefined();
    expect(back.observe(call(0, { outcome: 'served', creditsRemaining: 48_900 }))?.ids).toEqual(['CR-11.3']);
    const late = refunding();
    late.observe(call(0, { ...fails, failing: true, outcome: 'served', rid: 'a', creditsRemaining: 49_100 }));
    late.observe(call(0, { ...fails, failing: true, outcome: 'served', rid: 'a', creditsRemaining: 49_100 }));
    expect(late.observe(call(0, { ...fails, failing: true, outcome: 'invalid', rid: 'a' }))).toBeUndefined();
    expect(late.observe(call(0, { outcome: 'served', creditsRemaining: 49_000 }))).toMatchObject({ ids: ['CR-6.9'], message: expect.stringContaining("came back after its request id's repeat was served") });
  });

  it('CR-6.2 charges answers that fit only once exchanged between two clients, CR-6.7 a flood served past the balance', () => {
    const ledger = funded();
    const crossed = ledger.observeTogether([call(0, { outcome: 'challenge' }), call(1, { outcome: 'served', creditsRemaining: 49_000 })]);
    expect(crossed).toMatchObject({ ids: ['CR-6.2'], message: expect.stringContaining('they fit once exchanged') });
    const flood = funded();
    const served = Array.from({ length: 99 }, (_, index) => call(0, { outcome: 'served', creditsRemaining: 49_000 - 500 * index }));
    expect(flood.observeTogether([...served, ...Array.from({ length: 9 }, () => call(0, { outcome: 'challenge' }))])).toBeUndefined();
    const over = funded();
    expect(over.observeTogether(Array.from({ length: 101 }, (_, index) => call(0, { outcome: 'served', creditsRemaining: 49_000 - 500 * index })))?.ids).toEqual(['CR-6.7']);
  });

  it('CR-4.7 charges a request id kept by a malformed request refused before its handler', () => {
    const ledger = new Ledger(3);
    ledger.observe(call(0, { ...translate, outcome: 'served', topUp: 100_000, chargeId: 'pi_2', creditsRemaining: 97_500 }));
    ledger.observe(call(0, { ...translate, outcome: 'refused', malformed: true, rid: 'm' }));
    expect(ledger.observe(call(0, { outcome: 'invalid', rid: 'm' }))?.ids).toEqual(['CR-4.7']);
  });
});
