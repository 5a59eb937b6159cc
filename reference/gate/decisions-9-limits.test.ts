// Decision table of spec §9: default minimum and currency, the unit scale at the charge, the largest top-up, and the optional new-payment rate limit.
import { describe, it } from 'vitest';
import { RATE_LIMITED_MESSAGE } from './rate-limit.ts';
import { ALICE, MASTERCARD, MASTERCARD_PM, VISA, VISA_PM } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, titled, type Row } from 'credit402-tooling/testing/decision-table';
import { chargeKey, challenge } from 'credit402-tooling/testing/spec-answers';

const WEATHER = 'GET /api/weather';
const NEW_PAYMENT = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;

/** A first payment of `topUp` units on the weather route: `cents` charged, `topUp` credited, 500 deducted. */
const topUp = (title: string, units: number, cents: number): Row => ({
  title,
  request: { payment: { paymentMethodId: VISA_PM, topUpAmount: units } },
  decision: { action: 'serve', payment: { success: true, creditsRemaining: units - 500, clientId: VISA, chargeId: 'pi_fake_1' } },
  store: { clients: { [VISA]: { balances: { usd: units - 500 }, topUps: 1 } }, records: { [VISA]: [{ type: 'topup', amount: units }, { type: 'deduction', amount: 500 }] } },
  processor: { calls: [...NEW_PAYMENT], charges: [{ amountCents: cents, metadata: { credit402_top_up_units: String(units) } }] },
});

/** One new payment of MASTERCARD from 10.0.0.1 already made, under a limit of one per address per minute. */
const LIMITED = {
  options: { newPaymentRateLimit: { perAddress: { max: 1, windowMs: 60_000 } } },
  balances: { [ALICE]: { usd: 1_000 } },
  before: [{ payment: { paymentMethodId: MASTERCARD_PM }, clientAddress: '10.0.0.1' }],
};

const rows: Row[] = [
  {
    title: 'CR-9.1 CR-9.2 a route without minTopUp or currency is challenged at 50000 units in usd',
    request: { url: '/api/dear' },
    decision: { action: 'respond', status: 402, challenge: challenge({ url: '/api/dear', amount: 50_000, currency: 'usd', minTopUp: 50_000 }) },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-9.1 CR-9.2 CR-7.1 without topUpAmount the top-up is the default minimum: 500 usd minor units charged, 50000 units credited',
    request: { url: '/api/zero', payment: { paymentMethodId: VISA_PM } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 50_000, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 50_000 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT], charges: [{ amountCents: 500, currency: 'usd', metadata: { credit402_top_up_units: '50000' } }] },
  },
  topUp('CR-9.3 CR-1.3 CR-7.14 50099 units charge 501 minor units, rounded up', 50_099, 501),
  topUp('CR-9.3 CR-1.3 CR-7.14 50100 units charge 501 minor units exactly', 50_100, 501),
  topUp('CR-9.4 CR-7.14 the largest top-up, 9999999900 units, charges 99999999 minor units', 9_999_999_900, 99_999_999),
  {
    title: 'CR-9.4 CR-7.1 9999999901 units is above the default maxTopUp: invalid_payment before any processor call',
    request: { payment: { paymentMethodId: VISA_PM, topUpAmount: 9_999_999_901 } },
    decision: { action: 'respond', status: 402, code: 'invalid_payment', message: /topUpAmount.*9999999900/ },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-9.6 newPaymentRateLimit: an attempt over the limit is answered 429 with Retry-After, before any processor call',
    setup: LIMITED,
    request: { payment: { paymentMethodId: VISA_PM }, clientAddress: '10.0.0.1' },
    decision: {
      action: 'respond',
      status: 429,
      headers: { 'retry-after': /^[1-9][0-9]*$/ },
      body: { success: false, creditsRemaining: 0, clientId: '', error: RATE_LIMITED_MESSAGE, errorCode: 'rate_limited' },
    },
    store: { clients: { [VISA]: null, [MASTERCARD]: { balances: { usd: 49_500 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-9.6 the rate limit counts new payments only: a funded clientId next to a paymentMethodId is served',
    setup: LIMITED,
    request: { payment: { clientId: ALICE, paymentMethodId: VISA_PM }, clientAddress: '10.0.0.1' },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: ALICE } },
    store: { clients: { [ALICE]: { balances: { usd: 500 }, topUps: 0 } } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-9.6 another client address has its own window',
    setup: LIMITED,
    request: { payment: { paymentMethodId: VISA_PM }, clientAddress: '10.0.0.2' },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_2' } },
    store: { clients: { [VISA]: { balances: { usd: 49_500 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT, ...NEW_PAYMENT], charges: [{}, { paymentMethodId: VISA_PM, idempotencyKey: chargeKey(VISA, 0, VISA_PM, WEATHER, 50_000, 'usd') }] },
  },
];

describe('CR-9.1 CR-9.2 CR-9.3 CR-9.4 CR-9.6 limit decisions', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
