// Decision table of spec §4 dispatch: the order of CR-4.5's cases, and what settling a served request does (CR-4.7, refundOnHandlerError).
import { describe, it } from 'vitest';
import type { ServeOutcome } from './decision.ts';
import { ALICE, VISA, VISA_PM } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, titled, type Row } from 'credit402-tooling/testing/decision-table';
import { WEATHER_ROUTE, challenge } from 'credit402-tooling/testing/spec-answers';

const FUNDED = { balances: { [ALICE]: { usd: 1_000 } } };
const NEW_PAYMENT = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;

/** A payload that gets the plain challenge (CR-4.5 cases 1 and 3) after no store or processor call. */
const plain = (title: string, payment?: object): Row => ({
  title,
  setup: FUNDED,
  request: payment === undefined ? {} : { payment },
  decision: { action: 'respond', status: 402, challenge: challenge(WEATHER_ROUTE) },
  store: { calls: [], clients: { [ALICE]: { balances: { usd: 1_000 }, topUps: 0 } } },
  processor: { calls: [] },
});

/** ALICE spends 500 of 1000, then the adapter settles with `outcome`; `refund` turns refundOnHandlerError on. */
const settled = (title: string, outcome: ServeOutcome, refund: boolean, balance: number, calls: Row['processor']['calls'] = []): Row => ({
  title,
  setup: { ...FUNDED, options: { refundOnHandlerError: refund } },
  request: { payment: { clientId: ALICE }, settle: outcome },
  decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: ALICE } },
  store: {
    calls: balance === 1_000 ? ['deductBalance', 'refundDeduction'] : ['deductBalance'],
    clients: { [ALICE]: { balances: { usd: balance }, topUps: 0 } },
  },
  processor: { calls },
});

const rows: Row[] = [
  plain('CR-4.5 CR-5.4 case 1: no payment header gets the plain challenge'),
  plain('CR-4.5 CR-5.4 case 3: an empty payload gets the plain challenge', {}),
  plain('CR-4.5 CR-5.4 case 3: a payload with only topUpAmount gets the plain challenge', { stripe402Version: 1, topUpAmount: 50_000 }),
  plain('CR-4.5 CR-5.4 case 3: a payload with only requestId gets the plain challenge', { requestId: 'r-1' }),
  {
    title: 'CR-4.5 case 2 comes before case 4: an invalid member next to a funded clientId is invalid_payment',
    setup: FUNDED,
    request: { payment: { clientId: ALICE, topUpAmount: 'lots' } },
    decision: { action: 'respond', status: 402, code: 'invalid_payment', message: /topUpAmount/ },
    store: { calls: [], clients: { [ALICE]: { balances: { usd: 1_000 }, topUps: 0 } } },
    processor: { calls: [] },
  },
  {
    title: 'CR-4.5 CR-6.2 case 4 comes before case 5: a funded clientId with a paymentMethodId spends credits, no processor call',
    setup: FUNDED,
    request: { payment: { clientId: ALICE, paymentMethodId: VISA_PM, topUpAmount: 100_000 } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: ALICE } },
    store: { calls: ['deductBalance'], clients: { [ALICE]: { balances: { usd: 500 }, topUps: 0 }, [VISA]: null } },
    processor: { calls: [] },
  },
  {
    title: 'CR-4.5 case 5: a paymentMethodId alone takes the new-payment path',
    request: { payment: { paymentMethodId: VISA_PM } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 49_500 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-4.5 CR-6.4 case 4 then 5: a clientId short of funds with a paymentMethodId pays by card',
    setup: { balances: { [ALICE]: { usd: 499 } } },
    request: { payment: { clientId: ALICE, paymentMethodId: VISA_PM } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [ALICE]: { balances: { usd: 499 }, topUps: 0 }, [VISA]: { balances: { usd: 49_500 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  settled('CR-4.7 the price is deducted before the handler, and a 500 keeps it by default', { status: 500 }, false, 500),
  settled('CR-4.7 a handler that threw keeps the deduction by default', { threw: true }, false, 500),
  settled('CR-4.7 refundOnHandlerError: a 5xx answer gives the price back', { status: 503 }, true, 1_000),
  settled('CR-4.7 refundOnHandlerError: a handler that threw gives the price back', { threw: true }, true, 1_000),
  settled('CR-4.7 refundOnHandlerError: a 4xx answer keeps the price', { status: 404 }, true, 500),
  settled('CR-4.7 refundOnHandlerError: a 2xx answer keeps the price', { status: 200 }, true, 500),
  {
    title: 'CR-4.7 CR-6.9 refundOnHandlerError: a served retry deducted nothing and gives nothing back',
    setup: { ...FUNDED, options: { refundOnHandlerError: true }, before: [{ payment: { clientId: ALICE, requestId: 'r-1' } }] },
    request: { payment: { clientId: ALICE, requestId: 'r-1' }, settle: { status: 500 } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: ALICE } },
    store: { calls: ['deductBalance', 'deductBalance', 'confirmRepeat'], clients: { [ALICE]: { balances: { usd: 500 }, topUps: 0 } } },
    processor: { calls: [] },
  },
  {
    title: "CR-4.7 refundOnHandlerError after a first payment: a 5xx gives the price back to the card's balance, the charge stays",
    setup: { options: { refundOnHandlerError: true } },
    request: { payment: { paymentMethodId: VISA_PM }, settle: { status: 502 } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 50_000 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-4.7 CR-6.5 refundOnHandlerError on a route of price 0: nothing to give back',
    setup: { ...FUNDED, options: { refundOnHandlerError: true } },
    request: { url: '/api/zero', payment: { clientId: ALICE }, settle: { status: 500 } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 1_000, clientId: ALICE } },
    store: { calls: ['deductBalance'], clients: { [ALICE]: { balances: { usd: 1_000 }, topUps: 0 } } },
    processor: { calls: [] },
  },
  {
    title: 'CR-4.7 a refund the store fails is reported to onError, and settle still resolves',
    setup: { ...FUNDED, options: { refundOnHandlerError: true }, faults: [{ method: 'refundDeduction', script: 'reject' }] },
    request: { payment: { clientId: ALICE }, settle: { status: 500 } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: ALICE } },
    store: { calls: ['deductBalance', 'refundDeduction'], clients: { [ALICE]: { balances: { usd: 500 }, topUps: 0 } } },
    processor: { calls: [] },
    reported: ['refundOnHandlerError'],
  },
];

describe('CR-4.5 CR-4.7 CR-5.4 CR-6.4 dispatch and settlement decisions', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
