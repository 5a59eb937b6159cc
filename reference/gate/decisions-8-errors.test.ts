// Decision table of spec §8: the shape of payment errors and 503 answers, their codes and messages, and honest messages when a store outcome is unknown.
import { describe, it } from 'vitest';
import { ALICE, BOB, VISA, VISA_PM } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, titled, type Row } from 'credit402-tooling/testing/decision-table';
import { MALFORMED, PAYMENT_FAILED, WEATHER_ROUTE, challenge, failure } from 'credit402-tooling/testing/spec-answers';
import { OUTCOME_UNKNOWN } from './store-outcome.ts';

const PAY = { payment: { paymentMethodId: VISA_PM } };
const NEW_PAYMENT = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;
const FUNDED = { balances: { [ALICE]: { usd: 1_000 } } };
const ERROR_HEADERS = { 'payment-required': null, 'payment-response': null, 'retry-after': null, 'cache-control': 'no-store', vary: 'payment' };
const UNAVAILABLE_HEADERS = { ...ERROR_HEADERS, 'retry-after': '1' };
/** CR-8.9's reference message before a charge, as the spec and Appendix A.5 write it. */
const NOTHING_CHARGED_OR_DEDUCTED = 'Credit store temporarily unavailable; nothing was charged or deducted';

const rows: Row[] = [
  {
    title: 'CR-8.1 CR-8.4 CR-8.10 a payment error is a 402 PaymentResponse of exactly five members, without protocol header (A.5)',
    setup: FUNDED,
    request: { header: 'e30==' },
    decision: { action: 'respond', status: 402, headers: ERROR_HEADERS, body: failure('invalid_payment', MALFORMED) },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-8.2 CR-8.9 CR-6.6 a store outage on the credits path: 503, Retry-After 1, the same five members',
    setup: { ...FUNDED, faults: [{ method: 'deductBalance', script: 'reject' }] },
    request: { payment: { clientId: ALICE } },
    decision: { action: 'respond', status: 503, headers: UNAVAILABLE_HEADERS, body: failure('service_unavailable', OUTCOME_UNKNOWN.DEDUCTION) },
    store: { clients: { [ALICE]: { balances: { usd: 1_000 }, topUps: 0 } } },
    processor: { calls: [] },
    reported: ['deductBalance'],
  },
  {
    title: 'CR-8.3 CR-8.8 insufficient_credits is the error of a challenge, never a PaymentResponse errorCode',
    request: { payment: { clientId: BOB } },
    decision: { action: 'respond', status: 402, code: 'insufficient_credits', body: challenge(WEATHER_ROUTE, true) },
    store: { calls: ['deductBalance'] },
    processor: { calls: [] },
  },
  {
    title: 'CR-8.5 top_up_below_minimum: the message contains the top-up and the minimum',
    request: { payment: { paymentMethodId: VISA_PM, topUpAmount: 49_999 } },
    decision: { action: 'respond', status: 402, headers: ERROR_HEADERS, body: failure('top_up_below_minimum', 'Top-up amount 49999 units is below the minimum top-up of 50000 units') },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: "CR-8.6 card_declined carries the processor's message verbatim",
    setup: { processor: { charges: [{ kind: 'card_error', message: 'Your card has insufficient funds.' }] } },
    request: PAY,
    decision: { action: 'respond', status: 402, headers: ERROR_HEADERS, body: failure('card_declined', 'Your card has insufficient funds.') },
    store: { clients: { [VISA]: null } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: "CR-8.7 CR-8.10 payment_failed never carries the processor's own message",
    setup: { processor: { failures: { getCardFingerprint: { kind: 'error', message: 'Invalid API Key provided: sk_test_****abcd' } } } },
    request: PAY,
    decision: { action: 'respond', status: 402, body: failure('payment_failed', PAYMENT_FAILED) },
    store: { calls: [] },
    processor: { calls: ['getCardFingerprint'] },
    reported: ['getCardFingerprint'],
  },
  {
    title: 'CR-8.9 CR-7.21 before a charge, the 503 says nothing was charged or deducted',
    setup: { faults: [{ method: 'getClient', script: 'reject' }] },
    request: PAY,
    decision: { action: 'respond', status: 503, headers: UNAVAILABLE_HEADERS, body: failure('service_unavailable', NOTHING_CHARGED_OR_DEDUCTED) },
    store: { clients: { [VISA]: null } },
    processor: { calls: ['getCardFingerprint'] },
    reported: ['getClient'],
  },
  {
    title: 'CR-8.12 a deduction that never answers fails at storeTimeoutMs: 503, its outcome unknown',
    setup: { ...FUNDED, options: { storeTimeoutMs: 20 }, faults: [{ method: 'deductBalance', script: 'hang' }] },
    request: { payment: { clientId: ALICE } },
    decision: { action: 'respond', status: 503, headers: UNAVAILABLE_HEADERS, body: failure('service_unavailable', OUTCOME_UNKNOWN.DEDUCTION), ms: { atLeast: 15, below: 400 } },
    store: { calls: ['deductBalance'] },
    processor: { calls: [] },
    reported: ['deductBalance'],
  },
  {
    title: 'CR-8.12 a deduction whose reply was lost did happen: its 503 does not say nothing was deducted',
    setup: { ...FUNDED, faults: [{ method: 'deductBalance', script: 'lost' }] },
    request: { payment: { clientId: ALICE } },
    decision: { action: 'respond', status: 503, body: failure('service_unavailable', OUTCOME_UNKNOWN.DEDUCTION) },
    store: { clients: { [ALICE]: { balances: { usd: 500 }, topUps: 0 } } },
    processor: { calls: [] },
  },
  {
    title: 'CR-8.12 CR-6.9 after a lost deduction reply, the retry with the same requestId is served without a second deduction',
    setup: { ...FUNDED, faults: [{ method: 'deductBalance', nth: 1, script: 'lost' }], before: [{ payment: { clientId: ALICE, requestId: 'r-1' } }] },
    request: { payment: { clientId: ALICE, requestId: 'r-1' } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: ALICE } },
    store: { clients: { [ALICE]: { balances: { usd: 500 }, topUps: 0 } } },
    processor: { calls: [] },
  },
  {
    title: 'CR-8.12 CR-7.22 a credit that never answers after the charge: 503 at the deadline, saying it may not be credited yet',
    setup: { options: { storeTimeoutMs: 20 }, faults: [{ method: 'creditTopUp', script: 'hang' }] },
    request: PAY,
    decision: { action: 'respond', status: 503, body: failure('service_unavailable', OUTCOME_UNKNOWN.CREDIT), ms: { below: 400 } },
    store: { clients: { [VISA]: null } },
    processor: { calls: [...NEW_PAYMENT] },
    reported: ['creditTopUp'],
  },
  {
    title: 'CR-8.12 CR-7.22 a credit whose reply was lost: the retry is served from the credited balance, charged once',
    setup: { faults: [{ method: 'creditTopUp', nth: 1, script: 'lost' }], before: [PAY] },
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA } },
    store: { clients: { [VISA]: { balances: { usd: 49_500 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT, 'getCardFingerprint'] },
  },
];

describe('CR-8.1 CR-8.2 CR-8.3 CR-8.4 CR-8.5 CR-8.6 CR-8.7 CR-8.8 CR-8.9 CR-8.10 CR-8.12 error decisions', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
