// Decision table of spec §14 as the engine decides it: the per-card payment lease, leases after store failures, lost charge answers, negative balances.
import { describe, it } from 'vitest';
import type { MemoryStore } from '../stores/memory/memory-store.ts';
import { ALICE, MASTERCARD, VISA, VISA_PM } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, creditLandingAfter, titled, type Row } from 'credit402-tooling/testing/decision-table';
import { chargeKey, challenge, failure } from 'credit402-tooling/testing/spec-answers';
import { PAYMENT_IN_PROGRESS } from './payment-lock.ts';

const PAY = { payment: { paymentMethodId: VISA_PM } };
const NEW_PAYMENT = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;
const FIRST_PAYMENT = { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } } as const;
const PAID = { clients: { [VISA]: { balances: { usd: 49_500 }, topUps: 1 } } };
const KEY_0 = chargeKey(VISA, 0, VISA_PM, 'GET /api/weather', 50_000, 'usd');

/** Leaves `clientId` at −600 usd: a top-up of 1000 (`topUps` 1), 400 spent, then the whole top-up refunded. */
const negative = (clientId: string) => async (store: MemoryStore) => {
  await store.creditTopUp({ clientId, currency: 'usd', amount: 1_000, paymentIntentId: 'pi_refunded' });
  await store.deductBalance({ clientId, currency: 'usd', amount: 600 });
  await store.reverseTopUp({ paymentIntentId: 'pi_refunded', key: 'refund:ch_1', amount: 1_000 });
};

const rows: Row[] = [
  {
    title: 'CR-14.7 CR-8.9 a payment lease of the card held by another request: waits lockWaitMs, then 503, nothing charged or deducted',
    setup: { lease: { clientId: VISA }, options: { lockWaitMs: 30 } },
    request: PAY,
    decision: { action: 'respond', status: 503, headers: { 'retry-after': '1' }, body: failure('service_unavailable', PAYMENT_IN_PROGRESS), ms: { atLeast: 25, below: 1_000 } },
    store: { clients: { [VISA]: null } },
    processor: { calls: ['getCardFingerprint'] },
  },
  {
    title: 'CR-14.7 a waiting request is served from the balance the holder credited, without a charge of its own',
    setup: { lease: { clientId: VISA, releaseAfterMs: 15, credit: { clientId: VISA, currency: 'usd', amount: 50_000, paymentIntentId: 'pi_holder' } }, options: { lockWaitMs: 2_000 } },
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA }, ms: { below: 1_000 } },
    store: PAID,
    processor: { calls: ['getCardFingerprint'] },
  },
  {
    title: 'CR-14.7 when the holder released without crediting (its charge failed), the waiting request charges the card',
    setup: { lease: { clientId: VISA, releaseAfterMs: 15 }, options: { lockWaitMs: 2_000 } },
    request: PAY,
    decision: { ...FIRST_PAYMENT, ms: { below: 1_000 } },
    store: PAID,
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-14.7 the lease of another card does not hold this one up',
    setup: { lease: { clientId: MASTERCARD }, options: { lockWaitMs: 2_000 } },
    request: PAY,
    decision: { ...FIRST_PAYMENT, ms: { below: 500 } },
    store: PAID,
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-14.7 the credits path takes no lease',
    setup: { lease: { clientId: ALICE }, balances: { [ALICE]: { usd: 1_000 } }, options: { lockWaitMs: 2_000 } },
    request: { payment: { clientId: ALICE } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: ALICE } },
    store: { calls: ['deductBalance'] },
    processor: { calls: [] },
  },
  {
    title: 'CR-14.12 CR-7.22 a lease whose release failed with the credit does not hold up the retry once the store answers',
    setup: {
      options: { lockWaitMs: 5_000 },
      faults: [{ method: 'creditTopUp', nth: 1, script: 'reject' }, { method: 'releaseLock', nth: 1, script: 'reject' }],
      before: [PAY],
    },
    request: PAY,
    decision: { ...FIRST_PAYMENT, ms: { below: 1_000 } },
    store: PAID,
    processor: { calls: [...NEW_PAYMENT, ...NEW_PAYMENT], charges: [{ idempotencyKey: KEY_0 }, { idempotencyKey: KEY_0 }] },
    reported: ['creditTopUp', 'releaseLock'],
  },
  {
    title: 'CR-14.8 CR-7.16 CR-7.23 a charge whose answer was lost after charging: payment_failed, then its retry replays it under the same key, credited once',
    setup: { processor: { charges: [{ kind: 'no_answer', charged: true }] }, before: [PAY] },
    request: PAY,
    decision: FIRST_PAYMENT,
    store: { ...PAID, records: { [VISA]: [{ type: 'topup', paymentIntentId: 'pi_fake_1' }, { type: 'deduction' }] } },
    processor: { calls: [...NEW_PAYMENT, ...NEW_PAYMENT], charges: [{ idempotencyKey: KEY_0 }, { idempotencyKey: KEY_0 }] },
    reported: ['charge'],
  },
  {
    title: "CR-14.3 CR-7.4 a top-up the webhook credited after the request's credit failed: the retry is served from the balance, one PaymentIntent",
    setup: creditLandingAfter('releaseLock', 1, VISA, PAY),
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA } },
    store: PAID,
    processor: { calls: [...NEW_PAYMENT, 'getCardFingerprint'] },
  },
  {
    title: 'CR-14.6 a negative balance serves nothing, not even a route of price 0, and stays as it is',
    setup: { seed: negative(ALICE) },
    request: { url: '/api/zero', payment: { clientId: ALICE } },
    decision: { action: 'respond', status: 402, challenge: challenge({ url: '/api/zero', amount: 0 }, true) },
    store: { calls: ['deductBalance'], clients: { [ALICE]: { balances: { usd: -600 }, topUps: 1 } } },
    processor: { calls: [] },
  },
  {
    title: 'CR-14.6 CR-7.16 with a paymentMethodId the top-up is added to the negative balance before the price is deducted',
    setup: { seed: negative(VISA) },
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 48_900, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 48_900 }, topUps: 2 } } },
    processor: { calls: [...NEW_PAYMENT], charges: [{ idempotencyKey: chargeKey(VISA, 1, VISA_PM, 'GET /api/weather', 50_000, 'usd') }] },
  },
];

describe('CR-14.3 CR-14.6 CR-14.7 CR-14.8 CR-14.12 robustness decisions of the engine', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
