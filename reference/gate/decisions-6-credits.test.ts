// Decision table of spec §6, the credits path: shape check, deduction, insufficient balances, price zero, outages, currencies, request ids.
import { describe, it } from 'vitest';
import { ALICE, BOB, VISA, VISA_PM } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, titled, type Row } from 'credit402-tooling/testing/decision-table';
import { WEATHER_ROUTE, challenge, failure } from 'credit402-tooling/testing/spec-answers';
import { OUTCOME_UNKNOWN } from './store-outcome.ts';

const WEATHER = 'GET /api/weather';
const NEW_PAYMENT = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;
const INSUFFICIENT = { action: 'respond', status: 402, challenge: challenge(WEATHER_ROUTE, true) } as const;
const served = (clientId: string, creditsRemaining: number) => ({ action: 'serve', payment: { success: true, creditsRemaining, clientId } }) as const;
const client = (balances: Record<string, number>, topUps = 0) => ({ balances, topUps });

/** ALICE holds 10000 usd; `before` are earlier requests of hers. */
const withRequestIds = (title: string, before: Row['request'][], request: Row['request'], decision: Row['decision'], balance: number): Row => ({
  title,
  setup: { balances: { [ALICE]: { usd: 10_000 } }, before },
  request,
  decision,
  store: { clients: { [ALICE]: client({ usd: balance }) } },
  processor: { calls: [] },
});

const rows: Row[] = [
  {
    title: 'CR-6.1 CR-11.6 a clientId of the wrong shape is unknown without a store call, even with the store down',
    setup: { faults: [{ method: 'deductBalance', script: 'reject' }] },
    request: { payment: { clientId: 'not-a-client-id' } },
    decision: INSUFFICIENT,
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.1 CR-6.4 a wrongly shaped clientId with a paymentMethodId takes the new-payment path; only the card is deducted',
    request: { payment: { clientId: VISA.toUpperCase(), paymentMethodId: VISA_PM } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { calls: ['acquireLock', 'getClient', 'deductBalance', 'creditTopUp', 'deductBalance', 'releaseLock'], clients: { [VISA]: client({ usd: 49_500 }, 1) } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-6.2 CR-11.8 a funded client is deducted the price once, with its deduction record',
    setup: { balances: { [ALICE]: { usd: 1_000 } } },
    request: { payment: { clientId: ALICE } },
    decision: served(ALICE, 500),
    store: {
      calls: ['deductBalance'],
      clients: { [ALICE]: client({ usd: 500 }) },
      records: { [ALICE]: [{ type: 'deduction', clientId: ALICE, currency: 'usd', amount: 500, resource: WEATHER }] },
    },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.2 a balance of exactly the price is served down to 0',
    setup: { balances: { [ALICE]: { usd: 500 } } },
    request: { payment: { clientId: ALICE } },
    decision: served(ALICE, 0),
    store: { calls: ['deductBalance'], clients: { [ALICE]: client({ usd: 0 }) } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.2 paymentMethodId and a topUpAmount above maxTopUp are ignored when the credits suffice',
    setup: { balances: { [ALICE]: { usd: 1_000 } } },
    request: { payment: { clientId: ALICE, paymentMethodId: VISA_PM, topUpAmount: 99_999_999_999 } },
    decision: served(ALICE, 500),
    store: { calls: ['deductBalance'], clients: { [ALICE]: client({ usd: 500 }) } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.3 a balance below the price without a payment method: insufficient challenge, balance unchanged, no record',
    setup: { balances: { [ALICE]: { usd: 499 } } },
    request: { payment: { clientId: ALICE } },
    decision: INSUFFICIENT,
    store: { calls: ['deductBalance'], clients: { [ALICE]: client({ usd: 499 }) }, records: { [ALICE]: [] } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.3 an unknown client: insufficient challenge, and no record is created',
    request: { payment: { clientId: BOB } },
    decision: INSUFFICIENT,
    store: { calls: ['deductBalance'], clients: { [BOB]: null } },
    processor: { calls: [] },
  },
  {
    title: "CR-6.4 CR-7.25 short of funds with a paymentMethodId: the card's client is credited, the payload's client unchanged",
    setup: { balances: { [ALICE]: { usd: 100 } } },
    request: { payment: { clientId: ALICE, paymentMethodId: VISA_PM } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [ALICE]: client({ usd: 100 }), [VISA]: client({ usd: 49_500 }, 1) } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-6.5 price zero: an existing client without balance is served, with a deduction record of 0',
    setup: { seed: (store) => store.ensureClient(ALICE) },
    request: { url: '/api/zero', payment: { clientId: ALICE } },
    decision: served(ALICE, 0),
    store: { calls: ['deductBalance'], clients: { [ALICE]: client({}) }, records: { [ALICE]: [{ type: 'deduction', amount: 0, resource: 'GET /api/zero' }] } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.5 price zero: creditsRemaining is the current balance',
    setup: { balances: { [ALICE]: { usd: 1_000 } } },
    request: { url: '/api/zero', payment: { clientId: ALICE } },
    decision: served(ALICE, 1_000),
    store: { clients: { [ALICE]: client({ usd: 1_000 }) } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.5 price zero: an unknown client still gets the insufficient challenge',
    request: { url: '/api/zero', payment: { clientId: BOB } },
    decision: { action: 'respond', status: 402, challenge: challenge({ url: '/api/zero', amount: 0 }, true) },
    store: { calls: ['deductBalance'], clients: { [BOB]: null } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.6 CR-8.2 the deduction failing: 503 with Retry-After, no processor call even with a paymentMethodId',
    setup: { balances: { [ALICE]: { usd: 1_000 } }, faults: [{ method: 'deductBalance', script: 'reject' }] },
    request: { payment: { clientId: ALICE, paymentMethodId: VISA_PM } },
    decision: { action: 'respond', status: 503, headers: { 'retry-after': '1' }, body: failure('service_unavailable', OUTCOME_UNKNOWN.DEDUCTION) },
    store: { calls: ['deductBalance'], clients: { [ALICE]: client({ usd: 1_000 }) } },
    processor: { calls: [] },
    reported: ['deductBalance'],
  },
  {
    title: 'CR-6.8 a client funded only in eur asking a usd route gets the insufficient challenge',
    setup: { balances: { [ALICE]: { eur: 1_000 } } },
    request: { payment: { clientId: ALICE } },
    decision: INSUFFICIENT,
    store: { clients: { [ALICE]: client({ eur: 1_000 }) } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.8 an eur route deducts the eur balance, usd untouched, and says the eur balance',
    setup: { balances: { [ALICE]: { usd: 1_000, eur: 700 } } },
    request: { url: '/api/euro', payment: { clientId: ALICE } },
    decision: served(ALICE, 200),
    store: { clients: { [ALICE]: client({ usd: 1_000, eur: 200 }) }, records: { [ALICE]: [{ type: 'deduction', currency: 'eur', amount: 500, resource: 'GET /api/euro' }] } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.8 CR-7.9 a top-up on the usd route leaves the eur balance unchanged',
    setup: { balances: { [VISA]: { eur: 700 } } },
    request: { payment: { paymentMethodId: VISA_PM } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: client({ eur: 700, usd: 49_500 }, 1) } },
    processor: { calls: [...NEW_PAYMENT], charges: [{ currency: 'usd' }] },
  },
  withRequestIds(
    'CR-6.9 a retry with the same requestId is served without a second deduction, with the current balance',
    [{ payment: { clientId: ALICE, requestId: 'r-1' } }],
    { payment: { clientId: ALICE, requestId: 'r-1' } },
    served(ALICE, 9_500),
    9_500,
  ),
  withRequestIds(
    'CR-6.9 CR-3.8 the one repeat was given: a third use of the requestId is invalid_payment naming it',
    [{ payment: { clientId: ALICE, requestId: 'r-1' } }, { payment: { clientId: ALICE, requestId: 'r-1' } }],
    { payment: { clientId: ALICE, requestId: 'r-1' } },
    { action: 'respond', status: 402, code: 'invalid_payment', message: /requestId/ },
    9_500,
  ),
  withRequestIds(
    'CR-6.9 a requestId spent on another route is invalid_payment, nothing deducted',
    [{ payment: { clientId: ALICE, requestId: 'r-1' } }],
    { method: 'POST', url: '/api/translate', payment: { clientId: ALICE, requestId: 'r-1' } },
    { action: 'respond', status: 402, code: 'invalid_payment', message: /requestId/ },
    9_500,
  ),
  withRequestIds(
    'CR-6.9 without requestId every request is a new deduction',
    [{ payment: { clientId: ALICE } }],
    { payment: { clientId: ALICE } },
    served(ALICE, 9_000),
    9_000,
  ),
  withRequestIds(
    'CR-6.9 a deduction that failed keeps nothing: the same requestId is then deducted on another route',
    [{ url: '/api/dear', payment: { clientId: ALICE, requestId: 'r-1' } }],
    { payment: { clientId: ALICE, requestId: 'r-1' } },
    served(ALICE, 9_500),
    9_500,
  ),
  {
    title: "CR-6.9 a requestId is kept per client: another client's same requestId is a new deduction",
    setup: { balances: { [ALICE]: { usd: 1_000 }, [BOB]: { usd: 1_000 } }, before: [{ payment: { clientId: ALICE, requestId: 'r-1' } }] },
    request: { payment: { clientId: BOB, requestId: 'r-1' } },
    decision: served(BOB, 500),
    store: { clients: { [ALICE]: client({ usd: 500 }), [BOB]: client({ usd: 500 }) } },
    processor: { calls: [] },
  },
];

describe('CR-6.1 CR-6.2 CR-6.3 CR-6.4 CR-6.5 CR-6.6 CR-6.8 CR-6.9 CR-7.25 CR-11.6 CR-11.8 credits path decisions', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
