// Unit tests for applying verified events: charges without a PaymentIntent, reversals kept outside the transaction log, top-ups of another store.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { ProcessorEvent } from '../processor/processor.ts';
import { normalizeStripeEvent } from '../processor/stripe-events.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { applyProcessorEvent, OTHER_STORE } from './handle-event.ts';

const CLIENT = 'd'.repeat(64);

/** The two reversal events of Stripe's format, with `payment_intent` set to `value`, or removed when `value` is `'absent'`. */
function reversals(value: unknown): ProcessorEvent[] {
  const withPi = (object: Record<string, unknown>) => (value === 'absent' ? object : { ...object, payment_intent: value });
  return [
    normalizeStripeEvent({ id: 'evt_r', type: 'charge.refunded', data: { object: withPi({ id: 'ch_1', object: 'charge', amount_refunded: 500 }) } }),
    normalizeStripeEvent({ id: 'evt_d', type: 'charge.dispute.created', data: { object: withPi({ id: 'dp_1', object: 'dispute', charge: 'ch_1', amount: 500 }) } }),
  ];
}

describe('events of charges without a PaymentIntent (CR-14.4)', () => {
  it.each([['absent'], [null], [''], [42], [{ id: null }], [{ id: '' }]])('CR-14.4 acknowledges a refund and a dispute whose payment_intent is %j and changes nothing', async (value) => {
    const store = new MemoryStore();
    await store.creditTopUp({ clientId: CLIENT, currency: 'usd', amount: 50_000, paymentIntentId: 'pi_1' });
    const reverseTopUp = vi.spyOn(store, 'reverseTopUp');
    for (const event of reversals(value)) {
      expect(await applyProcessorEvent(store, event)).toEqual({ action: 'ignored', reason: 'the charge has no PaymentIntent' });
    }
    expect(reverseTopUp).not.toHaveBeenCalled();
    expect(await store.getClient(CLIENT)).toMatchObject({ balances: { usd: 50_000 }, topUps: 1 });
  });

  it('CR-14.4 takes a refund and a dispute that name the PaymentIntent, as a string or an expanded object', async () => {
    const store = new MemoryStore();
    await store.creditTopUp({ clientId: CLIENT, currency: 'usd', amount: 50_000, paymentIntentId: 'pi_1' });
    const [refund] = reversals('pi_1');
    const [, dispute] = reversals({ id: 'pi_1', object: 'payment_intent' });
    expect(await applyProcessorEvent(store, refund!)).toMatchObject({ action: 'reversed', taken: 50_000 });
    expect(await applyProcessorEvent(store, dispute!)).toMatchObject({ action: 'reversed', taken: 0 });
  });
});

describe('reversals are not transaction records (CR-11.7, CR-14.11)', () => {
  it('CR-11.7 CR-14.11 a refund and a dispute append nothing to the transaction log, which keeps only topup and deduction', async () => {
    const store = new MemoryStore();
    await store.creditTopUp({ clientId: CLIENT, currency: 'usd', amount: 50_000, paymentIntentId: 'pi_1' });
    await store.deductBalance({ clientId: CLIENT, currency: 'usd', amount: 500, record: { id: randomUUID(), type: 'deduction', clientId: CLIENT, currency: 'usd', amount: 500, createdAt: new Date().toISOString(), resource: 'GET /a' } });
    for (const event of reversals('pi_1')) await applyProcessorEvent(store, event);
    expect(await store.getClient(CLIENT)).toMatchObject({ balances: { usd: -500 } });
    expect((await store.listTransactions?.(CLIENT))?.map((record) => record.type)).toEqual(['topup', 'deduction']);
  });
});

describe('top-ups charged under another store id (CR-14.13)', () => {
  /** A verified `payment_intent.succeeded` of a top-up of 50000 units whose metadata names `storeId` (none when undefined). */
  const succeeded = (paymentIntentId: string, storeId?: string): ProcessorEvent => ({
    id: `evt_${paymentIntentId}`, type: 'payment_intent.succeeded', paymentIntentId,
    topUp: { clientId: CLIENT, units: 50_000, currency: 'usd', ...(storeId === undefined ? {} : { storeId }) },
  });

  it('CR-14.13 acknowledges and does not credit a PaymentIntent of another store, or of this one before a reset', async () => {
    const store = new MemoryStore({ storeId: 'store-now' });
    expect(await applyProcessorEvent(store, succeeded('pi_before', 'store-before'))).toEqual({ action: 'ignored', reason: OTHER_STORE });
    expect(await store.getClient(CLIENT)).toBeNull();
    expect(await store.hasCredit?.('pi_before')).toBe(false);
  });

  it('CR-14.13 credits a PaymentIntent of this store, and one made before PaymentIntents named their store', async () => {
    const store = new MemoryStore({ storeId: 'store-now' });
    expect(await applyProcessorEvent(store, succeeded('pi_now', 'store-now'))).toMatchObject({ action: 'credited', balance: 50_000 });
    expect(await applyProcessorEvent(store, succeeded('pi_old'))).toMatchObject({ action: 'credited', balance: 100_000 });
    expect(await applyProcessorEvent(store, succeeded('pi_now', 'store-now'))).toMatchObject({ action: 'already_credited', balance: 100_000 });
  });
});
