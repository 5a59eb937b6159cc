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

describe('the ledger model of a gateway (CR-15.3)', () => {
  /** A 502 or 504 the gateway answered itself, its upstream giving no answer. */
  const failed = (card: number, fields: Partial<Observation> = {}): Observation => call(card, { outcome: 'upstreamFailed', ...fields });

  it('CR-15.3, CR-6.9 gives a failed request back at once: its retry with the request id is a new deduction, the next its repeat', () => {
    const ledger = funded();
    expect(ledger.observe(failed(0, { rid: 'a' }))).toBeUndefined();
    expect(ledger.refundsPending).toBe(false);
    expect(ledger.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }))).toBeUndefined();
    expect(ledger.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }))).toBeUndefined();
    expect(ledger.observe(call(0, { outcome: 'invalid', rid: 'a' }))).toBeUndefined();
    ledger.giveBacksLanded();
    expect(ledger.observe(call(0, { outcome: 'served', creditsRemaining: 48_500 }))).toBeUndefined();
    expect(ledger.reconcile([{ card: 0, id: 'pi_1', currency: 'usd', units: 50_000 }])).toBeUndefined();
  });

  it('CR-15.3 charges a price kept: a balance short by it, a challenge only it explains, the retry served as the kept repeat', () => {
    const short = funded();
    short.observe(failed(0));
    short.giveBacksLanded();
    expect(short.observe(call(0, { outcome: 'served', creditsRemaining: 48_500 }))).toMatchObject({ ids: ['CR-15.3'], message: expect.stringContaining('never came back') });
    const challenged = new Ledger(3);
    challenged.observe(call(0, { outcome: 'served', topUp: 1_000, chargeId: 'pi_1', creditsRemaining: 500 }));
    challenged.observe(failed(0));
    expect(challenged.observe(call(0, { outcome: 'challenge' }))?.ids).toEqual(['CR-15.3']);
    // The gateway kept the deduction: the retry was served free as its repeat (49000), and the third request is refused.
    const kept = funded();
    kept.observe(call(0, { outcome: 'served', creditsRemaining: 49_000 }));
    kept.observe(failed(0, { rid: 'a' }));
    expect(kept.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 48_500 }))).toBeUndefined();
    expect(kept.observe(call(0, { outcome: 'invalid', rid: 'a' }))).toMatchObject({ ids: ['CR-15.3'], message: expect.stringContaining('as if request id a were still kept') });
    // The price given back, the request id not: the retry is served free.
    const idKept = funded();
    idKept.observe(failed(0, { rid: 'a' }));
    expect(idKept.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_500 }))?.ids).toEqual(['CR-15.3']);
  });

  it('CR-15.3, CR-11.3, CR-6.9 with its refunds faulted: a give-back lands later, once, and never after a served repeat', () => {
    const twice = funded();
    twice.observe(failed(0));
    expect(twice.observe(call(0, { outcome: 'served', creditsRemaining: 49_500 }))?.ids).toEqual(['CR-11.3', 'CR-15.3']);
    const faulted = (): Ledger => {
      const ledger = funded();
      ledger.refundFaulted(0);
      expect(ledger.observe(failed(0, { rid: 'a' }))).toBeUndefined();
      expect(ledger.refundsPending).toBe(true);
      return ledger;
    };
    // Not landed yet: the retry is the repeat of the kept deduction, and the give-back is superseded (CR-6.9).
    const repeated = faulted();
    expect(repeated.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }))).toBeUndefined();
    repeated.giveBacksLanded();
    expect(repeated.observe(call(0, { outcome: 'served', creditsRemaining: 48_500 }))).toBeUndefined();
    const late = faulted();
    late.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }));
    expect(late.observe(call(0, { outcome: 'served', creditsRemaining: 49_000 }))?.ids).toEqual(['CR-6.9', 'CR-15.3']);
    // Never landed by the closing reads: exactly once includes a store that failed.
    const never = faulted();
    never.giveBacksLanded();
    expect(never.observe(call(0, { outcome: 'served', creditsRemaining: 48_500 }))?.ids).toEqual(['CR-15.3']);
  });

  it("CR-15.3 keeps the price of an answer cut after its status line, and credits a first payment's top-up answered 502", () => {
    const cut = funded();
    expect(cut.observe(call(0, { outcome: 'servedUnseen', rid: 'a' }))).toBeUndefined();
    expect(cut.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }))).toBeUndefined();
    expect(cut.observe(call(0, { outcome: 'served', creditsRemaining: 48_500 }))).toBeUndefined();
    const paid = new Ledger(3);
    expect(paid.observe(failed(1, { topUp: 50_000 }))).toBeUndefined();
    expect(paid.observe(call(1, { outcome: 'served', creditsRemaining: 49_500 }))).toBeUndefined();
    expect(paid.reconcile([{ card: 1, id: 'pi_7', currency: 'usd', units: 50_000 }])).toBeUndefined();
  });

  it('CR-6.3, CR-6.9 charges a 502 for a request the gate should have refused before the upstream', () => {
    expect(new Ledger(3).observe(failed(2))?.ids).toEqual(['CR-6.3']);
    const used = funded();
    used.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }));
    used.observe(call(0, { outcome: 'served', rid: 'a', creditsRemaining: 49_000 }));
    expect(used.observe(failed(0, { rid: 'a' }))?.ids).toEqual(['CR-6.9']);
  });
});
